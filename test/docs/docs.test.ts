import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createMemoryStore } from '../../src/adapters/memory/store.js';
import { DOCS_CSP } from '../../src/adapters/http/docs.js';
import { BUNDLE_FILE } from '../../src/paths.js';
import { testServer } from '../support/http.js';

const ORIGIN = 'http://localhost';

async function server() {
  const { app } = await testServer({ store: createMemoryStore() });
  return (path: string, init?: RequestInit) => app.fetch(new Request(ORIGIN + path, init));
}

describe('the API reference', () => {
  it('serves the docs page with a Content-Security-Policy that allows only its own scripts and this server', async () => {
    const get = await server();
    const response = await get('/api/v1/docs');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('content-security-policy')).toBe(DOCS_CSP);
    expect(DOCS_CSP).toContain("script-src 'self'");
    expect(DOCS_CSP).not.toMatch(/script-src[^;]*unsafe/);
    const html = await response.text();
    // Every asset from this server: no absolute URL anywhere in the page.
    expect(html).not.toMatch(/(?:src|href)="(?:https?:)?\/\//);
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(assets).toHaveLength(4);
    for (const asset of assets) {
      const file = await get(asset);
      expect(file.status, asset).toBe(200);
      expect(file.headers.get('content-type'), asset).toMatch(/^(text\/css|text\/javascript|image\/png)/);
      expect((await file.arrayBuffer()).byteLength, asset).toBeGreaterThan(100);
    }
  });

  it('keeps the strict policy on every other answer', async () => {
    const get = await server();
    expect((await get('/api/v1/healthz')).headers.get('content-security-policy')).toBe("default-src 'none'; frame-ancestors 'none'");
    expect((await get('/api/v1/openapi.json')).headers.get('content-security-policy')).toBe("default-src 'none'; frame-ancestors 'none'");
  });

  it('serves the bundle itself at /api/v1/openapi.json, revalidated by its ETag', async () => {
    const get = await server();
    const response = await get('/api/v1/openapi.json');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.text()).toBe(readFileSync(BUNDLE_FILE, 'utf8'));
    const etag = response.headers.get('etag');
    expect(etag).toMatch(/^"[\w-]+"$/);
    const again = await get('/api/v1/openapi.json', { headers: { 'if-none-match': etag! } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
  });

  it('answers an unknown docs file with a 404 problem', async () => {
    const get = await server();
    const response = await get('/api/v1/docs/../../package.json');
    expect(response.status).toBe(404);
    const missing = await get('/api/v1/docs/index.js');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toBe('application/problem+json');
  });
});
