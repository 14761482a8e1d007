/**
 * The app served by @hono/node-server on a real socket, as `main.ts` serves it: what in-process
 * `app.fetch` tests cannot see (a declared Content-Length, a chunked body, the headers the Node
 * adapter writes).
 */
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryStore } from '../../src/adapters/memory/store.js';
import { ADMIN, testServer } from '../support/http.js';

const LIMIT = 2048;
let server: ServerType;
let port: number;

beforeAll(async () => {
  const { app } = await testServer({ store: createMemoryStore(), bodyLimitBytes: LIMIT });
  server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 });
  await new Promise((resolve) => server.once('listening', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** One request on its own connection; `chunks` are written one by one (chunked when no length is declared). */
function send(method: string, path: string, chunks: string[], headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path: `/api/v1${path}`, headers: { connection: 'close', ...headers } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    for (const chunk of chunks) req.write(chunk);
    req.end();
  });
}

const loginBody = (password: string) => JSON.stringify({ email: ADMIN.email, password });

describe('the app over a socket', () => {
  it('answers a declared Content-Length over the limit with 413 problem+json', async () => {
    const body = loginBody('x'.repeat(LIMIT));
    const answer = await send('POST', '/auth/login', [body], { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) });
    expect(answer.status).toBe(413);
    expect(answer.headers['content-type']).toBe('application/problem+json');
    expect(JSON.parse(answer.body)).toMatchObject({ status: 413, type: 'https://margincms.dev/problems/payload-too-large' });
  });

  it('answers a chunked body that grows over the limit with 413 problem+json', async () => {
    const body = loginBody('x'.repeat(LIMIT));
    const answer = await send('POST', '/auth/login', [body.slice(0, 100), body.slice(100)], { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body)).toMatchObject({ status: 413 });
  });

  it('reads a body within the limit, declared or chunked, and answers from the handler', async () => {
    const body = loginBody('wrong password');
    const declared = await send('POST', '/auth/login', [body], { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) });
    const chunked = await send('POST', '/auth/login', [body.slice(0, 10), body.slice(10)], { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
    for (const answer of [declared, chunked]) {
      expect(answer.status).toBe(401);
      expect(JSON.parse(answer.body)).toMatchObject({ type: 'https://margincms.dev/problems/invalid-credentials' });
    }
    const ok = await send('POST', '/auth/login', [loginBody(ADMIN.password)], { 'content-type': 'application/json' });
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.body).accessToken).toEqual(expect.any(String));
  });

  it('writes every base header once, with the length of the body', async () => {
    const answer = await send('GET', '/healthz', []);
    expect(answer.status).toBe(200);
    expect(answer.headers).toMatchObject({
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(answer.body)),
      'cache-control': 'private, no-cache',
      'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'DENY',
      vary: 'Origin',
    });
  });

  it('sends Vary: Origin once to a browser from an origin, allowed or not', async () => {
    const answer = await send('GET', '/healthz', [], { origin: 'https://elsewhere.example.com' });
    expect(answer.status).toBe(200);
    expect(answer.headers.vary).toBe('Origin');
    expect(answer.headers['access-control-allow-origin']).toBeUndefined();
  });
});
