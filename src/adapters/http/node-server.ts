import { STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { serve, type Http2Bindings, type HttpBindings as Http1Bindings, type ServerType } from '@hono/node-server';
import { HttpProblem } from './problem.js';
import { baseHeaders } from './response-headers.js';

/**
 * How long a client may take to send its request; past any of these it is answered 408
 * problem+json (when nothing was answered yet) and the connection is closed.
 */
export interface RequestTimeouts {
  /** The whole header block must arrive within this (Node's `headersTimeout`). */
  headersMs: number;
  /** The whole request, headers and body, must arrive within this (Node's `requestTimeout`). */
  requestMs: number;
  /**
   * While the app reads a body, every window of `bodyWindowMs` must bring at least
   * `bodyMinBytesPerSecond` × the window: a body that stalls or trickles is cut after one to two
   * windows, however long its declared length, while a slow but steady upload goes on (up to
   * `requestMs`). A window in which the app left received bytes unread is not held against the
   * client.
   */
  bodyWindowMs: number;
  bodyMinBytesPerSecond: number;
}

/** `loadConfig`'s defaults (HTTP_*_SECONDS, HTTP_BODY_MIN_BYTES_PER_SECOND); tests check they agree. */
export const DEFAULT_REQUEST_TIMEOUTS: RequestTimeouts = {
  headersMs: 20_000,
  requestMs: 900_000,
  bodyWindowMs: 20_000,
  bodyMinBytesPerSecond: 1024,
};

/** What the Node adapter passes beside each request: the connection it came on. */
export type HttpBindings = Http1Bindings | Http2Bindings;

/**
 * The app's `fetch` as the Node adapter calls it: the request, and beside it the connection it
 * came on (`incoming`, `outgoing`), which is where the client's address is read. A wrapper of the
 * app's `fetch` passes both on.
 */
export type ServeFetch = (request: Request, bindings: HttpBindings) => Response | Promise<Response>;

export interface ServeOptions {
  hostname: string;
  port: number;
  /** Defaults to `DEFAULT_REQUEST_TIMEOUTS`. */
  timeouts?: RequestTimeouts;
}

/**
 * Serves `fetch` (the Hono app) with @hono/node-server, answering requests that Node's HTTP parser
 * refuses before any route sees them with a problem+json body too (see `answerClientError`), and
 * cutting clients too slow to send their request (see `RequestTimeouts`).
 */
export function serveApp(fetch: ServeFetch, options: ServeOptions, onListening?: () => void): ServerType {
  const timeouts = options.timeouts ?? DEFAULT_REQUEST_TIMEOUTS;
  const { headersMs, requestMs } = timeouts;
  const server = serve(
    {
      fetch,
      hostname: options.hostname,
      port: options.port,
      serverOptions: {
        headersTimeout: headersMs,
        requestTimeout: requestMs,
        // How often Node checks those two (its default, 30 s, would let a 20 s limit run to 50 s).
        connectionsCheckingInterval: Math.max(50, Math.min(5000, Math.round(Math.min(headersMs, requestMs) / 4))),
      },
    },
    onListening,
  );
  server.on('clientError', answerClientError);
  watchBodies(server, timeouts);
  return server;
}

interface BodyWatch {
  request: IncomingMessage;
  socket: Socket;
  /** When the current window started, and the socket's bytes read then. */
  since: number;
  bytesRead: number;
}

/**
 * The body rate rule of `RequestTimeouts`: each request with a body is watched until it has been
 * received whole, by one timer per server that ticks a few times per window.
 */
function watchBodies(server: ServerType, timeouts: RequestTimeouts): void {
  const { bodyWindowMs: windowMs, bodyMinBytesPerSecond } = timeouts;
  const watches = new Set<BodyWatch>();
  const tickMs = Math.max(20, Math.min(1000, Math.round(windowMs / 5)));
  let timer: NodeJS.Timeout | null = null;
  const tick = (): void => {
    const now = Date.now();
    for (const watch of watches) {
      const { request, socket } = watch;
      if (request.complete || socket.destroyed) {
        watches.delete(watch);
        continue;
      }
      const elapsed = now - watch.since;
      if (elapsed < windowMs) continue;
      const received = socket.bytesRead - watch.bytesRead;
      if (received * 1000 >= bodyMinBytesPerSecond * elapsed || request.readableLength > 0) {
        watch.since = now;
        watch.bytesRead = socket.bytesRead;
        continue;
      }
      watches.delete(watch);
      answerClientError(Object.assign(new Error('request body too slow'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' }), socket);
    }
    if (watches.size === 0 && timer !== null) {
      clearInterval(timer);
      timer = null;
    }
  };
  server.on('request', (request: IncomingMessage) => {
    const { headers } = request;
    const hasBody = headers['transfer-encoding'] !== undefined || (headers['content-length'] ?? '0') !== '0';
    if (!hasBody || request.complete) return;
    watches.add({ request, socket: request.socket, since: Date.now(), bytesRead: request.socket.bytesRead });
    if (timer === null) {
      timer = setInterval(tick, tickMs);
      timer.unref();
    }
  });
  server.on('close', () => {
    if (timer !== null) clearInterval(timer);
    timer = null;
    watches.clear();
  });
}

/** What Node's parser error codes mean to a client. */
function problemOf(error: NodeJS.ErrnoException): HttpProblem {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return new HttpProblem(431, 'malformed-request', 'The request headers are too large.');
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new HttpProblem(408, 'malformed-request', 'The request was not received in time.');
    default:
      // The parser's own words (e.g. "Invalid method encountered"), never the bytes received.
      return new HttpProblem(400, 'malformed-request', `The request is not valid HTTP/1.1: ${parserReason(error)}.`);
  }
}

function parserReason(error: NodeJS.ErrnoException): string {
  const reason = (error as { reason?: unknown }).reason;
  const text = typeof reason === 'string' && reason !== '' ? reason : (error.code ?? 'unreadable');
  return text.replace(/[^\x20-\x7e]/g, '?').slice(0, 120);
}

/**
 * Node's `clientError`: a request its HTTP parser refuses (raw non-ASCII bytes in the target, an
 * unknown method token, headers too large, a request not received in time). Node's default
 * answers a bare `400` without a body; this answers the same status with a problem+json body and
 * the base headers, then closes the connection once the answer is written (the parser cannot
 * find where a next request would start, and a slow client must not keep the socket by going on
 * sending). A socket that is gone or has an answer under way is destroyed, as Node does.
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  const answering = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true;
  if (error.code === 'ECONNRESET' || !socket.writable || answering) {
    socket.destroy();
    return;
  }
  const problem = problemOf(error);
  const body = JSON.stringify(problem.body());
  const headers: Record<string, string> = {
    ...baseHeaders(''),
    'content-type': 'application/problem+json',
    'content-length': String(Buffer.byteLength(body)),
    connection: 'close',
  };
  const head = [
    `HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status] ?? 'Error'}`,
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ];
  socket.end(`${head.join('\r\n')}\r\n\r\n${body}`, () => socket.destroy());
}
