import type { Context } from 'hono';
import { accepts } from 'hono/accepts';
import type { ErrorObject } from 'ajv';
import { bearerToken } from './bearer.js';
import { clientAddressOf, originOf, pathOf, queryOf, requestIdOf, type Env } from './context.js';
import type { Contract, Route } from './contract.js';
import { BinaryBody } from './binary-body.js';
import { isCompressible } from './compression.js';
import { fieldMessage } from './field-messages.js';
import { HttpProblem } from './problem.js';
import { JsonText } from './json-text.js';
import type { HandlerRegistry, ImageUpload, Principal } from './registry.js';
import { baseHeaders, respond, withoutVaryOn } from './response-headers.js';
import { stageImageBody, stageImageForm, type ReadUpload, type UploadLimits } from './upload-body.js';

export interface DispatchOptions {
  contract: Contract;
  handlers: HandlerRegistry;
  /** Verifies a bearer token; throws `InvalidTokenError` when it is not acceptable. */
  authenticate: (token: string) => Promise<Principal>;
  /** Throws (an `UnavailableError`) while operations but health and readiness must not be served. */
  admit?: () => void;
  trustProxy: boolean;
  /** Whether the observers are told of answers: then the route and principal are kept on the context. */
  observed: boolean;
  /** Where an image upload is staged as it arrives, and its limits. */
  uploads: UploadLimits;
}

/** Answers a request to one operation. */
export type Dispatch = (route: Route, c: Context<Env>) => Promise<Response>;

/** The reply of a handler, before it becomes an answer. */
interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, unknown>;
}

/**
 * Answers an operation: admits it, requires its bearer token, reads and validates its input
 * against the contract, calls its handler and makes the reply an answer of the declared media type.
 */
export function createDispatch(options: DispatchOptions): Dispatch {
  const { contract, handlers, observed } = options;
  const addressOf = (c: Context<Env>) => clientAddressOf(c, options.trustProxy);
  const ownOrigin = (c: Context<Env>) => originOf(c, options.trustProxy);
  return async (route, c) => {
    const request = c.req.raw;
    if (observed) c.set('route', route);
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
      principal = await options.authenticate(bearerToken(headers['authorization']));
      if (observed) c.set('principal', principal);
    }

    // A zip is handed to the handler as bytes, an image staged in a file it is removed from once
    // answered; the schema of a binary body has nothing to check.
    if (route.bodyType !== 'image') return answer(route, c, headers, principal, await readBody(route, request));
    const upload = await readImageBody(route, request, options.uploads);
    try {
      return await answer(route, c, headers, principal, { ...upload.texts, file: upload.file });
    } finally {
      await upload.file.remove();
    }
  };

  /** Validates the input read and answers with the handler's reply. */
  async function answer(route: Route, c: Context<Env>, headers: Record<string, string>, principal: Principal | null, body: unknown) {
    const request = c.req.raw;
    const path = pathOf(request.url);
    const result = contract.validateRequest(route, {
      params: c.req.param() as Record<string, string>,
      query: parseQuery(queryOf(request.url)),
      headers,
      body: validatedPartOf(route, body),
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
      addressOf,
      ownOrigin,
    );
    const handler = handlers[route.operationId] as unknown as (request: ValidatedRequest) => Promise<Reply>;
    return toResponse(route, path, await handler(input));
  }
}

/**
 * A validated request as handlers receive it (`RequestOf` of its operation). A class rather than
 * an object literal on purpose: getters in a literal are new closures for every request, so each
 * request object gets a hidden class of its own, and V8 keeps those in old space together with
 * what the closures hold (the Context, and through it the request and the answer); every request
 * then survives the young-generation collections. The prototype's getters are shared.
 */
class ValidatedRequest {
  readonly #context: Context<Env>;
  readonly #addressOf: (c: Context<Env>) => string;
  readonly #originOf: (c: Context<Env>) => string;

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
    origin: (c: Context<Env>) => string,
  ) {
    this.#context = context;
    this.#addressOf = addressOf;
    this.#originOf = origin;
  }

  get requestId(): string {
    return requestIdOf(this.#context);
  }

  get clientAddress(): string {
    return this.#addressOf(this.#context);
  }

  prefers<T extends string>(supported: readonly T[], fallback: T): T {
    return accepts(this.#context, { header: 'Accept', supports: [...supported], default: fallback }) as T;
  }

  get origin(): string {
    return this.#originOf(this.#context);
  }
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

/**
 * What of a body its schema checks: a JSON body whole; of an image upload its text parts (the
 * form's schema less its binary `file`, which openapi-backend leaves out of the required); of a
 * zip nothing.
 */
function validatedPartOf(route: Route, body: unknown): unknown {
  if (route.bodyType === 'json') return body;
  if (route.bodyType !== 'image') return undefined;
  const { file: _bytes, ...texts } = body as ImageUpload;
  return texts;
}

function readBody(route: Route, request: Request): Promise<unknown> {
  switch (route.bodyType) {
    case 'zip':
      return readZipBody(request);
    case 'json':
      return readJsonBody(request);
    default:
      return Promise.resolve(undefined);
  }
}

/** The media type of a Content-Type header, lowercased, without its parameters ('' when absent). */
function mediaTypeOf(contentType: string | null): string {
  return (contentType ?? '').split(';', 1)[0]!.trim().toLowerCase();
}

/**
 * An image upload: the raw body sent with one of the declared image types, or the `file` part of
 * a `multipart/form-data` form (with its other parts), staged in a file as it arrives. The
 * declared type only picks how the body is read: what the bytes are is the image processor's to
 * find out.
 */
function readImageBody(route: Route, request: Request, limits: UploadLimits): Promise<ReadUpload> {
  const type = mediaTypeOf(request.headers.get('content-type'));
  if (type === 'multipart/form-data') return stageImageForm(request, limits);
  if (type.startsWith('image/') && route.bodyMediaTypes.has(type)) return stageImageBody(request.body, limits);
  const accepted = [...route.bodyMediaTypes].join(', ');
  throw new HttpProblem(
    415,
    'unsupported-media-type',
    `Send the image as the request body with its type as Content-Type, or as the file part of a form; accepted: ${accepted}.`,
  );
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

/**
 * Every failing field, as JSON pointers into the request (`/body/title`, `/query/limit`, …), each
 * error in words (`fieldMessage`). An empty value says only that: its pattern failing as well is
 * no news. The detail counts the fields, not the errors.
 */
function validationProblem(errors: ErrorObject[]): HttpProblem {
  const fieldErrors: { pointer: string; message: string }[] = [];
  const meaningful = errors.some((e) => e.keyword !== 'oneOf' && e.keyword !== 'anyOf')
    ? errors.filter((e) => e.keyword !== 'oneOf' && e.keyword !== 'anyOf')
    : errors;
  for (const error of meaningful) {
    let pointer = error.instancePath.replace(/^\/requestBody/, '/body').replace(/^\/header(?=\/|$)/, '/headers');
    if (pointer === '') pointer = '/body';
    let message = fieldMessage(error);
    const params = error.params as Record<string, unknown>;
    if (error.keyword === 'required' && typeof params.missingProperty === 'string') {
      pointer += `/${params.missingProperty}`;
      message = 'is required';
    } else if (error.keyword === 'additionalProperties' && typeof params.additionalProperty === 'string') {
      pointer += `/${params.additionalProperty}`;
      message = 'is not an allowed property';
    }
    fieldErrors.push({ pointer, message });
  }
  const empty = new Set(fieldErrors.filter((e) => e.message === EMPTY).map((e) => e.pointer));
  const seen = new Set<string>();
  const kept = fieldErrors.filter(({ pointer, message }) => {
    const key = `${pointer}\u0000${message}`;
    if (seen.has(key) || (empty.has(pointer) && message !== EMPTY)) return false;
    seen.add(key);
    return true;
  });
  const count = new Set(kept.map((e) => e.pointer)).size;
  return new HttpProblem(422, 'validation-failed', `The request has ${count} invalid field${count === 1 ? '' : 's'}.`, {
    errors: kept,
  });
}

/** `fieldMessage` of a `minLength: 1` string left empty. */
const EMPTY = fieldMessage({ keyword: 'minLength', params: { limit: 1 } });

function toResponse(route: Route, path: string, reply: Reply): Response {
  const headers: Record<string, string> = { ...baseHeaders(path) };
  const given = reply.headers;
  if (given !== undefined) {
    for (const name in given) {
      const value = given[name];
      if (value !== undefined && value !== null) headers[name.toLowerCase()] = String(value);
    }
  }
  if (reply.body === undefined) return respond(null, reply.status, headers);
  if (reply.body instanceof BinaryBody) {
    headers['content-type'] = reply.body.contentType;
    // A media file is sent as it is, whatever the client accepts (compression.ts).
    if (!isCompressible(reply.body.contentType)) withoutVaryOn(headers, 'accept-encoding');
    return respond(reply.body.bytes, reply.status, headers);
  }
  const media = route.mediaTypes.get(reply.status) ?? 'application/json';
  if (reply.body instanceof ReadableStream) {
    // Streamed as it is produced: chunked, no Content-Length.
    headers['content-type'] = media;
    return new Response(reply.body, { status: reply.status, headers });
  }
  if (media.endsWith('json')) {
    headers['content-type'] = media;
    return respond(reply.body instanceof JsonText ? reply.body.text : JSON.stringify(reply.body), reply.status, headers);
  }
  headers['content-type'] = `${media}; charset=utf-8`;
  return respond(String(reply.body), reply.status, headers);
}
