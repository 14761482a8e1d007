/**
 * Compression on the built server (`node dist/main.js`, embedded PGlite), read over a real socket
 * with node:http, which decompresses nothing: the bytes and headers here are what went over the
 * wire. The admin's files come from the build's brotli and gzip copies; the API's answers are
 * compressed as they are made (#41 item 9).
 */
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBuiltEmbedded } from '../support/server-process.js';

const ROOT = new URL('../..', import.meta.url).pathname;
const OWNER = { email: 'owner@example.com', password: 'correct horse battery staple 42!' };

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  /** The bytes as they came over the wire. */
  bytes: Buffer;
}

let origin: string;
let stop: (() => void) | undefined;
let token: string;

/** One request, its answer's bytes as sent. */
function send(path: string, headers: Record<string, string> = {}, method = 'GET', body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(`${origin}${path}`, { method, headers, agent: false }, (incoming) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('end', () => resolve({ status: incoming.statusCode ?? 0, headers: incoming.headers, bytes: Buffer.concat(chunks) }));
      incoming.on('error', reject);
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

function decoded(answer: Answer): string {
  const coding = answer.headers['content-encoding'];
  if (coding === 'br') return brotliDecompressSync(answer.bytes).toString('utf8');
  if (coding === 'gzip') return gunzipSync(answer.bytes).toString('utf8');
  expect(coding).toBeUndefined();
  return answer.bytes.toString('utf8');
}

async function api(path: string, init: { method?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<Response> {
  return fetch(`${origin}/api/v1${path}`, {
    method: init.method ?? 'GET',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...init.headers },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
}

beforeAll(async () => {
  const server = await startBuiltEmbedded(OWNER);
  origin = server.origin;
  stop = server.stop;
  const login = await fetch(`${origin}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(OWNER),
  });
  token = ((await login.json()) as { accessToken: string }).accessToken;
  for (let i = 0; i < 12; i += 1) {
    const created = await api('/posts', {
      method: 'POST',
      body: { title: `Compressed post ${i}`, body: `Body ${i}`, excerpt: 'An excerpt that repeats. '.repeat(4), status: 'published' },
    });
    expect(created.status).toBe(201);
  }
}, 120_000);

afterAll(() => stop?.());

describe('the admin app built with brotli and gzip copies', () => {
  const index = () => readFileSync(join(ROOT, 'dist/admin/index.html'), 'utf8');
  const script = () => /src="(\/admin\/assets\/index-[^"]+\.js)"/.exec(index())![1]!;

  it('sends its entry script in brotli to a client that accepts br and gzip, in gzip to one that accepts gzip only, as it is otherwise, each with Vary', async () => {
    const built = readFileSync(join(ROOT, 'dist', script()));
    const br = await send(script(), { 'accept-encoding': 'br, gzip' });
    const gzip = await send(script(), { 'accept-encoding': 'gzip' });
    const refused = await send(script(), { 'accept-encoding': 'br;q=0, gzip;q=0' });
    const plain = await send(script());
    expect([br.status, gzip.status, refused.status, plain.status]).toEqual([200, 200, 200, 200]);
    expect(br.headers['content-encoding']).toBe('br');
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(refused.headers['content-encoding']).toBeUndefined();
    expect(plain.headers['content-encoding']).toBeUndefined();
    for (const answer of [br, gzip, refused, plain]) {
      expect(answer.headers.vary).toBe('Accept-Encoding');
      expect(answer.headers['content-type']).toBe('text/javascript; charset=utf-8');
      expect(Number(answer.headers['content-length'])).toBe(answer.bytes.length);
      expect(decoded(answer)).toBe(built.toString('utf8'));
    }
    expect(br.bytes.length).toBeLessThan(built.length / 3);
    expect(gzip.bytes.length).toBeGreaterThan(br.bytes.length);
  });

  it('sends index.html, smaller than 1 KiB, as it is, with Vary', async () => {
    const page = await send('/admin/', { 'accept-encoding': 'br, gzip' });
    expect(page.status).toBe(200);
    expect(page.headers['content-encoding']).toBeUndefined();
    expect(page.headers.vary).toBe('Accept-Encoding');
    expect(page.bytes.toString('utf8')).toContain('<div id="root">');
  });
});

describe('Content API answers compressed on the fly', () => {
  it('sends a list over 1 KiB in br or gzip that decompresses to the JSON sent uncompressed, with its Content-Length', async () => {
    const plain = await send('/api/v1/content/posts');
    expect(plain.status).toBe(200);
    expect(plain.bytes.length).toBeGreaterThan(1024);
    expect(plain.headers.vary).toBe('Accept-Encoding');
    for (const [accept, coding] of [
      ['gzip, deflate, br', 'br'],
      ['gzip', 'gzip'],
      ['br;q=0, gzip', 'gzip'],
      ['br;q=0.5, gzip;q=0.8', 'gzip'],
      ['*', 'br'],
    ] as const) {
      const answer = await send('/api/v1/content/posts', { 'accept-encoding': accept });
      expect(answer.status, accept).toBe(200);
      expect(answer.headers['content-encoding'], accept).toBe(coding);
      expect(answer.headers.vary, accept).toBe('Accept-Encoding');
      expect(Number(answer.headers['content-length']), accept).toBe(answer.bytes.length);
      expect(answer.bytes.length, accept).toBeLessThan(plain.bytes.length / 2);
      expect(JSON.parse(decoded(answer)), accept).toEqual(JSON.parse(plain.bytes.toString('utf8')));
    }
  });

  it('names each coding in the ETag and answers 304 to If-None-Match with the tag of each, carrying that tag', async () => {
    const plain = await send('/api/v1/content/posts');
    const br = await send('/api/v1/content/posts', { 'accept-encoding': 'br' });
    const gzip = await send('/api/v1/content/posts', { 'accept-encoding': 'gzip' });
    const tag = plain.headers.etag!;
    expect(tag).toMatch(/^"[A-Za-z0-9_-]{22}"$/);
    expect(br.headers.etag).toBe(`${tag.slice(0, -1)}-br"`);
    expect(gzip.headers.etag).toBe(`${tag.slice(0, -1)}-gzip"`);
    for (const [accept, etag] of [
      [undefined, tag],
      ['br', br.headers.etag!],
      ['gzip', gzip.headers.etag!],
    ] as const) {
      const revalidated = await send('/api/v1/content/posts', {
        ...(accept === undefined ? {} : { 'accept-encoding': accept }),
        'if-none-match': etag,
      });
      expect(revalidated.status, etag).toBe(304);
      expect(revalidated.headers.etag, etag).toBe(etag);
      expect(revalidated.headers.vary, etag).toBe('Accept-Encoding');
      expect(revalidated.bytes.length, etag).toBe(0);
    }
  });

  it('answers a tag of a coding the request does not accept with the whole answer in the coding it does', async () => {
    const br = await send('/api/v1/content/posts', { 'accept-encoding': 'br' });
    const answer = await send('/api/v1/content/posts', { 'accept-encoding': 'gzip', 'if-none-match': br.headers.etag! });
    expect(answer.status).toBe(200);
    expect(answer.headers['content-encoding']).toBe('gzip');
    expect(answer.headers.etag).toBe(`${br.headers.etag!.slice(0, -4)}-gzip"`);
  });

  it('sends an answer under 1 KiB, a HEAD and an export zip as they are', async () => {
    const tags = await send('/api/v1/content/tags', { 'accept-encoding': 'br, gzip' });
    expect(tags.status).toBe(200);
    expect(tags.bytes.length).toBeLessThan(1024);
    expect(tags.headers['content-encoding']).toBeUndefined();
    expect(tags.headers.etag).toMatch(/^"[A-Za-z0-9_-]{22}"$/);
    expect(tags.headers.vary).toBe('Accept-Encoding');

    const plain = await send('/api/v1/content/posts');
    const head = await send('/api/v1/content/posts', { 'accept-encoding': 'br' }, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.headers['content-encoding']).toBeUndefined();
    expect(head.headers['content-length']).toBe(String(plain.bytes.length));
    expect(head.headers.etag).toBe(plain.headers.etag);

    const exported = await send('/api/v1/export', { authorization: `Bearer ${token}`, 'accept-encoding': 'br, gzip' });
    expect(exported.status).toBe(200);
    expect(exported.headers['content-type']).toBe('application/zip');
    expect(exported.headers['content-encoding']).toBeUndefined();
    expect(exported.headers['transfer-encoding']).toBe('chunked');
    expect(exported.bytes.subarray(0, 4).toString('latin1')).toBe('PK\u0003\u0004');
  });
});

describe('the admin API with compressed answers', () => {
  it("takes a post's compressed ETag back in If-Match, answers 304 to it in If-None-Match, and compresses a 412's problem+json", async () => {
    const created = await api('/posts', { method: 'POST', body: { title: 'Long', body: 'A long body. '.repeat(200) } });
    const { id } = (await created.json()) as { id: string };
    const auth = { authorization: `Bearer ${token}` };
    const read = await send(`/api/v1/posts/${id}`, { ...auth, 'accept-encoding': 'br' });
    expect(read.headers['content-encoding']).toBe('br');
    expect(read.headers.etag).toBe('"1-br"');
    expect(read.headers.vary).toBe('Origin, Accept-Encoding');

    const revalidated = await send(`/api/v1/posts/${id}`, { ...auth, 'accept-encoding': 'br', 'if-none-match': '"1-br"' });
    expect(revalidated.status).toBe(304);
    expect(revalidated.headers.etag).toBe('"1-br"');

    const changed = await send(
      `/api/v1/posts/${id}`,
      { ...auth, 'content-type': 'application/json', 'if-match': '"1-br"', 'accept-encoding': 'gzip' },
      'PATCH',
      JSON.stringify({ title: 'Longer' }),
    );
    expect(changed.status).toBe(200);
    expect(changed.headers['content-encoding']).toBe('gzip');
    expect(changed.headers.etag).toBe('"2-gzip"');
    expect(JSON.parse(decoded(changed))).toMatchObject({ title: 'Longer', version: 2 });

    const stale = await send(
      `/api/v1/posts/${id}`,
      { ...auth, 'content-type': 'application/json', 'if-match': '"1-gzip"', 'accept-encoding': 'br' },
      'PATCH',
      JSON.stringify({ title: 'Stale' }),
    );
    expect(stale.status).toBe(412);
    expect(stale.headers['content-type']).toBe('application/problem+json');
    expect(stale.headers['content-encoding']).toBe('br');
    expect(stale.headers.etag).toBe('"2-br"');
    expect(JSON.parse(decoded(stale))).toMatchObject({ status: 412, current: { version: 2 } });
  });
});
