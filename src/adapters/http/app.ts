import { randomUUID } from 'node:crypto';
import { Hono } from 'hono';
import { PatternRouter } from 'hono/router/pattern-router';
import { getConnInfo } from '@hono/node-server/conninfo';
import { bodyLimit } from 'hono/body-limit';
import { cors } from 'hono/cors';
import type { Context } from 'hono';
import type { ErrorObject } from 'ajv';
// The files, not the index: see rate-limiter-flexible.d.ts.
import RateLimiterMemory from 'rate-limiter-flexible/lib/RateLimiterMemory.js';
import RateLimiterRes from 'rate-limiter-flexible/lib/RateLimiterRes.js';
import { InvalidTokenError, isDomainError, type DomainError } from '../../domain/index.js';
import type { Logger } from '../../log.js';
import { mountAdmin } from './admin.js';
import { API_ROOT, type Contract, type Route } from './contract.js';
import { mountDocs } from './docs.js';
import { HttpProblem, problemResponse, type ProblemKind } from './problem.js';
import { baseHeaders, CONTENT_ROOT, respond, RESPONDED } from './response-headers.js';
import { problemFromDomainError } from './problem-map.js';
import type { HandlerRegistry, Principal } from './registry.js';

export interface AppOptions {
  contract: Contract;
  handlers: HandlerRegistry;
  /** Verifies a bearer token; throws `InvalidTokenError` when it is not acceptable. */
  authenticate: (token: string) => Promise<Principal>;
  logger: Logger;
  bodyLimitBytes: number;
  /** The body limit of the operations that take a zip archive (POST /import); defaults to `bodyLimitBytes`. */
  importLimitBytes?: number;
  /** Origins allowed by CORS; empty allows none. */
  corsOrigins?: string[];
  /** Take the client address from X-Forwarded-For. */
  trustProxy?: boolean;
  /** Told of every answer once it is made (the access log, metrics). */
  observers?: RequestObserver[];
  /**
   * Called before every operation but health and readiness; throws (an `UnavailableError`) while
   * the server must not serve them, e.g. while the database schema is behind.
   */
  admit?: () => void;
  /** The bundle's text: when given, the API reference is served at /api/v1/docs and the bundle at /api/v1/openapi.json. */
  docsBundle?: string;
  /** The admin app's build (dist/admin/): when given, it is served at /admin/. */
  adminDir?: string;
  /** Content API requests each client address may send per minute (in this process); 0 or absent: no limit. */
  contentRateLimitPerMinute?: number;
}

/** One answered request, as the access log and the metrics see it. */
export interface RequestEvent {
  requestId: string;
  method: string;
  /** The path template of the operation (`/api/v1/posts/{id}`); null when no operation matched. */
  route: string | null;
  operationId: string | null;
  status: number;
  durationMs: number;
  /** The authenticated user, when the request carried a valid token. */
  userId: string | null;
  /** The problem type slug of an error answer (`too-many-attempts`, …). */
  problem: ProblemKind | null;
  /** Whether an Idempotency-Key replayed a stored answer. */
  replayed: boolean;
}

export type RequestObserver = (event: RequestEvent) => void;

type Env = { Variables: { requestId?: string; route?: Route; principal?: Principal | null; problem?: ProblemKind } };

/** Makes the answer to a request (a route's handler, the not-found answer, a step of `guard`). */
type Answer = (c: Context<Env>) => Response | Promise<Response>;

/** The methods whose requests may carry a body (and so meet the body limit). */
const BODY_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH']);

/** Whether `path` ends in a slash after a segment (`/posts/`; `/` alone does not). */
const hasTrailingSlash = (path: string) => path.length > 1 && path.endsWith('/');

/** Whether `path` is `root` or below it. */
const isUnder = (path: string, root: string) => path === root || path.startsWith(`${root}/`);

/**
 * The HTTP adapter: one Hono route per operation of the bundle, requests validated by
 * openapi-backend against the operation resolved at start-up, handlers looked up by operationId.
 */
export function createApp(options: AppOptions): Hono<Env> {
  const { contract, handlers, logger } = options;
  // PatternRouter: one regular expression per route, tried in order (0.4 µs a lookup here). The
  // default SmartRouter would settle on TrieRouter (1.1-1.6 µs, and it writes each request's
  // parameters into the shared nodes of its trie), because its RegExpRouter refuses a static
  // segment beside a parameter that has children (`POST /posts/bulk` beside
  // `POST /posts/:id/revisions/:version/restore`).
  const app = new Hono<Env>({ router: new PatternRouter() });

  const observers = options.observers ?? [];
  if (observers.length > 0) {
    // Outermost, so it sees every answer, errors included (Hono's onError sets it before this resumes).
    app.use('*', async (c, next) => {
      const started = performance.now();
      await next();
      const route = c.get('route');
      const event: RequestEvent = {
        requestId: requestIdOf(c),
        method: c.req.method,
        route: route ? API_ROOT + route.path : null,
        operationId: route?.operationId ?? null,
        status: c.res.status,
        durationMs: Math.round((performance.now() - started) * 1000) / 1000,
        userId: c.get('principal')?.userId ?? null,
        problem: c.get('problem') ?? null,
        // Read only where it can be set: reading an answer's headers builds its Fetch Headers object.
        replayed:
          route !== undefined &&
          route.declaredHeaderNames.includes('idempotency-key') &&
          c.res.headers.get('idempotent-replayed') === 'true',
      };
      for (const observe of observers) observe(event);
    });
  }

  contract.api.registerSecurityHandler('bearerAuth', async (context, authenticate: unknown) => {
    const header = String(context.request.headers['authorization'] ?? '');
    const match = /^Bearer ([A-Za-z0-9._~+/-]+=*)$/i.exec(header);
    if (!match?.[1]) throw new InvalidTokenError('missing');
    return (authenticate as AppOptions['authenticate'])(match[1]);
  });

  const corsMiddleware = cors({
    origin: options.corsOrigins ?? [],
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
  // CORS concerns browsers, which send Origin on every cross-origin request; a request without it
  // skips the middleware (which rebuilds every answer to add its headers). `Vary: Origin` is among
  // every admin answer's base headers, so caches keep the two kinds apart; the middleware adds it again.
  const withCors = async (c: Context<Env>, answer: Answer): Promise<Response> => {
    if (c.req.path.startsWith(CONTENT_ROOT)) {
      if (c.req.method !== 'OPTIONS') return answer(c);
      // A preflight: answered by the middleware without going further, with the path's Allow as
      // every OPTIONS answer has.
      const preflight = (await contentCors(c, () => Promise.resolve())) as Response;
      for (const [name, value] of Object.entries(baseHeaders(c.req.path))) {
        if (!preflight.headers.has(name)) preflight.headers.set(name, value);
      }
      const allow = templates.find((t) => t.pattern.test(c.req.path))?.allow;
      if (allow !== undefined) preflight.headers.set('allow', allow);
      return preflight;
    }
    // The middleware adds its headers to the answer `next` leaves in `c.res`: errors are answered
    // here, as problems, so that they carry the CORS headers too.
    const preflight = await corsMiddleware(c, async () => {
      try {
        c.res = await answer(c);
      } catch (error) {
        c.res = answerError(error, c);
      }
    });
    if (preflight instanceof Response) c.res = preflight;
    const vary = c.res.headers.get('vary');
    if (vary !== null) c.res.headers.set('vary', [...new Set(vary.split(/\s*,\s*/))].join(', '));
    // Every other answer is built by `respond` with every header in place; a preflight gets them here.
    if (!RESPONDED.has(c.res)) {
      for (const [name, value] of Object.entries(baseHeaders(c.req.path))) {
        if (!c.res.headers.has(name)) c.res.headers.set(name, value);
      }
    }
    return c.res;
  };

  // The body is not read, so the connection is closed after the answer (said with
  // `Connection: close`) rather than kept alive with unread bytes in it.
  const tooLarge = (limit: number) => () => {
    throw new HttpProblem(413, 'payload-too-large', `The request body is larger than ${limit} bytes.`, {}, { connection: 'close' });
  };
  // Operations that take a zip archive have a limit of their own.
  const zipPaths = new Set(contract.routes.filter((route) => route.bodyType === 'zip').map((route) => route.honoPath));
  const limits = {
    json: {
      bytes: options.bodyLimitBytes,
      middleware: bodyLimit({ maxSize: options.bodyLimitBytes, onError: tooLarge(options.bodyLimitBytes) }),
    },
    zip: {
      bytes: options.importLimitBytes ?? options.bodyLimitBytes,
      middleware: bodyLimit({
        maxSize: options.importLimitBytes ?? options.bodyLimitBytes,
        onError: tooLarge(options.importLimitBytes ?? options.bodyLimitBytes),
      }),
    },
  };
  // Only writes under the API root can answer 413; other requests never read a body. A declared
  // Content-Length is checked before anything is read, as `bodyLimit` does, but without touching
  // the Fetch body stream (which would turn the Node request into a full Fetch Request); a chunked
  // body goes through `bodyLimit`, which counts it as it streams.
  const withinBodyLimit = (c: Context<Env>, answer: Answer): Response | Promise<Response> => {
    if (!BODY_METHODS.has(c.req.method) || !isUnder(c.req.path, API_ROOT)) return answer(c);
    const limit = zipPaths.has(c.req.path) ? limits.zip : limits.json;
    const declared = c.req.header('content-length');
    if (declared === undefined || c.req.header('transfer-encoding') !== undefined) {
      let answered: Response | undefined;
      const next = async () => {
        answered = await answer(c);
      };
      // `bodyLimit` throws (`tooLarge`) past the limit, or calls `next` with the body read.
      return limit.middleware(c, next).then((early) => answered ?? (early as Response));
    }
    return Number(declared) > limit.bytes ? tooLarge(limit.bytes)() : answer(c);
  };

  const perMinute = options.contentRateLimitPerMinute ?? 0;
  // Per process: N processes behind a balancer allow up to N times the rate (documented).
  const limiter = perMinute > 0 ? new RateLimiterMemory({ points: perMinute, duration: 60 }) : null;
  const withinRateLimit = (c: Context<Env>, answer: Answer): Response | Promise<Response> => {
    if (limiter === null || !c.req.path.startsWith(CONTENT_ROOT)) return answer(c);
    return limiter.consume(clientAddress(c)).then(
      () => answer(c),
      (error: unknown) => {
        if (!(error instanceof RateLimiterRes)) throw error;
        const seconds = Math.max(1, Math.ceil(error.msBeforeNext / 1000));
        throw new HttpProblem(
          429,
          'rate-limited',
          `This address sent more than ${perMinute} requests in a minute; try again in ${seconds} seconds.`,
          {},
          { 'retry-after': String(seconds) },
        );
      },
    );
  };

  /**
   * Every answer of the app (operations, other methods, not found, the docs) is made through
   * `guard`: CORS for a request with an Origin (a preflight is answered there), then the Content
   * API's rate limit, then the trailing-slash rule, then the body limit of a write, then `answer`.
   * The rule: a path that ends in `/` (but `/`) is not the path without it, and answers 404 like
   * any unknown path (PatternRouter, whatever Hono's `strict`, matches a route with or without a
   * trailing slash; the spec gives every meaning one path). Not Hono middleware on
   * purpose: a request that matches one handler skips Hono's middleware chain (one async layer per
   * middleware), and for the usual request, without Origin and without a body, every step but
   * `answer` is a synchronous check.
   */
  const guard = (answer: Answer): Answer => {
    const bodyLimited: Answer = (c) => (hasTrailingSlash(c.req.path) ? notFound(c) : withinBodyLimit(c, answer));
    const limited: Answer = (c) => withinRateLimit(c, bodyLimited);
    return (c) => (c.req.header('origin') === undefined ? limited(c) : withCors(c, limited));
  };

  // Only operations are routes; other methods on a known path are answered from the table of path
  // templates (a static template before a parameter one), so a lookup tries 19 patterns, not 35.
  const templates = groupByPath(contract.routes).map(([path, routes]) => ({
    path,
    pattern: new RegExp(`^${path.replace(/:[^/]+/g, '[^/]+')}$`),
    allow: allowHeader(routes),
  }));
  const staticTemplates = new Map(templates.filter((t) => !t.path.includes(':')).map((t) => [t.path, t]));
  const otherMethod = (c: Context<Env>, allow: string): Response => {
    // OPTIONS with an Origin is a CORS preflight, answered by the CORS middleware before this.
    if (c.req.method === 'OPTIONS') return respond(null, 204, { ...baseHeaders(c.req.path), allow });
    return problemResponse(new HttpProblem(405, 'method-not-allowed', `This path allows ${allow}.`, {}, { allow }), pathOf(c.req.url));
  };

  for (const route of contract.routes) {
    const parametrised = route.honoPath.includes(':');
    app.on(
      route.method.toUpperCase(),
      route.honoPath,
      guard((c) => {
        // `DELETE /posts/bulk` matches `DELETE /posts/:id`, but names the static path, which has its own methods.
        const shadowing = parametrised ? staticTemplates.get(c.req.path) : undefined;
        return shadowing ? otherMethod(c, shadowing.allow) : dispatch(route, c);
      }),
    );
  }

  const notFound: Answer = (c) => {
    const template = templates.find((t) => t.pattern.test(c.req.path));
    if (template) return otherMethod(c, template.allow);
    const path = pathOf(c.req.url);
    return problemResponse(new HttpProblem(404, 'not-found', `No resource at ${path}.`), path);
  };
  if (options.docsBundle !== undefined) mountDocs(app as unknown as Hono<never>, options.docsBundle, { guard, notFound });
  if (options.adminDir !== undefined) mountAdmin(app as unknown as Hono<never>, options.adminDir);
  app.notFound(guard(notFound));

  app.onError((error, c) => answerError(error, c));

  /** The problem answer of an error thrown while answering (Hono's onError, and `withCors`). */
  function answerError(error: unknown, c: Context<Env>): Response {
    const instance = pathOf(c.req.url);
    if (error instanceof HttpProblem) {
      c.set('problem', error.kind);
      return problemResponse(error, instance);
    }
    const requestId = requestIdOf(c);
    if (isDomainError(error)) {
      const problem = problemFromDomainError(error as DomainError);
      if (problem.status === 503) logger.warn('store unavailable', { requestId, path: instance, error });
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
    logger.error('unhandled error', { requestId, method: c.req.method, path: instance, error });
    return problemResponse(new HttpProblem(500, 'internal-error', 'An unexpected error occurred; it was logged.', { requestId }), instance);
  }

  function clientAddress(c: Context<Env>): string {
    if (options.trustProxy) {
      // The last entry is the one our trusted proxy appended; earlier ones are the client's word.
      const forwarded = c.req.header('x-forwarded-for')?.split(',').at(-1)?.trim();
      if (forwarded) return forwarded;
    }
    try {
      return getConnInfo(c).remote.address ?? 'unknown';
    } catch {
      return 'unknown'; // no socket, e.g. app.request() in tests
    }
  }

  async function dispatch(route: Route, c: Context<Env>): Promise<Response> {
    const request = c.req.raw;
    const path = pathOf(request.url);
    if (observers.length > 0) c.set('route', route);
    if (options.admit && !route.alwaysAdmitted) options.admit();
    // Only the headers the operation reads are copied: reading one header is cheap, copying them
    // all is not.
    const headers: Record<string, string> = {};
    for (const name of route.headerNames) {
      const value = request.headers.get(name);
      if (value !== null) headers[name] = value;
    }

    let principal: Principal | null = null;
    if (route.requiresAuth) {
      const handler = contract.api.securityHandlers['bearerAuth'];
      if (!handler) throw new Error('bearerAuth security handler is not registered');
      principal = (await handler({ request: { headers } } as never, options.authenticate)) as Principal;
      if (observers.length > 0) c.set('principal', principal);
    }

    // A zip is handed to the handler as bytes; the schema of a binary body has nothing to check.
    const body = route.bodyType === 'zip' ? await readZipBody(request) : route.hasBody ? await readJsonBody(request) : undefined;
    const result = contract.validateRequest(route, {
      params: c.req.param() as Record<string, string>,
      query: parseQuery(queryOf(request.url)),
      headers,
      body: route.bodyType === 'zip' ? undefined : body,
    });
    if (!result.valid) throw validationProblem(result.errors);

    const declaredHeaders: Record<string, string> = {};
    for (const name of route.declaredHeaderNames) {
      const value = headers[name];
      if (value !== undefined) declaredHeaders[name] = value;
    }

    const input = new ValidatedRequest(
      route.operationId,
      result.params,
      result.query,
      declaredHeaders,
      body,
      principal,
      path,
      c,
      clientAddress,
    );
    const handler = handlers[route.operationId] as unknown as (request: ValidatedRequest) => Promise<{
      status: number;
      body?: unknown;
      headers?: Record<string, unknown>;
    }>;
    const reply = await handler(input);
    return toResponse(route, path, reply);
  }

  return app;
}

/**
 * A validated request as handlers receive it (`RequestOf` of its operation). A class rather than
 * an object literal on purpose: getters in a literal are new closures for every request, so each
 * request object gets a hidden class of its own, and V8 keeps those in old space together with
 * what the closures hold (the Context, and through it the request and the answer). Every request
 * then survived the young-generation collections: 30 % of all allocation was promoted and the
 * collector took 17 % of the CPU of a GET. The prototype's getters are shared.
 */
class ValidatedRequest {
  readonly #context: Context<Env>;
  readonly #addressOf: (c: Context<Env>) => string;

  constructor(
    readonly operationId: string,
    readonly params: Record<string, unknown>,
    readonly query: Record<string, unknown>,
    readonly headers: Record<string, string>,
    readonly body: unknown,
    readonly principal: Principal | null,
    readonly path: string,
    context: Context<Env>,
    addressOf: (c: Context<Env>) => string,
  ) {
    this.#context = context;
    this.#addressOf = addressOf;
  }

  get requestId(): string {
    return requestIdOf(this.#context);
  }

  get clientAddress(): string {
    return this.#addressOf(this.#context);
  }
}

/**
 * The request's id, made on first use: only errors and logs need one, and a random UUID per
 * request is measurable on the hot path.
 */
function requestIdOf(c: Context<Env>): string {
  let id = c.get('requestId');
  if (id === undefined) {
    id = randomUUID();
    c.set('requestId', id);
  }
  return id;
}

function groupByPath(routes: Route[]): [string, Route[]][] {
  const groups = new Map<string, Route[]>();
  for (const route of routes) groups.set(route.honoPath, [...(groups.get(route.honoPath) ?? []), route]);
  // Static segments before parameters, so `/posts/bulk` is matched before `/posts/:id`.
  const rank = (path: string) =>
    path
      .split('/')
      .map((segment) => (segment.startsWith(':') ? '1' : '0'))
      .join('');
  return [...groups.entries()].sort(([a], [b]) => rank(a).localeCompare(rank(b)) || a.localeCompare(b));
}

function allowHeader(routes: Route[]): string {
  const methods = new Set(routes.map((r) => r.method.toUpperCase()));
  if (methods.has('GET')) methods.add('HEAD');
  methods.add('OPTIONS');
  return [...methods].sort().join(', ');
}

function parseQuery(search: string): Record<string, string | string[]> {
  const query = Object.create(null) as Record<string, string | string[]>;
  if (search === '') return query;
  for (const [name, value] of new URLSearchParams(search)) {
    const existing = query[name];
    if (existing === undefined) query[name] = value;
    else query[name] = Array.isArray(existing) ? [...existing, value] : [existing, value];
  }
  return query;
}

async function readZipBody(request: Request): Promise<Uint8Array> {
  const contentType = request.headers.get('content-type') ?? '';
  if (!/^application\/zip\s*(?:;|$)/i.test(contentType)) {
    throw new HttpProblem(400, 'malformed-request', 'The request body must be a zip archive sent with Content-Type: application/zip.');
  }
  const bytes = new Uint8Array(await request.arrayBuffer());
  if (bytes.byteLength === 0) throw new HttpProblem(400, 'malformed-request', 'The request body is empty; send the zip archive.');
  return bytes;
}

async function readJsonBody(request: Request): Promise<unknown> {
  const text = await request.text();
  if (text.length === 0) return undefined;
  const contentType = request.headers.get('content-type') ?? '';
  if (!/^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i.test(contentType)) {
    throw new HttpProblem(400, 'malformed-request', 'The request body must be JSON sent with Content-Type: application/json.');
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new HttpProblem(400, 'malformed-request', `The request body is not valid JSON: ${(error as Error).message}.`);
  }
}

/** Every failing field, as JSON pointers into the request (`/body/title`, `/query/limit`, …). */
function validationProblem(errors: ErrorObject[]): HttpProblem {
  const seen = new Set<string>();
  const fieldErrors: { pointer: string; message: string }[] = [];
  const meaningful = errors.some((e) => e.keyword !== 'oneOf' && e.keyword !== 'anyOf')
    ? errors.filter((e) => e.keyword !== 'oneOf' && e.keyword !== 'anyOf')
    : errors;
  for (const error of meaningful) {
    let pointer = error.instancePath.replace(/^\/requestBody/, '/body').replace(/^\/header(?=\/|$)/, '/headers');
    if (pointer === '') pointer = '/body';
    let message = error.message ?? 'is invalid';
    const params = error.params as Record<string, unknown>;
    if (error.keyword === 'required' && typeof params.missingProperty === 'string') {
      pointer += `/${params.missingProperty}`;
      message = 'is required';
    } else if (error.keyword === 'additionalProperties' && typeof params.additionalProperty === 'string') {
      pointer += `/${params.additionalProperty}`;
      message = 'is not an allowed property';
    }
    const key = `${pointer}\u0000${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    fieldErrors.push({ pointer, message });
  }
  const count = fieldErrors.length;
  return new HttpProblem(422, 'validation-failed', `The request has ${count} invalid field${count === 1 ? '' : 's'}.`, {
    errors: fieldErrors,
  });
}

/**
 * The path of a request URL as sent, percent-escapes kept (what `new URL(url).pathname` gives for
 * the absolute URLs the Node adapter builds, without parsing the whole URL again).
 */
function pathOf(url: string): string {
  const start = url.indexOf('/', url.indexOf('//') + 2);
  if (start === -1) return '/';
  const end = url.search(/[?#]/);
  return url.slice(start, end === -1 ? undefined : end);
}

/** The query string of a URL (without `?`), or '' when it has none. */
function queryOf(url: string): string {
  const start = url.indexOf('?');
  if (start === -1) return '';
  const hash = url.indexOf('#', start);
  return url.slice(start + 1, hash === -1 ? undefined : hash);
}

function toResponse(route: Route, path: string, reply: { status: number; body?: unknown; headers?: Record<string, unknown> }): Response {
  const headers: Record<string, string> = { ...baseHeaders(path) };
  const given = reply.headers;
  if (given !== undefined) {
    for (const name in given) {
      const value = given[name];
      if (value !== undefined && value !== null) headers[name.toLowerCase()] = String(value);
    }
  }
  if (reply.body === undefined) return respond(null, reply.status, headers);
  const media = route.mediaTypes.get(reply.status) ?? 'application/json';
  if (reply.body instanceof ReadableStream) {
    // Streamed as it is produced: chunked, no Content-Length.
    headers['content-type'] = media;
    return new Response(reply.body, { status: reply.status, headers });
  }
  if (media.endsWith('json')) {
    headers['content-type'] = media;
    return respond(JSON.stringify(reply.body), reply.status, headers);
  }
  headers['content-type'] = `${media}; charset=utf-8`;
  return respond(String(reply.body), reply.status, headers);
}

/** Node's error for a request body whose connection closed before it all arrived. */
function isBodyAborted(error: unknown): boolean {
  return error instanceof Error && error.message === 'aborted' && (error as NodeJS.ErrnoException).code === 'ECONNRESET';
}
