import type { Logger } from '../../log.js';
import type { RequestObserver } from './app.js';

/**
 * The access log: one JSON line per answered request at `info`, with what an operator needs to
 * follow a request (its id, the route template rather than the raw path, the operation, status,
 * duration and the authenticated user) and nothing a client sent (no tokens, passwords, bodies or
 * query strings).
 */
export function accessLog(logger: Logger): RequestObserver {
  return (event) =>
    logger.info('request', {
      requestId: event.requestId,
      method: event.method,
      route: event.route,
      operationId: event.operationId,
      status: event.status,
      durationMs: event.durationMs,
      userId: event.userId,
    });
}
