import type { Context } from 'hono';
import { isDomainError, type DomainError } from '../../domain/index.js';
import type { Logger } from '../../log.js';
import { pathOf, requestIdOf, type Env } from './context.js';
import { HttpProblem, problemResponse } from './problem.js';
import { problemFromDomainError } from './problem-map.js';

/** A preview link's token, in the path of getContentPreview: a secret, never logged. */
const PREVIEW_TOKEN = /(\/content\/preview\/)[^/]+/;

/** The path of a request as the error log shows it: a preview link's token replaced by `{token}`. */
function loggedPath(path: string): string {
  return path.replace(PREVIEW_TOKEN, '$1{token}');
}

/** Answers an error thrown while answering a request; records the problem kind for the observers. */
export type ErrorAnswer = (error: unknown, c: Context<Env>) => Response;

/**
 * The problem answer of an error: an `HttpProblem` as it is, a domain error through the problem
 * table, a body cut off as 408, anything else (a bug) as a logged 500 that names the request id.
 */
export function errorAnswer(logger: Logger): ErrorAnswer {
  return (error, c) => {
    const instance = pathOf(c.req.url);
    if (error instanceof HttpProblem) {
      c.set('problem', error.kind);
      return problemResponse(error, instance);
    }
    const requestId = requestIdOf(c);
    if (isDomainError(error)) {
      const problem = problemFromDomainError(error as DomainError);
      if (problem.status === 503) logger.warn('store unavailable', { requestId, path: loggedPath(instance), error });
      if (problem.status < 500 || problem.status === 503) {
        c.set('problem', problem.kind);
        return problemResponse(problem, instance);
      }
      // A domain error that only a bug can cause (e.g. a duplicate generated id): a logged bare 500.
    }
    if (isBodyAborted(error)) {
      // The connection closed while the body was read: the client left, or was cut as too slow
      // (node-server answered it 408). Nobody is there to answer; the access log says 408.
      c.set('problem', 'malformed-request');
      return problemResponse(new HttpProblem(408, 'malformed-request', 'The request was not received in time.'), instance);
    }
    c.set('problem', 'internal-error');
    logger.error('unhandled error', { requestId, method: c.req.method, path: loggedPath(instance), error });
    return problemResponse(new HttpProblem(500, 'internal-error', 'An unexpected error occurred; it was logged.', { requestId }), instance);
  };
}

/** Node's error for a request body whose connection closed before it all arrived. */
function isBodyAborted(error: unknown): boolean {
  return error instanceof Error && error.message === 'aborted' && (error as NodeJS.ErrnoException).code === 'ECONNRESET';
}
