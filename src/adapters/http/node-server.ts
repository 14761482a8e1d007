import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { serve, type ServerType } from '@hono/node-server';
import { HttpProblem } from './problem.js';
import { baseHeaders } from './response-headers.js';

export interface ServeOptions {
  hostname: string;
  port: number;
}

/**
 * Serves `fetch` (the Hono app) with @hono/node-server, answering requests that Node's HTTP parser
 * refuses before any route sees them with a problem+json body too (see `answerClientError`).
 */
export function serveApp(
  fetch: (request: Request) => Response | Promise<Response>,
  options: ServeOptions,
  onListening?: () => void,
): ServerType {
  const server = serve({ fetch, hostname: options.hostname, port: options.port }, onListening);
  server.on('clientError', answerClientError);
  return server;
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
 * unknown method token, headers too large, a request that never completed). Node's default
 * answers a bare `400` without a body; this answers the same status with a problem+json body and
 * the base headers, then closes the connection after the answer is written (the parser cannot
 * find where a next request would start). A socket that is gone or has an answer under way is
 * destroyed, as Node does.
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
  socket.end(`${head.join('\r\n')}\r\n\r\n${body}`);
}
