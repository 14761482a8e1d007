import { tmpdir } from 'node:os';
import { Hono, type MiddlewareHandler } from 'hono';
import { PatternRouter } from 'hono/router/pattern-router';
import type { Logger } from '../../log.js';
import { mountAdmin } from './admin.js';
import { compressAnswers } from './compression.js';
import { clientAddressOf, requestIdOf, type Answer, type Env } from './context.js';
import { API_ROOT, type Contract } from './contract.js';
import { createDispatch } from './dispatch.js';
import { mountDocs } from './docs.js';
import { errorAnswer } from './error-answer.js';
import { createGuard, type ContentRateLimit } from './guard.js';
import { pathTemplates } from './path-templates.js';
import type { ProblemKind } from './problem.js';
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
  /**
   * The largest image an upload may be (POST /media, MEDIA_MAX_BYTES); its body limit is this plus
   * `FORM_ALLOWANCE_BYTES`. Defaults to `bodyLimitBytes`.
   */
  imageMaxBytes?: number;
  /** Where an image upload is written as it arrives (a temporary file each, removed once answered); defaults to the OS's temporary folder. */
  uploadDir?: string;
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
  /** The origin of the media files' absolute URLs (PUBLIC_API_URL's): the admin's CSP lets its images load from there. */
  mediaOrigin?: string;
  /** The Content API's rate limit per client address, shared through the store; absent: no limit. */
  contentRateLimit?: ContentRateLimit;
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
  /**
   * The client's address as the throttles count it: the socket's peer, or with TRUST_PROXY the
   * last X-Forwarded-For entry; `unknown` without a socket (`app.request` in tests).
   */
  clientAddress: string;
  /** The problem type slug of an error answer (`too-many-attempts`, …). */
  problem: ProblemKind | null;
  /** Whether an Idempotency-Key replayed a stored answer. */
  replayed: boolean;
}

export type RequestObserver = (event: RequestEvent) => void;

/**
 * What a `multipart/form-data` upload may add to its image: the boundaries, each part's headers,
 * and the alt text and caption parts (at most 3,000 characters, 12 KB in UTF-8).
 */
const FORM_ALLOWANCE_BYTES = 64 * 1024;

/**
 * The HTTP adapter: one Hono route per operation of the bundle, each answered through the guard
 * (CORS, limits), the dispatch (auth, validation, the handler) and, for a thrown error, the error
 * answer; other methods and paths from the path templates; every answer compressed for the
 * clients that accept it (compression.ts).
 */
export function createApp(options: AppOptions): Hono<Env> {
  const { contract } = options;
  // PatternRouter: one regular expression per route, tried in order. The default SmartRouter would
  // settle on TrieRouter (slower here, and it writes each request's parameters into the shared
  // nodes of its trie), because its RegExpRouter refuses a static segment beside a parameter that
  // has children (`POST /posts/bulk` beside `POST /posts/:id/revisions/:version/restore`).
  const app = new Hono<Env>({ router: new PatternRouter() });
  const observers = options.observers ?? [];
  // Outermost, so it sees every answer, errors included (Hono's onError sets it before this resumes).
  if (observers.length > 0) app.use('*', observeAnswers(observers, options.trustProxy ?? false));

  const answerError = errorAnswer(options.logger);
  const templates = pathTemplates(contract.routes);
  const imageBytes = options.imageMaxBytes ?? options.bodyLimitBytes;
  const guard = createGuard({
    routes: contract.routes,
    bodyLimitBytes: options.bodyLimitBytes,
    importLimitBytes: options.importLimitBytes ?? options.bodyLimitBytes,
    imageLimitBytes: imageBytes + FORM_ALLOWANCE_BYTES,
    corsOrigins: options.corsOrigins ?? [],
    ...(options.contentRateLimit === undefined ? {} : { contentRateLimit: options.contentRateLimit }),
    trustProxy: options.trustProxy ?? false,
    templates,
    answerError,
  });
  const dispatch = createDispatch({
    contract,
    handlers: options.handlers,
    authenticate: options.authenticate,
    ...(options.admit ? { admit: options.admit } : {}),
    trustProxy: options.trustProxy ?? false,
    observed: observers.length > 0,
    uploads: { dir: options.uploadDir ?? tmpdir(), imageBytes, formAllowanceBytes: FORM_ALLOWANCE_BYTES },
  });

  for (const route of contract.routes) {
    const parametrised = route.honoPath.includes(':');
    const answer: Answer = (c) => {
      // `DELETE /posts/bulk` matches `DELETE /posts/:id`, but names the static path, which has its own methods.
      const shadowing = parametrised ? templates.staticAllow(c.req.path) : undefined;
      return shadowing !== undefined ? templates.otherMethod(c, shadowing) : dispatch(route, c);
    };
    app.on(route.method.toUpperCase(), route.honoPath, guard(answer));
  }
  const { notFound } = templates;
  if (options.docsBundle !== undefined) mountDocs(app as unknown as Hono<never>, options.docsBundle, { guard, notFound });
  if (options.adminDir !== undefined) mountAdmin(app as unknown as Hono<never>, options.adminDir, options.mediaOrigin);
  app.notFound(guard(notFound));
  app.onError(answerError);
  // Outside everything, Hono included, as a proxy would compress: the observers see the answer
  // the app made, and `app.request` goes through it too (Hono's request calls this.fetch).
  app.fetch = compressAnswers(app.fetch);
  return app;
}

/** Tells the observers of every answer once it is made. */
function observeAnswers(observers: RequestObserver[], trustProxy: boolean): MiddlewareHandler<Env> {
  return async (c, next) => {
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
      clientAddress: clientAddressOf(c, trustProxy),
      problem: c.get('problem') ?? null,
      // Read only where it can be set: reading an answer's headers builds its Fetch Headers object.
      replayed:
        route !== undefined && route.declaredHeaderNames.includes('idempotency-key') && c.res.headers.get('idempotent-replayed') === 'true',
    };
    for (const observe of observers) observe(event);
  };
}
