import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { API_ROOT } from '../../src/adapters/http/contract.js';

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv2020) => Ajv2020;

type Json = Record<string, any>;
const BUNDLE_ID = 'urn:margin:bundle';

export class ContractViolation extends Error {
  constructor(
    readonly request: string,
    readonly problems: string[],
  ) {
    super(`${request} answered outside the contract:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ContractViolation';
  }
}

interface OperationEntry {
  method: string;
  path: string;
  pattern: RegExp;
  operation: Json;
}

export interface ValidatingFetchOptions {
  /** Accept 501 problem+json from operations that are specified but not built yet. */
  allowNotImplemented?: boolean;
}

/**
 * Wraps a fetch-like target (the app's `fetch`, or real `fetch` against a server) so that every
 * response is checked against the bundle: the status is declared for the operation, declared
 * required headers are present and valid, the content type is the declared one and the body
 * validates against its schema. Routes outside any operation (404, 405) must be problem+json.
 * Any drift throws `ContractViolation`, failing the test that made the request.
 */
export function createValidatingFetch(
  document: Json,
  target: (request: Request) => Response | Promise<Response>,
  options: ValidatingFetchOptions = {},
): typeof fetch {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema({ ...document, $id: BUNDLE_ID });
  const cache = new Map<string, ValidateFunction>();
  const compile = (key: string, schema: unknown): ValidateFunction => {
    let validate = cache.get(key);
    if (!validate) {
      const rewritten = JSON.parse(JSON.stringify(schema).replaceAll('"$ref":"#/', `"$ref":"${BUNDLE_ID}#/`));
      validate = ajv.compile(rewritten);
      cache.set(key, validate);
    }
    return validate;
  };
  const deref = (node: Json): Json => {
    let current = node;
    while (current && typeof current.$ref === 'string') {
      current = current.$ref
        .slice(2)
        .split('/')
        .map((s: string) => s.replaceAll('~1', '/').replaceAll('~0', '~'))
        .reduce((acc: Json, key: string) => acc[key], document);
    }
    return current;
  };

  const operations: OperationEntry[] = [];
  for (const [path, item] of Object.entries(document.paths as Json)) {
    for (const [method, operation] of Object.entries(item as Json)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      const pattern = new RegExp(`^${API_ROOT}${path.replace(/\{[^}]+\}/g, '[^/]+')}$`);
      operations.push({ method: method.toUpperCase(), path, pattern, operation: operation as Json });
    }
  }
  // Static paths first, like the server's router.
  operations.sort((a, b) => (a.path.includes('{') ? 1 : 0) - (b.path.includes('{') ? 1 : 0));

  const problemSchema = { $ref: '#/components/schemas/Problem' };

  return (async (input: string | URL | Request, init?: RequestInit) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    const method = request.method === 'HEAD' ? 'GET' : request.method;
    const label = `${request.method} ${url.pathname}${url.search}`;
    const response = await target(request);
    const text = await response.clone().text();
    const problems: string[] = [];
    const contentType = (response.headers.get('content-type') ?? '').split(';')[0]!.trim();
    let declaredOtherType = false;

    const validateBody = (key: string, schema: unknown) => {
      let body: unknown = text;
      if (/json$/.test(contentType)) {
        try {
          body = JSON.parse(text);
        } catch {
          problems.push(`body is not JSON: ${text.slice(0, 200)}`);
          return;
        }
      }
      const validate = compile(key, schema);
      if (!validate(body)) {
        problems.push(`body does not match the schema: ${ajv.errorsText(validate.errors, { dataVar: 'body' })}`);
      }
    };

    const pathMatch = operations.find((o) => o.pattern.test(url.pathname));
    const entry = operations.find((o) => o.path === pathMatch?.path && o.method === method);
    if (!entry && method === 'OPTIONS' && pathMatch && response.status === 204) {
      // The conventions: OPTIONS on a path of the contract answers 204 with Allow and no body.
      if (!response.headers.get('allow')) problems.push('OPTIONS 204 without Allow');
      if (text.length > 0) problems.push('OPTIONS 204 with a body');
    } else if (!entry) {
      if (response.status !== 404 && response.status !== 405)
        problems.push(`status ${response.status} for a path/method outside the contract`);
      if (contentType !== 'application/problem+json') problems.push(`content type ${contentType} is not application/problem+json`);
      else validateBody('problem', problemSchema);
      if (response.status === 405 && !response.headers.get('allow')) problems.push('405 without Allow');
    } else {
      const declared = (entry.operation.responses ?? {}) as Json;
      const declaredResponse = declared[String(response.status)];
      if (!declaredResponse) {
        if (response.status === 501 && options.allowNotImplemented && contentType === 'application/problem+json') {
          validateBody('problem', problemSchema);
        } else {
          problems.push(
            `status ${response.status} is not declared for ${entry.operation.operationId} (declared: ${Object.keys(declared).join(', ')})`,
          );
        }
      } else {
        const resolved = deref(declaredResponse);
        for (const [name, header] of Object.entries((resolved.headers ?? {}) as Json)) {
          const h = deref(header as Json);
          const value = response.headers.get(name);
          if (value === null) {
            if (h.required) problems.push(`required header ${name} is missing`);
            continue;
          }
          const schema = h.schema as Json;
          const typed = schema?.type === 'integer' || schema?.type === 'number' ? Number(value) : value;
          const validate = compile(`header:${entry.operation.operationId}:${response.status}:${name}`, schema);
          if (!validate(typed)) problems.push(`header ${name}: ${value} ${ajv.errorsText(validate.errors)}`);
        }
        const content = resolved.content as Json | undefined;
        if (!content) {
          if (text.length > 0) problems.push(`a body was sent where none is declared: ${text.slice(0, 200)}`);
        } else if (request.method !== 'HEAD') {
          const media = content[contentType];
          if (!media) problems.push(`content type "${contentType}" is not one of ${Object.keys(content).join(', ')}`);
          else {
            validateBody(`${entry.operation.operationId}:${response.status}:${contentType}`, media.schema);
            declaredOtherType = contentType !== 'application/problem+json';
          }
        }
      }
    }
    // An error is problem+json, but where the contract declares another type for it too (the
    // HTML page of a dead preview link, for browsers).
    if (response.status >= 400 && contentType !== 'application/problem+json' && !declaredOtherType) {
      problems.push(`error status ${response.status} with content type ${contentType}`);
    }
    if (problems.length > 0) throw new ContractViolation(label, problems);
    return response;
  }) as typeof fetch;
}
