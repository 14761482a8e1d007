import { brotliDecompressSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { compressAnswers, negotiateCoding } from './compression.js';
import { respond } from './response-headers.js';

describe('negotiateCoding', () => {
  it.each([
    [undefined, 'identity'],
    ['', 'identity'],
    ['gzip, deflate, br, zstd', 'br'],
    ['gzip', 'gzip'],
    ['x-gzip', 'gzip'],
    ['deflate', 'identity'],
    ['br;q=0, gzip', 'gzip'],
    ['br;q=0.5, gzip;q=0.8', 'gzip'],
    ['gzip;q=0.5', 'gzip'],
    ['*', 'br'],
    ['*;q=0', 'identity'],
    ['identity', 'identity'],
    ['br;q=0, gzip;q=0', 'identity'],
    ['BR; Q=1', 'br'],
    ['br;q=2, gzip', 'gzip'],
  ])('picks %j as %s', (header, coding) => {
    expect(negotiateCoding(header)).toBe(coding);
  });
});

describe('compressAnswers', () => {
  const json = JSON.stringify({ items: Array.from({ length: 40 }, (_, i) => ({ id: i, title: `Post ${i}` })) });
  const answer =
    (body: string, extra: Record<string, string> = {}) =>
    () =>
      respond(body, 200, { 'content-type': 'application/json', etag: '"abc"', vary: 'Accept-Encoding', ...extra });
  const get = (headers: Record<string, string>, method = 'GET') => new Request('http://server/x', { method, headers });

  it('compresses a JSON answer of 1 KiB or more, with its length and a coded ETag', async () => {
    const response = await compressAnswers(answer(json))(get({ 'accept-encoding': 'br' }));
    const bytes = Buffer.from(await response.arrayBuffer());
    expect(response.headers.get('content-encoding')).toBe('br');
    expect(response.headers.get('content-length')).toBe(String(bytes.length));
    expect(response.headers.get('etag')).toBe('"abc-br"');
    expect(response.headers.get('vary')).toBe('Accept-Encoding');
    expect(brotliDecompressSync(bytes).toString('utf8')).toBe(json);
  });

  it('leaves alone a small answer, a no-transform one, an image and a HEAD', async () => {
    const cases = [
      compressAnswers(answer('{"small":true}'))(get({ 'accept-encoding': 'br' })),
      compressAnswers(answer(json, { 'cache-control': 'public, no-transform' }))(get({ 'accept-encoding': 'br' })),
      compressAnswers(answer(json, { 'content-type': 'image/png' }))(get({ 'accept-encoding': 'br' })),
      compressAnswers(answer(json))(get({ 'accept-encoding': 'br' }, 'HEAD')),
    ];
    for (const response of await Promise.all(cases)) {
      expect(response.headers.get('content-encoding')).toBeNull();
      expect(response.headers.get('etag')).toBe('"abc"');
    }
  });

  it("lets If-None-Match's coded tag match the app's tag, and the 304 name it", async () => {
    let seen: string | null = null;
    const app = compressAnswers((request: Request) => {
      seen = request.headers.get('if-none-match');
      return respond(null, 304, { etag: '"abc"' });
    });
    const response = await app(get({ 'accept-encoding': 'gzip, br', 'if-none-match': '"abc-br"' }));
    expect(seen).toBe('"abc-br", "abc"');
    expect(response.status).toBe(304);
    expect(response.headers.get('etag')).toBe('"abc-br"');
  });
});
