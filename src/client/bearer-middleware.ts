import type { Middleware } from 'openapi-fetch';
import type { TokenSession } from './session.js';

/** Operations without bearer security (`security: []`): no token is sent, no refresh is tried. */
const PUBLIC_PATHS: ReadonlySet<string> = new Set(['/healthz', '/readyz', '/auth/login', '/auth/refresh', '/auth/logout']);

/**
 * Sends `Authorization: Bearer <access token>` on every protected operation (unless the caller set
 * the header itself), refreshing first when the session holds a refresh token only. On a 401 it asks the session for a fresh token, which refreshes at most once
 * however many requests were refused together, and repeats the request once with it; when there is
 * no fresh token the 401 is returned as it came. The retry bypasses the middleware chain, so it can
 * never refresh again. Register it first so the request it copies for the retry is the final one.
 */
export function bearerMiddleware(session: TokenSession): Middleware {
  const pending = new Map<string, { copy: Request; token: string }>();
  return {
    async onRequest({ request, schemaPath, id }) {
      if (PUBLIC_PATHS.has(schemaPath) || request.headers.has('authorization')) return undefined;
      // A session taken up from a refresh token alone gets its access token before the first request.
      const token = session.accessToken ?? (await session.renew(null));
      if (!token) return undefined;
      request.headers.set('authorization', `Bearer ${token}`);
      pending.set(id, { copy: request.clone(), token });
      return request;
    },
    async onResponse({ response, id, options }) {
      const entry = pending.get(id);
      pending.delete(id);
      if (!entry || response.status !== 401) return undefined;
      const token = await session.renew(entry.token);
      if (!token) return undefined;
      // The refused answer is read to its end (a small problem+json), not cancelled: a browser
      // cancelling it aborts the request and its connection, where read it leaves the connection
      // free for the retry.
      await response.arrayBuffer().catch(() => undefined);
      entry.copy.headers.set('authorization', `Bearer ${token}`);
      // Called detached, not as `options.fetch(…)`: a browser's own fetch called as a method of
      // another object throws "Illegal invocation", and the retry would never be sent.
      const send = options.fetch;
      return send(entry.copy);
    },
    onError({ id }) {
      pending.delete(id);
    },
  };
}
