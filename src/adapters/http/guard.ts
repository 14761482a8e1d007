import type { Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { cors } from 'hono/cors';
import type { RateDecision, SharedRateLimit } from '../../app/shared-rate-limit.js';
import { clientAddressOf, type Answer, type Env } from './context.js';
import { API_ROOT, type Route } from './contract.js';
import type { ErrorAnswer } from './error-answer.js';
import type { PathTemplates } from './path-templates.js';
import { HttpProblem } from './problem.js';
import { baseHeaders, CONTENT_ROOT, RESPONDED } from './response-headers.js';

export interface GuardOptions {
  routes: readonly Route[];
  bodyLimitBytes: number;
  /** The body limit of the operations that take a zip archive. */
  importLimitBytes: number;
  /** The body limit of the operations that take an image (the largest image, plus room for a form's other parts). */
  imageLimitBytes: number;
  /** Origins allowed by CORS on every path but the Content API's; empty allows none. */
  corsOrigins: string[];
  /** The Content API's rate limit per client address; absent: no limit. */
  contentRateLimit?: ContentRateLimit;
  trustProxy: boolean;
  templates: Pick<PathTemplates, 'allowAt' | 'notFound'>;
  /** Answers an error thrown behind the CORS step, so that its answer carries the CORS headers. */
  answerError: ErrorAnswer;
}

/**
 * Content API requests each client address may send per minute, decided by a `SharedRateLimit`
 * over the store's `RateLimitCounter` with a window of a minute, so every process sharing the
 * store shares it (within the accuracy `SharedRateLimit` states).
 */
export interface ContentRateLimit {
  perMinute: number;
  limiter: Pick<SharedRateLimit, 'admit'>;
  now: () => Date;
}

/** Wraps an answer in the checks every request meets before it (see `createGuard`). */
export type Guard = (answer: Answer) => Answer;

/**
 * Every answer of the app (operations, other methods, not found, the docs) is made through the
 * guard: CORS for a request with an Origin (a preflight is answered there), then the Content API's
 * rate limit, then the trailing-slash rule, then the body limit of a write, then the answer.
 * The rule: a path that ends in `/` (but `/`) is not the path without it, and answers 404 like
 * any unknown path (PatternRouter, whatever Hono's `strict`, matches a route with or without a
 * trailing slash; the spec gives every meaning one path). Not Hono middleware on purpose: a
 * request that matches one handler skips Hono's middleware chain (one async layer per
 * middleware), and for the usual request, without Origin and without a body, every step but the
 * answer is a synchronous check.
 */
export function createGuard(options: GuardOptions): Guard {
  const { notFound } = options.templates;
  const withinBodyLimit = bodyLimitStep(options);
  const withinRateLimit = rateLimitStep(options);
  const withCors = corsStep(options);
  return (answer) => {
    const bodyLimited: Answer = (c) => (hasTrailingSlash(c.req.path) ? notFound(c) : withinBodyLimit(c, answer));
    const limited: Answer = (c) => withinRateLimit(c, bodyLimited);
    return (c) => (c.req.header('origin') === undefined ? limited(c) : withCors(c, limited));
  };
}

/** One step of the guard: answers itself, or leaves the answer to `answer`. */
type Step = (c: Context<Env>, answer: Answer) => Response | Promise<Response>;

/** The methods whose requests may carry a body (and so meet the body limit). */
const BODY_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH']);

/** Whether `path` ends in a slash after a segment (`/posts/`; `/` alone does not). */
const hasTrailingSlash = (path: string) => path.length > 1 && path.endsWith('/');

/** Whether `path` is `root` or below it. */
const isUnder = (path: string, root: string) => path === root || path.startsWith(`${root}/`);

/**
 * 413 payload-too-large past the body limit (the zip and image operations have one of their own). The body
 * is not read, so the connection is closed after the answer (said with `Connection: close`)
 * rather than kept alive with unread bytes in it.
 */
function bodyLimitStep(options: GuardOptions): Step {
  const tooLarge = (limit: number) => () => {
    throw new HttpProblem(413, 'payload-too-large', `The request body is larger than ${limit} bytes.`, {}, { connection: 'close' });
  };
  const limitOf = (bytes: number) => ({ bytes, middleware: bodyLimit({ maxSize: bytes, onError: tooLarge(bytes) }) });
  const json = limitOf(options.bodyLimitBytes);
  const ownLimits = { zip: limitOf(options.importLimitBytes), image: limitOf(options.imageLimitBytes) };
  // Both kinds are static paths (`/import`, `/media`), compared as they are.
  const limitAt = new Map<string, ReturnType<typeof limitOf>>();
  for (const route of options.routes) {
    if (route.bodyType === 'zip' || route.bodyType === 'image') limitAt.set(route.honoPath, ownLimits[route.bodyType]);
  }
  // Only writes under the API root can answer 413; other requests never read a body. A declared
  // Content-Length is checked before anything is read, as `bodyLimit` does, but without touching
  // the Fetch body stream (which would turn the Node request into a full Fetch Request); a chunked
  // body goes through `bodyLimit`, which counts it as it streams (and holds it whole), but for an
  // image: the dispatch counts that one as it writes it to a file (upload-body.ts).
  return (c, answer) => {
    if (!BODY_METHODS.has(c.req.method) || !isUnder(c.req.path, API_ROOT)) return answer(c);
    const limit = limitAt.get(c.req.path) ?? json;
    const declared = c.req.header('content-length');
    if (declared === undefined || c.req.header('transfer-encoding') !== undefined) {
      if (limit === ownLimits.image) return answer(c);
      let answered: Response | undefined;
      const next = async () => {
        answered = await answer(c);
      };
      // `bodyLimit` throws (`tooLarge`) past the limit, or calls `next` with the body read.
      return limit.middleware(c, next).then((early) => answered ?? (early as Response));
    }
    return Number(declared) > limit.bytes ? tooLarge(limit.bytes)() : answer(c);
  };
}

/**
 * 429 rate-limited with Retry-After once a client address has sent its Content API requests of
 * its minute (a fixed window from its first request).
 */
function rateLimitStep(options: GuardOptions): Step {
  const limit = options.contentRateLimit;
  if (limit === undefined || limit.perMinute <= 0) return (c, answer) => answer(c);
  const { perMinute, limiter } = limit;
  const decided = (c: Context<Env>, answer: Answer, decision: RateDecision, now: Date) => {
    if (decision.admitted) return answer(c);
    const seconds = Math.max(1, Math.ceil((decision.endsAt.getTime() - now.getTime()) / 1000));
    throw new HttpProblem(
      429,
      'rate-limited',
      `This address sent more than ${perMinute} requests in a minute; try again in ${seconds} seconds.`,
      {},
      { 'retry-after': String(seconds) },
    );
  };
  // Not async: a request outside the Content API, or one the limiter decides at once (the usual
  // case), passes without a promise of its own. The limiter never rejects: a store that cannot
  // count lets the request through to the operation, which answers as the store's state says.
  return (c, answer) => {
    if (!c.req.path.startsWith(CONTENT_ROOT)) return answer(c);
    const now = limit.now();
    const decision = limiter.admit(`content:${clientAddressOf(c, options.trustProxy)}`, now);
    return decision instanceof Promise ? decision.then((d) => decided(c, answer, d, now)) : decided(c, answer, decision, now);
  };
}

/**
 * CORS for a request with an Origin (browsers send it on every cross-origin request; a request
 * without it skips the middleware, which rebuilds every answer to add its headers). `Vary: Origin`
 * is among every admin answer's base headers, so caches keep the two kinds apart; the middleware
 * adds it again.
 */
function corsStep(options: GuardOptions): Step {
  const adminCors = cors({
    origin: options.corsOrigins,
    allowMethods: ['GET', 'HEAD', 'POST', 'PATCH', 'DELETE', 'OPTIONS'],
    allowHeaders: ['Authorization', 'Content-Type', 'If-Match', 'If-None-Match', 'Idempotency-Key', 'Prefer'],
    exposeHeaders: ['ETag', 'Location', 'Retry-After', 'Idempotent-Replayed', 'WWW-Authenticate', 'Content-Disposition'],
    maxAge: 600,
  });
  // The Content API is open to every origin without credentials: its answers carry
  // `Access-Control-Allow-Origin: *` in their base headers, so only a preflight needs the middleware.
  const contentCors = cors({
    origin: '*',
    allowMethods: ['GET', 'HEAD', 'OPTIONS'],
    allowHeaders: ['If-None-Match', 'If-Modified-Since'],
    exposeHeaders: ['ETag', 'Retry-After'],
    maxAge: 86400,
  });
  return async (c, answer) => {
    if (c.req.path.startsWith(CONTENT_ROOT)) {
      if (c.req.method !== 'OPTIONS') return answer(c);
      // A preflight: answered by the middleware without going further, with the path's Allow as
      // every OPTIONS answer has.
      const preflight = (await contentCors(c, () => Promise.resolve())) as Response;
      withBaseHeaders(preflight, c.req.path);
      const allow = options.templates.allowAt(c.req.path);
      if (allow !== undefined) preflight.headers.set('allow', allow);
      return preflight;
    }
    // The middleware adds its headers to the answer `next` leaves in `c.res`: errors are answered
    // here, as problems, so that they carry the CORS headers too.
    const preflight = await adminCors(c, async () => {
      try {
        c.res = await answer(c);
      } catch (error) {
        c.res = options.answerError(error, c);
      }
    });
    if (preflight instanceof Response) c.res = preflight;
    const vary = c.res.headers.get('vary');
    if (vary !== null) c.res.headers.set('vary', [...new Set(vary.split(/\s*,\s*/))].join(', '));
    // Every other answer is built by `respond` with every header in place; a preflight gets them here.
    if (!RESPONDED.has(c.res)) withBaseHeaders(c.res, c.req.path);
    return c.res;
  };
}

/** Adds the base headers of `path` that `response` does not set itself. */
function withBaseHeaders(response: Response, path: string): void {
  for (const [name, value] of Object.entries(baseHeaders(path))) {
    if (!response.headers.has(name)) response.headers.set(name, value);
  }
}
