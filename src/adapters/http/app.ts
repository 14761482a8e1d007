import { randomUUID } from 'node:crypto';
import { Hono } from 'hono';
import { getConnInfo } from '@hono/node-server/conninfo';
import { bodyLimit } from 'hono/body-limit';
import { cors } from 'hono/cors';
import { secureHeaders } from 'hono/secure-headers';
import type { Context } from 'hono';
import type { ErrorObject } from 'ajv';
import { isDomainError, type DomainError } from '../../domain/index.js';
import type { Logger } from '../../log.js';
import { API_ROOT, type Contract, type Route } from './contract.js';
import { HttpProblem, problemResponse } from './problem.js';
import { problemFromDomainError } from './problem-map.js';
import type { HandlerRegistry, Principal, RequestOf } from './registry.js';

export interface AppOptions {
  contract: Contract;
  handlers: HandlerRegistry;
  /** Verifies a bearer token; throws `InvalidTokenError` when it is not acceptable. */
  authenticate: (token: string) => Promise<Principal>;
  logger: Logger;
  bodyLimitBytes: number;
  /** Origins allowed by CORS; empty allows none. */
  corsOrigins?: string[];
  /** Take the client address from X-Forwarded-For. */
  trustProxy?: boolean;
}

type Env = { Variables: { requestId: string } };

const UNAUTHORIZED_HEADERS = { 'www-authenticate': 'Bearer error="invalid_token"' };

/**
 * The HTTP adapter: one Hono route per operation of the bundle, requests validated by
 * openapi-backend against the operation resolved at start-up, handlers looked up by operationId.
 */
export function createApp(options: AppOptions): Hono<Env> {
  const { contract, handlers, logger } = options;
  const app = new Hono<Env>();

  contract.api.registerSecurityHandler('bearerAuth', async (context, authenticate: unknown) => {
    const header = String(context.request.headers['authorization'] ?? '');
    const match = /^Bearer ([A-Za-z0-9._~+/-]+=*)$/i.exec(header);
    if (!match?.[1]) throw new HttpProblem(401, 'unauthorized', 'A bearer token is required.', {}, UNAUTHORIZED_HEADERS);
    return (authenticate as AppOptions['authenticate'])(match[1]);
  });

  app.use('*', async (c, next) => {
    c.set('requestId', randomUUID());
    await next();
  });
  app.use(
    '*',
    secureHeaders({
      contentSecurityPolicy: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] },
      xFrameOptions: 'DENY',
      strictTransportSecurity: 'max-age=31536000; includeSubDomains',
    }),
  );
  // Tokens are never stored by caches; other answers are private and revalidated (ETags).
  app.use(`${API_ROOT}/*`, async (c, next) => {
    await next();
    if (!c.res.headers.has('cache-control')) {
      c.res.headers.set('cache-control', c.req.path.startsWith(`${API_ROOT}/auth/`) ? 'no-store' : 'private, no-cache');
    }
  });
  app.use(
    '*',
    cors({
      origin: options.corsOrigins ?? [],
      allowMethods: ['GET', 'HEAD', 'POST', 'PATCH', 'DELETE', 'OPTIONS'],
      allowHeaders: ['Authorization', 'Content-Type', 'If-Match', 'If-None-Match', 'Idempotency-Key', 'Prefer'],
      exposeHeaders: ['ETag', 'Location', 'Retry-After', 'Idempotent-Replayed', 'WWW-Authenticate', 'Content-Disposition'],
      maxAge: 600,
    }),
  );
  const limitBody = bodyLimit({
      maxSize: options.bodyLimitBytes,
      onError: () => {
        throw new HttpProblem(413, 'payload-too-large', `The request body is larger than ${options.bodyLimitBytes} bytes.`);
      },
    });
  // Only operations that take a body can answer 413; others never read one.
  app.use(`${API_ROOT}/*`, (c, next) => (['POST', 'PUT', 'PATCH'].includes(c.req.method) ? limitBody(c, next) : next()));

  for (const [path, routes] of groupByPath(contract.routes)) {
    for (const route of routes) {
      app.on(route.method.toUpperCase(), route.honoPath, (c) => dispatch(route, c.req.raw, c.get('requestId'), clientAddress(c)));
    }
    const allow = allowHeader(routes);
    app.all(path, () => {
      throw new HttpProblem(405, 'method-not-allowed', `This path allows ${allow}.`, {}, { allow });
    });
  }

  app.notFound((c) => problemResponse(new HttpProblem(404, 'not-found', `No resource at ${new URL(c.req.url).pathname}.`), new URL(c.req.url).pathname));

  app.onError((error, c) => {
    const instance = new URL(c.req.url).pathname;
    if (error instanceof HttpProblem) return problemResponse(error, instance);
    const requestId = c.get('requestId');
    if (isDomainError(error)) {
      const problem = problemFromDomainError(error as DomainError);
      if (problem.status === 503) logger.warn('store unavailable', { requestId, path: instance, error });
      if (problem.status < 500) return problemResponse(problem, instance);
      if (problem.status === 503) return problemResponse(problem, instance);
      // A domain error that only a bug can cause (e.g. a duplicate generated id): a logged bare 500.
    }
    logger.error('unhandled error', { requestId, method: c.req.method, path: instance, error });
    return problemResponse(
      new HttpProblem(500, 'internal-error', 'An unexpected error occurred; it was logged.', { requestId }),
      instance,
    );
  });

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

  async function dispatch(route: Route, request: Request, requestId: string, address: string): Promise<Response> {
    const url = new URL(request.url);
    const headers: Record<string, string> = {};
    request.headers.forEach((value, name) => {
      headers[name] = value;
    });

    let principal: Principal | null = null;
    if (route.requiresAuth) {
      const handler = contract.api.securityHandlers['bearerAuth'];
      if (!handler) throw new Error('bearerAuth security handler is not registered');
      principal = (await handler({ request: { headers } } as never, options.authenticate)) as Principal;
    }

    const body = route.hasBody ? await readJsonBody(request) : undefined;
    const result = contract.api.validateRequest(
      { method: route.method, path: url.pathname, query: parseQuery(url.searchParams), headers, body } as never,
      route.operation,
    );
    if (!result.valid) throw validationProblem(result.errors ?? []);

    const declaredHeaders: Record<string, string> = {};
    for (const parameter of route.operation.parameters ?? []) {
      const p = parameter as { in?: string; name?: string };
      if (p.in === 'header' && p.name) {
        const value = headers[p.name.toLowerCase()];
        if (value !== undefined) declaredHeaders[p.name.toLowerCase()] = value;
      }
    }

    const input = {
      operationId: route.operationId,
      params: result.coerced.params ?? {},
      query: result.coerced.query ?? {},
      headers: declaredHeaders,
      body,
      principal,
      requestId,
      clientAddress: address,
      path: url.pathname,
    } as RequestOf<typeof route.operationId>;
    const handler = handlers[route.operationId] as (request: typeof input) => Promise<{
      status: number;
      body?: unknown;
      headers?: Record<string, unknown>;
    }>;
    const reply = await handler(input);
    return toResponse(route, reply);
  }

  return app;
}

function groupByPath(routes: Route[]): [string, Route[]][] {
  const groups = new Map<string, Route[]>();
  for (const route of routes) groups.set(route.honoPath, [...(groups.get(route.honoPath) ?? []), route]);
  // Static segments before parameters, so `/posts/bulk` is matched before `/posts/:id`.
  const rank = (path: string) => path.split('/').map((segment) => (segment.startsWith(':') ? '1' : '0')).join('');
  return [...groups.entries()].sort(([a], [b]) => rank(a).localeCompare(rank(b)) || a.localeCompare(b));
}

function allowHeader(routes: Route[]): string {
  const methods = new Set(routes.map((r) => r.method.toUpperCase()));
  if (methods.has('GET')) methods.add('HEAD');
  return [...methods].sort().join(', ');
}

function parseQuery(params: URLSearchParams): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  for (const [name, value] of params) {
    const existing = query[name];
    if (existing === undefined) query[name] = value;
    else query[name] = Array.isArray(existing) ? [...existing, value] : [existing, value];
  }
  return query;
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
export function validationProblem(errors: ErrorObject[]): HttpProblem {
  const seen = new Set<string>();
  const fieldErrors: { pointer: string; message: string }[] = [];
  const meaningful = errors.some((e) => e.keyword !== 'oneOf' && e.keyword !== 'anyOf')
    ? errors.filter((e) => e.keyword !== 'oneOf' && e.keyword !== 'anyOf')
    : errors;
  for (const error of meaningful) {
    let pointer = error.instancePath
      .replace(/^\/requestBody/, '/body')
      .replace(/^\/header(?=\/|$)/, '/headers');
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

function toResponse(route: Route, reply: { status: number; body?: unknown; headers?: Record<string, unknown> }): Response {
  const headers = new Headers();
  for (const [name, value] of Object.entries(reply.headers ?? {})) {
    if (value !== undefined && value !== null) headers.set(name, String(value));
  }
  if (reply.body === undefined) return new Response(null, { status: reply.status, headers });
  const media = route.mediaTypes.get(reply.status) ?? 'application/json';
  if (/json$/.test(media)) {
    headers.set('content-type', media);
    return new Response(JSON.stringify(reply.body), { status: reply.status, headers });
  }
  headers.set('content-type', `${media}; charset=utf-8`);
  return new Response(String(reply.body), { status: reply.status, headers });
}
