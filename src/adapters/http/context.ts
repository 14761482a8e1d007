import { randomUUID } from 'node:crypto';
import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context } from 'hono';
import type { Route } from './contract.js';
import type { ProblemKind } from './problem.js';
import type { Principal } from './registry.js';

/** What the app keeps of a request while answering it (read by the observers and the error answer). */
export type Env = { Variables: { requestId?: string; route?: Route; principal?: Principal | null; problem?: ProblemKind } };

/** Makes the answer to a request (a route's handler, the not-found answer, a step of the guard). */
export type Answer = (c: Context<Env>) => Response | Promise<Response>;

/**
 * The request's id, made on first use: only errors and logs need one, and a random UUID per
 * request is measurable on the hot path.
 */
export function requestIdOf(c: Context<Env>): string {
  let id = c.get('requestId');
  if (id === undefined) {
    id = randomUUID();
    c.set('requestId', id);
  }
  return id;
}

/**
 * The client's address: with `trustProxy`, the last X-Forwarded-For entry (the one our trusted
 * proxy appended; earlier ones are the client's word), else the socket's peer.
 */
export function clientAddressOf(c: Context<Env>, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = c.req.header('x-forwarded-for')?.split(',').at(-1)?.trim();
    if (forwarded) return forwarded;
  }
  try {
    return getConnInfo(c).remote.address ?? 'unknown';
  } catch {
    return 'unknown'; // no socket, e.g. app.request() in tests
  }
}

/**
 * The origin (scheme, host, port) the client asked this server by: its host from the request's
 * own URL (the Host header), its scheme with `trustProxy` from the last X-Forwarded-Proto entry
 * (http or https: the one our trusted proxy set, which ended TLS), else the request's own.
 * X-Forwarded-Host is never read: a proxy that does not set it passes on the client's, which no
 * cache keys its answers by, so one forged request would put another host into the public,
 * cached Content API answers every reader gets. A proxy that rewrites Host wants PUBLIC_API_URL.
 */
export function originOf(c: Context<Env>, trustProxy: boolean): string {
  const own = new URL(c.req.url);
  if (!trustProxy) return own.origin;
  const proto = c.req.header('x-forwarded-proto')?.split(',').at(-1)?.trim().toLowerCase();
  if (proto !== 'http' && proto !== 'https') return own.origin;
  return new URL(`${proto}://${own.host}`).origin;
}

/**
 * The path of a request URL as sent, percent-escapes kept (what `new URL(url).pathname` gives for
 * the absolute URLs the Node adapter builds, without parsing the whole URL again).
 */
export function pathOf(url: string): string {
  const start = url.indexOf('/', url.indexOf('//') + 2);
  if (start === -1) return '/';
  const end = url.search(/[?#]/);
  return url.slice(start, end === -1 ? undefined : end);
}

/** The query string of a URL (without `?`), or '' when it has none. */
export function queryOf(url: string): string {
  const start = url.indexOf('?');
  if (start === -1) return '';
  const hash = url.indexOf('#', start);
  return url.slice(start + 1, hash === -1 ? undefined : hash);
}
