import type { Logger } from '../../log.js';
import type { RequestObserver } from './app.js';

/**
 * The access log: one JSON line per answered request at `info`, with what an operator needs to
 * follow a request (its id, the route template rather than the raw path, the operation, status,
 * duration, the authenticated user and the client's address, as the throttles count it) and nothing a client sent (no tokens, passwords, bodies or
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
      client: event.clientAddress,
    });
}
