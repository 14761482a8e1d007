/**
 * The app served by @hono/node-server on a real socket, as `main.ts` serves it: what in-process
 * `app.fetch` tests cannot see (a declared Content-Length, a chunked body, the headers the Node
 * adapter writes).
 */
import { Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import type { ServerType } from '@hono/node-server';
import { unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestEvent } from '../../src/adapters/http/app.js';
import { serveApp } from '../../src/adapters/http/node-server.js';
import { createMemoryStore } from '../../src/adapters/memory/store.js';
import { createLogger } from '../../src/log.js';
import { ADMIN, testServer } from '../support/http.js';

const LIMIT = 2048;
let server: ServerType;
let port: number;

beforeAll(async () => {
  const { app } = await testServer({ store: createMemoryStore(), bodyLimitBytes: LIMIT });
  server = serveApp(app.fetch, { hostname: '127.0.0.1', port: 0 });
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
    const req = httpRequest(
      { host: '127.0.0.1', port, method, path: `/api/v1${path}`, headers: { connection: 'close', ...headers } },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    for (const chunk of chunks) req.write(chunk);
    req.end();
  });
}

const loginBody = (password: string) => JSON.stringify({ email: ADMIN.email, password });

describe('the app over a socket', () => {
  it('streams the site export chunked, without a Content-Length, as a zip that unzips to its manifest', async () => {
    const login = await send('POST', '/auth/login', [loginBody(ADMIN.password)], { 'content-type': 'application/json' });
    const { accessToken } = JSON.parse(login.body) as { accessToken: string };
    const { headers, bytes } = await new Promise<{ headers: IncomingHttpHeaders; bytes: Buffer }>((resolve, reject) => {
      const req = httpRequest(
        { host: '127.0.0.1', port, method: 'GET', path: '/api/v1/export', headers: { authorization: `Bearer ${accessToken}` } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => resolve({ headers: res.headers, bytes: Buffer.concat(chunks) }));
        },
      );
      req.on('error', reject);
      req.end();
    });
    expect(headers['transfer-encoding']).toBe('chunked');
    expect(headers['content-length']).toBeUndefined();
    expect(headers['content-type']).toBe('application/zip');
    const entries = unzipSync(new Uint8Array(bytes));
    expect(JSON.parse(Buffer.from(entries['manifest.json']!).toString('utf8'))).toMatchObject({ format: 'margincms-export' });
  });

  it('answers a declared Content-Length over the limit with 413 problem+json', async () => {
    const body = loginBody('x'.repeat(LIMIT));
    const answer = await send('POST', '/auth/login', [body], {
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(body)),
    });
    expect(answer.status).toBe(413);
    expect(answer.headers['content-type']).toBe('application/problem+json');
    expect(JSON.parse(answer.body)).toMatchObject({ status: 413, type: 'https://margincms.dev/problems/payload-too-large' });
  });

  it('answers a chunked body that grows over the limit with 413 problem+json', async () => {
    const body = loginBody('x'.repeat(LIMIT));
    const answer = await send('POST', '/auth/login', [body.slice(0, 100), body.slice(100)], {
      'content-type': 'application/json',
      'transfer-encoding': 'chunked',
    });
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body)).toMatchObject({ status: 413 });
  });

  it('reads a body within the limit, declared or chunked, and answers from the handler', async () => {
    const body = loginBody('wrong password');
    const declared = await send('POST', '/auth/login', [body], {
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(body)),
    });
    const chunked = await send('POST', '/auth/login', [body.slice(0, 10), body.slice(10)], {
      'content-type': 'application/json',
      'transfer-encoding': 'chunked',
    });
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
      vary: 'Origin, Accept-Encoding',
    });
  });

  it('answers 413 with Connection: close, closes cleanly, and a keep-alive client goes on with a new connection', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const sockets = new Set<unknown>();
    const viaAgent = (method: string, path: string, body?: string) =>
      new Promise<Answer & { socketErrors: string[] }>((resolve, reject) => {
        const socketErrors: string[] = [];
        const req = httpRequest(
          { host: '127.0.0.1', port, method, path: `/api/v1${path}`, agent, headers: body ? { 'content-type': 'application/json' } : {} },
          (res) => {
            let text = '';
            res.setEncoding('utf8');
            res.on('data', (chunk: string) => (text += chunk));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text, socketErrors }));
          },
        );
        req.on('socket', (socket) => {
          sockets.add(socket);
          socket.on('error', (error: NodeJS.ErrnoException) => socketErrors.push(error.code ?? error.message));
        });
        req.on('error', reject);
        req.end(body);
      });
    try {
      const tooLarge = await viaAgent('POST', '/auth/login', loginBody('x'.repeat(LIMIT)));
      expect(tooLarge.status).toBe(413);
      expect(tooLarge.headers.connection).toBe('close');
      const next = await viaAgent('GET', '/healthz');
      expect(next.status).toBe(200);
      expect([...tooLarge.socketErrors, ...next.socketErrors]).toEqual([]);
      expect(sockets.size).toBe(2);
    } finally {
      agent.destroy();
    }
  });

  it('sends Vary: Origin once to a browser from an origin, allowed or not', async () => {
    const answer = await send('GET', '/healthz', [], { origin: 'https://elsewhere.example.com' });
    expect(answer.status).toBe(200);
    expect(answer.headers.vary).toBe('Origin, Accept-Encoding');
    expect(answer.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('HEAD on the Content API over a socket', () => {
  it('answers HEAD 200 with the Content-Length, ETag, Last-Modified and Cache-Control of the GET, and 304 without a Content-Length', async () => {
    const login = await send('POST', '/auth/login', [loginBody(ADMIN.password)], { 'content-type': 'application/json' });
    const { accessToken } = JSON.parse(login.body) as { accessToken: string };
    const created = await send(
      'POST',
      '/posts',
      [JSON.stringify({ title: 'Héad to toe', body: 'Bytes, not characters: é, ü, ✓.', status: 'published', tags: ['head'] })],
      {
        'content-type': 'application/json',
        authorization: `Bearer ${accessToken}`,
      },
    );
    expect(created.status, created.body).toBe(201);
    const post = JSON.parse(created.body) as { id: string; slug: string };
    const paths = [
      `/content/posts/slug/${post.slug}`,
      `/content/posts/${post.id}`,
      `/content/posts/${post.id}?include=html`,
      '/content/posts?limit=5',
      '/content/tags',
      '/content/feed.atom',
      '/content/feed.rss?tag=head',
      '/content/sitemap.xml',
    ];
    for (const path of paths) {
      const get = await send('GET', path, []);
      expect(get.status, path).toBe(200);
      const length = Buffer.byteLength(get.body);
      expect(get.headers['content-length'], path).toBe(String(length));
      const head = await send('HEAD', path, []);
      expect(head.status, path).toBe(200);
      expect(head.body, path).toBe('');
      for (const name of ['content-length', 'content-type', 'etag', 'last-modified', 'cache-control']) {
        expect(head.headers[name], `${path} ${name}`).toBe(get.headers[name]);
      }
      for (const method of ['GET', 'HEAD']) {
        const notModified = await send(method, path, [], { 'if-none-match': get.headers.etag! });
        expect(notModified.status, `${method} ${path}`).toBe(304);
        expect(notModified.headers['content-length'], `${method} ${path}`).toBeUndefined();
        expect(notModified.headers.etag, `${method} ${path}`).toBe(get.headers.etag);
      }
    }
  });

  it('answers HEAD 404 with the Content-Length of the GET problem', async () => {
    const path = '/content/posts/slug/no-such-post';
    const get = await send('GET', path, []);
    expect(get.status).toBe(404);
    const head = await send('HEAD', path, []);
    expect(head.status).toBe(404);
    expect(head.body).toBe('');
    expect(head.headers['content-length']).toBe(String(Buffer.byteLength(get.body)));
  });
});

/** Writes `raw` on a fresh connection and reads until the server closes it. */
function sendRaw(raw: Buffer | string): Promise<{ text: string; closed: 'end' | 'reset' }> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
    socket.on('error', () => resolve({ text, closed: 'reset' }));
    socket.on('end', () => resolve({ text, closed: 'end' }));
    socket.write(raw);
  });
}

function parseRaw(text: string): { status: number; headers: Record<string, string>; body: string } {
  const [head = '', body = ''] = text.split('\r\n\r\n');
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(
    lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
  );
  return { status: Number(statusLine.split(' ')[1]), headers, body };
}

describe('requests the HTTP parser refuses', () => {
  const cases: [string, Buffer | string, number][] = [
    [
      'raw non-ASCII bytes in the target',
      Buffer.concat([Buffer.from('GET /api/v1/posts/'), Buffer.from([0xe9, 0xff]), Buffer.from(' HTTP/1.1\r\nHost: x\r\n\r\n')]),
      400,
    ],
    ['an unknown method token', 'BREW /api/v1/healthz HTTP/1.1\r\nHost: x\r\n\r\n', 400],
    ['a header line without a colon', 'GET /api/v1/healthz HTTP/1.1\r\nHost: x\r\nnot a header\r\n\r\n', 400],
    ['headers larger than the server reads', `GET /api/v1/healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431],
  ];
  for (const [what, raw, status] of cases) {
    it(`answers ${what} with ${status} problem+json and closes the connection cleanly`, async () => {
      const { text, closed } = await sendRaw(raw);
      expect(closed).toBe('end');
      const answer = parseRaw(text);
      expect(answer.status).toBe(status);
      expect(answer.headers).toMatchObject({
        'content-type': 'application/problem+json',
        connection: 'close',
        'x-content-type-options': 'nosniff',
      });
      expect(Number(answer.headers['content-length'])).toBe(Buffer.byteLength(answer.body));
      expect(JSON.parse(answer.body)).toMatchObject({
        type: 'https://margincms.dev/problems/malformed-request',
        status,
        title: 'Malformed request',
      });
    });
  }

  it('goes on serving other connections after refusing one', async () => {
    await sendRaw('BREW / HTTP/1.1\r\n\r\n');
    const answer = await send('GET', '/healthz', []);
    expect(answer.status).toBe(200);
  });
});

describe('slow clients', () => {
  // Small limits, so that the rules show within seconds.
  const TIMEOUTS = { headersMs: 1000, requestMs: 4000, bodyWindowMs: 500, bodyMinBytesPerSecond: 400 };
  let slowServer: ServerType;
  let slowPort: number;
  const logLines: string[] = [];
  const events: RequestEvent[] = [];
  beforeAll(async () => {
    const { app } = await testServer({
      store: createMemoryStore(),
      logger: createLogger('info', (line) => logLines.push(line)),
      observers: [(event) => events.push(event)],
    });
    slowServer = serveApp(app.fetch, { hostname: '127.0.0.1', port: 0, timeouts: TIMEOUTS });
    await new Promise((resolve) => slowServer.once('listening', resolve));
    slowPort = (slowServer.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise((resolve) => slowServer.close(resolve));
  });

  /**
   * Writes `head`, then `piece` every `everyMs` (`times` at most, forever when absent) until the
   * server closes the connection; resolves with what it answered and how long it held it.
   */
  function drip(head: string, piece: string, everyMs: number, times = Infinity): Promise<{ text: string; heldMs: number }> {
    return new Promise((resolve) => {
      const started = Date.now();
      const socket = connect(slowPort, '127.0.0.1');
      let text = '';
      let sent = 0;
      const timer = setInterval(() => {
        if (sent++ < times && socket.writable) socket.write(piece);
      }, everyMs);
      socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
      socket.on('error', () => undefined);
      socket.on('close', () => {
        clearInterval(timer);
        resolve({ text, heldMs: Date.now() - started });
      });
      socket.write(head);
    });
  }

  const post = (length: number) =>
    `POST /api/v1/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\nConnection: close\r\n\r\n`;

  function expect408(text: string): void {
    const answer = parseRaw(text);
    expect(answer.status).toBe(408);
    expect(answer.headers['content-type']).toBe('application/problem+json');
    expect(JSON.parse(answer.body)).toMatchObject({ status: 408, detail: 'The request was not received in time.' });
  }

  it('answers a body that trickles one byte every 50 ms, forever, with 408 and closes it within two windows', async () => {
    const told = events.length;
    const { text, heldMs } = await drip(post(1_000_000), 'x', 50);
    expect408(text);
    expect(heldMs).toBeGreaterThanOrEqual(TIMEOUTS.bodyWindowMs);
    expect(heldMs).toBeLessThan(2 * TIMEOUTS.bodyWindowMs + 500);
    // The observers hear of the cut request after its client has the 408: wait, so that the
    // next test counts only its own.
    await expect.poll(() => events.length).toBe(told + 1);
  });

  it('logs the request cut for its slow body as a 408 of its operation, not as an error', async () => {
    events.length = 0;
    logLines.length = 0;
    expect408((await drip(post(1_000_000), 'x', 50)).text);
    await expect.poll(() => events.length).toBe(1);
    expect(events[0]).toMatchObject({ operationId: 'login', status: 408, problem: 'malformed-request' });
    expect(logLines.filter((line) => (JSON.parse(line) as { level: string }).level === 'error')).toEqual([]);
  });

  it('answers a body that stops arriving with 408 and closes it within two windows', async () => {
    const { text, heldMs } = await drip(post(1000), '{"email":', 100, 1);
    expect408(text);
    expect(heldMs).toBeLessThan(2 * TIMEOUTS.bodyWindowMs + 500);
  });

  it('answers headers that trickle one byte every 50 ms with 408 and closes them within the headers timeout and a check', async () => {
    const { text, heldMs } = await drip('GET /api/v1/healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ', 'a', 50);
    expect408(text);
    expect(heldMs).toBeGreaterThanOrEqual(TIMEOUTS.headersMs);
    expect(heldMs).toBeLessThan(TIMEOUTS.headersMs + TIMEOUTS.headersMs / 4 + 500);
  });

  it('answers a body steady above the rate but longer than the request timeout with 408', async () => {
    const { text, heldMs } = await drip(post(1_000_000), 'x'.repeat(100), 100);
    expect408(text);
    expect(heldMs).toBeGreaterThanOrEqual(TIMEOUTS.requestMs);
    expect(heldMs).toBeLessThan(TIMEOUTS.requestMs + TIMEOUTS.requestMs / 4 + 500);
  });

  it('reads a slow but steady body over several windows to the end and answers from the handler (200)', async () => {
    // 2.5 s at 1000 bytes a second: five windows, each well above the minimum rate.
    const body = JSON.stringify({ email: ADMIN.email, password: ADMIN.password }).padEnd(2500, ' ');
    const pieces = body.match(/[\s\S]{1,100}/g) ?? [];
    let index = 0;
    const { text, heldMs } = await new Promise<{ text: string; heldMs: number }>((resolve) => {
      const started = Date.now();
      const socket = connect(slowPort, '127.0.0.1');
      let received = '';
      const timer = setInterval(() => {
        if (index < pieces.length) socket.write(pieces[index++]!);
      }, 100);
      socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
      socket.on('error', () => undefined);
      socket.on('close', () => {
        clearInterval(timer);
        resolve({ text: received, heldMs: Date.now() - started });
      });
      socket.write(post(Buffer.byteLength(body)));
    });
    expect(index).toBe(pieces.length);
    expect(heldMs).toBeGreaterThan(5 * TIMEOUTS.bodyWindowMs);
    const answer = parseRaw(text);
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({ accessToken: expect.any(String) });
  });
});
