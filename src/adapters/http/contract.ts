import { readFileSync } from 'node:fs';
import type { ErrorObject, Options as AjvOptions, ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { OpenAPIBackend, type Operation } from 'openapi-backend';
import { BUNDLE_FILE } from '../../paths.js';
import type { OperationId } from './registry.js';

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv2020) => Ajv2020;

/** The contract's Ajv: JSON Schema 2020-12 with the formats, for every validation against the bundle. */
function ajvOf(options: AjvOptions): Ajv2020 {
  const ajv = new Ajv2020(options);
  addFormats(ajv);
  return ajv;
}

export const API_ROOT = '/api/v1';

type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** One operation of the bundle, resolved once at start-up. */
export interface Route {
  operationId: OperationId;
  method: HttpMethod;
  /** The spec path, e.g. `/posts/{id}`. */
  path: string;
  /** The same path in Hono's syntax under the API root, e.g. `/api/v1/posts/:id`. */
  honoPath: string;
  operation: Operation;
  /** Whether the operation requires the bearer token (its own `security`, else the document's). */
  requiresAuth: boolean;
  /** Health and readiness (tag `meta`): answered even while the server admits no other operation. */
  alwaysAdmitted: boolean;
  hasBody: boolean;
  /**
   * How the body is read: JSON; the raw bytes of a zip archive (`application/zip`); an image, as
   * the raw body with an image type or a `multipart/form-data` form (`image`); null without a body.
   */
  bodyType: 'json' | 'zip' | 'image' | null;
  /** The media types the request body is declared with (lowercase); empty without a body. */
  bodyMediaTypes: ReadonlySet<string>;
  /** The header parameters the operation declares, lowercased. */
  declaredHeaderNames: string[];
  /** The request headers the app reads for this operation: `authorization` and the declared ones. */
  headerNames: string[];
  /** Query parameters whose schema is an array: a single value is validated as a one-item list. */
  arrayQueryNames: ReadonlySet<string>;
  /** Whether the operation declares query parameters (if not, the query string is ignored). */
  takesQuery: boolean;
  /**
   * The query parameters the operation declares, when it is marked `x-ignore-unknown-query: true`
   * (the feeds, the sitemap): any other query key is dropped before validation, so it is neither a
   * 422 nor seen by the handler. Null on every other operation, where an undeclared key is a 422.
   */
  knownQueryOnly: ReadonlySet<string> | null;
  /** Whether the operation declares any parameter or a body: if not, there is nothing to validate. */
  takesInput: boolean;
  /** Path and query parameters whose values are integers (or lists of them): canonical decimal only. */
  integerParams: readonly { in: 'path' | 'query'; name: string }[];
  /** Media type of each declared response with a body, by status code. */
  mediaTypes: Map<number, string>;
}

/**
 * The contract at run time: the bundle, openapi-backend set up for OpenAPI 3.1 (Ajv 2020, every
 * error reported, coercion and defaults for parameters), and the route table. Built once in
 * `main.ts` (or once per test file) and passed to the app.
 */
export interface Contract {
  document: Record<string, unknown>;
  api: OpenAPIBackend;
  routes: Route[];
  /**
   * Checks the parts of a request against its operation with the validators openapi-backend
   * compiled from the bundle (parameters coerced and defaulted in place, as it does). An
   * operation's validators compile on its first request and are reused after.
   */
  validateRequest(route: Route, request: RequestParts): RequestValidation;
  /** The validator of the bundle's `#/components/schemas/<name>` (every error reported), compiled on its first use. */
  schemaValidator(name: string): ValidateFunction;
}

/** A request taken apart by the HTTP adapter: every value as received, decoded. */
interface RequestParts {
  params: Record<string, string>;
  /** A null-prototype object: a query key such as `__proto__` is just a key. */
  query: Record<string, string | string[]>;
  /** Lowercased names. */
  headers: Record<string, string>;
  /** The parsed JSON body; `undefined` when there was none. */
  body: unknown;
}

type RequestValidation =
  { valid: true; params: Record<string, unknown>; query: Record<string, unknown> } | { valid: false; errors: ErrorObject[] };

/** An integer as the spec accepts it in a path or query: decimal digits, no `+`, spaces or leading zeros. */
const CANONICAL_INTEGER = /^(?:0|-?[1-9][0-9]*)$/;

function nonCanonical(instancePath: string): ErrorObject {
  return {
    instancePath,
    schemaPath: '#/type',
    // A keyword of its own: its message is already in words (see field-messages.ts).
    keyword: 'canonicalInteger',
    params: { type: 'integer' },
    message: 'must be an integer in decimal digits (no +, spaces, leading zeros or 0x)',
  };
}

function bodyTypeOf(operation: Operation): Route['bodyType'] {
  const content = (operation.requestBody as { content?: Record<string, unknown> } | undefined)?.content;
  if (content === undefined) return null;
  if ('application/zip' in content) return 'zip';
  if ('multipart/form-data' in content || Object.keys(content).some((type) => type.startsWith('image/'))) return 'image';
  return 'json';
}

export function loadBundle(): Record<string, unknown> {
  return JSON.parse(readFileSync(BUNDLE_FILE, 'utf8')) as Record<string, unknown>;
}

interface ContractOptions {
  /**
   * Check every schema against the JSON Schema 2020-12 meta-schema and compile every operation's
   * validators now, failing on the first bad one. Off in the server: the bundle it loads is the
   * one `make lint` and the contract tests checked, and compiling the meta-schema would slow the
   * first request after a start (bench/NOTES.md). The contract tests turn it on.
   */
  verifySchemas?: boolean;
}

export async function loadContract(document: Record<string, unknown> = loadBundle(), options: ContractOptions = {}): Promise<Contract> {
  const verify = options.verifySchemas ?? false;
  const api = new OpenAPIBackend({
    definition: structuredClone(document) as never,
    apiRoot: API_ROOT,
    // Operation validators compile on each operation's first request, not at init.
    quick: true,
    validate: true,
    coerceTypes: true,
    ajvOpts: { allErrors: true, strict: false, useDefaults: true, validateSchema: verify },
    customizeAjv: (_original, ajvOpts) =>
      ajvOf({ ...ajvOpts, allErrors: true, strict: false, useDefaults: true, validateSchema: verify }) as never,
  });
  await api.init();
  if (verify) api.validator.preCompileRequestValidators();
  const globalSecurity = (document.security as unknown[] | undefined) ?? [];
  const operations = api.getOperations() as Operation[];
  const routes = operations.map((operation): Route => {
    const security = (operation.security as unknown[] | undefined) ?? globalSecurity;
    const mediaTypes = new Map<number, string>();
    for (const [status, response] of Object.entries(operation.responses ?? {})) {
      const content = (response as { content?: Record<string, unknown> }).content;
      const first = content ? Object.keys(content)[0] : undefined;
      if (first) mediaTypes.set(Number(status), first);
    }
    const parameters = (operation.parameters ?? []).map(
      (parameter) => parameter as { in?: string; name?: string; schema?: { type?: unknown; items?: { type?: unknown } } },
    );
    const declaredHeaderNames = parameters
      .filter((parameter) => parameter.in === 'header' && parameter.name !== undefined)
      .map((parameter) => parameter.name!.toLowerCase());
    return {
      operationId: operation.operationId as OperationId,
      method: operation.method as HttpMethod,
      path: operation.path,
      honoPath: API_ROOT + operation.path.replace(/\{([^}]+)\}/g, ':$1'),
      operation,
      requiresAuth: security.some((requirement) => Object.keys(requirement as object).length > 0),
      alwaysAdmitted: (operation.tags ?? []).includes('meta'),
      hasBody: operation.requestBody !== undefined,
      bodyType: bodyTypeOf(operation),
      bodyMediaTypes: new Set(
        Object.keys((operation.requestBody as { content?: Record<string, unknown> } | undefined)?.content ?? {}).map((type) =>
          type.toLowerCase(),
        ),
      ),
      declaredHeaderNames,
      headerNames: ['authorization', ...declaredHeaderNames],
      arrayQueryNames: new Set(
        parameters
          .filter((parameter) => parameter.in === 'query' && parameter.schema?.type === 'array')
          .map((parameter) => parameter.name!),
      ),
      takesQuery: parameters.some((parameter) => parameter.in === 'query'),
      knownQueryOnly:
        (operation as { 'x-ignore-unknown-query'?: unknown })['x-ignore-unknown-query'] === true
          ? new Set(parameters.filter((parameter) => parameter.in === 'query').map((parameter) => parameter.name!))
          : null,
      takesInput: parameters.length > 0 || operation.requestBody !== undefined,
      integerParams: parameters
        .filter((parameter) => parameter.in === 'path' || parameter.in === 'query')
        .filter((parameter) => parameter.schema?.type === 'integer' || parameter.schema?.items?.type === 'integer')
        .map((parameter) => ({ in: parameter.in as 'path' | 'query', name: parameter.name! })),
      mediaTypes,
    };
  });
  let schemas: Ajv2020 | undefined;
  return {
    document,
    api,
    routes,
    schemaValidator(name) {
      if (schemas === undefined) {
        schemas = ajvOf({ allErrors: true, strict: false, validateSchema: false });
        schemas.addSchema(document, 'bundle');
      }
      const validate = schemas.getSchema(`bundle#/components/schemas/${name}`);
      if (validate === undefined) throw new Error(`the bundle has no ${name} schema`);
      return validate;
    },
    validateRequest(route, request) {
      // Undeclared query keys, headers and path segments are ignored, so such a request is valid as it is.
      if (!route.takesInput) return { valid: true, params: {}, query: {} };
      const query: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
      if (route.takesQuery) {
        for (const name in request.query) {
          if (route.knownQueryOnly !== null && !route.knownQueryOnly.has(name)) continue;
          const value = request.query[name]!;
          query[name] = typeof value === 'string' && route.arrayQueryNames.has(name) ? [value] : value;
        }
      }
      // Ajv coerces ' 5', '+5', '0x10' and '5\n' to 5: only canonical decimal is let through to it.
      const errors: ErrorObject[] = [];
      for (const parameter of route.integerParams) {
        const raw = parameter.in === 'path' ? request.params[parameter.name] : query[parameter.name];
        if (raw === undefined) continue;
        if ((Array.isArray(raw) ? raw : [raw]).every((value) => typeof value === 'string' && CANONICAL_INTEGER.test(value))) continue;
        errors.push(nonCanonical(`/${parameter.in}/${parameter.name}`));
      }
      const parameters: Record<string, unknown> = { path: { ...request.params }, query, header: request.headers, cookie: {} };
      if (request.body !== undefined) parameters.requestBody = request.body;
      const reported = new Set(errors.map((error) => error.instancePath));
      for (const validate of api.validator.getRequestValidatorsForOperation(route.operationId) ?? []) {
        if (validate(parameters)) continue;
        for (const error of validate.errors ?? []) if (!reported.has(error.instancePath)) errors.push(error);
      }
      if (errors.length > 0) return { valid: false, errors };
      return { valid: true, params: parameters.path as Record<string, unknown>, query };
    },
  };
}
