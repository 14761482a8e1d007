/**
 * The admin app's build served at /admin/ (src/adapters/http/admin.ts), over a small build of its
 * own shape: index.html, hashed assets under assets/, a file beside index.html.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminCspOf, NONCE_PLACEHOLDER, pageCspOf } from '../../src/adapters/http/admin.js';
import { createMemoryStore } from '../../src/adapters/memory/store.js';
import { testServer } from '../support/http.js';

const INDEX = `<!doctype html><title>admin</title><meta property="csp-nonce" nonce="${NONCE_PLACEHOLDER}"><script type="module" src="/admin/assets/index-Ab12Cd34.js"></script>`;
/** index.html as answered with `nonce` in its meta. */
const indexWith = (nonce: string) => INDEX.replace(NONCE_PLACEHOLDER, nonce);
/** The style nonce of an answer's CSP. */
const nonceOf = (response: Response) => /'nonce-([A-Za-z0-9+/]{22}==)'/.exec(response.headers.get('content-security-policy') ?? '')?.[1];
const SCRIPT = 'console.log("admin");';
/** Where the media files are: below PUBLIC_API_URL, on another origin than the page's (only the origin goes into img-src). */
const API_URL = 'https://cms.example.org:8443/blog';
const MEDIA_ORIGIN = 'https://cms.example.org:8443';

let dir: string;
let app: Awaited<ReturnType<typeof testServer>>['app'];
const get = (path: string, headers: Record<string, string> = {}, method = 'GET') =>
  app.fetch(new Request(`http://localhost${path}`, { method, headers }));

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'margin-admin-'));
  mkdirSync(join(dir, 'assets'));
  writeFileSync(join(dir, 'index.html'), INDEX);
  writeFileSync(join(dir, 'assets', 'index-Ab12Cd34.js'), SCRIPT);
  writeFileSync(join(dir, 'assets', 'index-Ef56Gh78.css'), 'body{margin:0}');
  writeFileSync(join(dir, 'robots.txt'), 'User-agent: *\nDisallow: /\n');
  ({ app } = await testServer({ store: createMemoryStore(), adminDir: dir, content: { apiUrl: API_URL } }));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('GET /admin/', () => {
  it('200: index.html, never stored, under the admin CSP with a style nonce that its meta carries', async () => {
    const response = await get('/admin/');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('etag')).toBeNull();
    const nonce = nonceOf(response)!;
    expect(response.headers.get('content-security-policy')).toBe(pageCspOf(nonce, MEDIA_ORIGIN));
    expect(pageCspOf(nonce, MEDIA_ORIGIN)).toBe(
      `default-src 'self'; connect-src 'self'; img-src 'self' data: ${MEDIA_ORIGIN}; style-src 'self' 'nonce-${nonce}'; script-src 'self'; frame-ancestors 'none'; base-uri 'self'; form-action 'self'`,
    );
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await response.text()).toBe(indexWith(nonce));
  });

  it('200: images may come from this server, data: URLs and the origin of PUBLIC_API_URL (the media files), and no other; the rest stays self', async () => {
    const csp = (await get('/admin/')).headers.get('content-security-policy')!;
    const directives = Object.fromEntries(csp.split('; ').map((d) => [d.split(' ')[0], d.split(' ').slice(1).join(' ')]));
    expect(directives['img-src']).toBe(`'self' data: ${MEDIA_ORIGIN}`);
    expect(csp).not.toContain('blob:');
    expect(csp.match(/cms\.example\.org/g)).toHaveLength(1);
    expect([directives['default-src'], directives['connect-src'], directives['script-src']]).toEqual(["'self'", "'self'", "'self'"]);
    const asset = await get('/admin/assets/index-Ab12Cd34.js');
    expect(asset.headers.get('content-security-policy')).toContain(`img-src 'self' data: ${MEDIA_ORIGIN};`);
  });

  it('200 with a fresh nonce on every load, also at /admin/index.html, even with If-None-Match', async () => {
    const nonces = new Set<string | undefined>();
    for (const [path, headers] of [
      ['/admin/', {}],
      ['/admin/', { 'if-none-match': '"x"' }],
      ['/admin/index.html', {}],
    ] as const) {
      const response = await get(path, headers);
      expect(response.status).toBe(200);
      const nonce = nonceOf(response);
      expect(await response.text()).toBe(indexWith(nonce!));
      nonces.add(nonce);
    }
    expect(nonces.size).toBe(3);
  });

  it('308 from /admin to /admin/', async () => {
    const response = await get('/admin');
    expect(response.status).toBe(308);
    expect(response.headers.get('location')).toBe('/admin/');
  });
});

describe('a route of the app under /admin/', () => {
  it.each(['/admin/posts', '/admin/posts?status=draft&q=hello', '/admin/posts/01JDQ7W3E5R7T9Y1V3N5Q7P9AS/edit', '/admin/sign-in'])(
    '200 %s: index.html (the app routes it), no-store, under the admin CSP with its nonce',
    async (path) => {
      const response = await get(path);
      expect(response.status).toBe(200);
      expect(response.headers.get('cache-control')).toBe('no-store');
      const nonce = nonceOf(response)!;
      expect(response.headers.get('content-security-policy')).toBe(pageCspOf(nonce, MEDIA_ORIGIN));
      expect(await response.text()).toBe(indexWith(nonce));
    },
  );
});

describe('a file of the build', () => {
  it('200: a hashed asset is cached for a year, immutable, with its type and length', async () => {
    const response = await get('/admin/assets/index-Ab12Cd34.js');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(response.headers.get('content-length')).toBe(String(SCRIPT.length));
    expect(response.headers.get('content-security-policy')).toBe(adminCspOf(MEDIA_ORIGIN));
    expect(await response.text()).toBe(SCRIPT);
    expect((await get('/admin/assets/index-Ef56Gh78.css')).headers.get('content-type')).toBe('text/css; charset=utf-8');
  });

  it('200 to HEAD: the headers of the GET, no body', async () => {
    const response = await get('/admin/assets/index-Ab12Cd34.js', {}, 'HEAD');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-length')).toBe(String(SCRIPT.length));
    expect(await response.text()).toBe('');
  });

  it('200: a file that is not a hashed asset is revalidated (no-cache)', async () => {
    const response = await get('/admin/robots.txt');
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-cache');
  });

  it.each([
    '/admin/assets/index-Zz99Zz99.js',
    '/admin/assets/chunk',
    '/admin/favicon.ico',
    '/admin/%2e%2e/package.json',
    '/admin/..%2fpackage.json',
  ])('404 %s: a missing file is a problem, never index.html nor a file outside the build', async (path) => {
    const response = await get(path);
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toBe('application/problem+json');
    const problem = (await response.json()) as { type: string; status: number; detail: string };
    expect(problem.type).toBe('https://margincms.dev/problems/not-found');
    expect(problem.status).toBe(404);
  });
});

it('404 at /admin/ when the server has no admin build', async () => {
  const { app: bare } = await testServer({ store: createMemoryStore() });
  const response = await bare.fetch(new Request('http://localhost/admin/posts'));
  expect(response.status).toBe(404);
  expect(response.headers.get('content-type')).toBe('application/problem+json');
});
