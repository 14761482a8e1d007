import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { OpenAPIBackend, type Operation } from 'openapi-backend';
import type { OperationId } from './registry.js';

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as (ajv: Ajv2020) => Ajv2020;

export const API_ROOT = '/api/v1';
const BUNDLE_URL = new URL('../../../generated/openapi.json', import.meta.url);

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

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
  hasBody: boolean;
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
  /** Compiles every request validator now instead of on first use. */
  warm(): void;
  /**
   * Compiles the validators one operation per event-loop turn, so a server can listen at once and
   * still have them ready moments later (a request that arrives first compiles its own).
   */
  warmInBackground(): Promise<void>;
}

export function loadBundle(): Record<string, unknown> {
  return JSON.parse(readFileSync(BUNDLE_URL, 'utf8')) as Record<string, unknown>;
}

export async function loadContract(document: Record<string, unknown> = loadBundle()): Promise<Contract> {
  const api = new OpenAPIBackend({
    definition: structuredClone(document) as never,
    apiRoot: API_ROOT,
    quick: true,
    validate: true,
    coerceTypes: true,
    ajvOpts: { allErrors: true, strict: false, useDefaults: true },
    customizeAjv: (_original, ajvOpts) => {
      const ajv = new Ajv2020({ ...ajvOpts, allErrors: true, strict: false, useDefaults: true });
      addFormats(ajv);
      return ajv as never;
    },
  });
  await api.init();
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
    return {
      operationId: operation.operationId as OperationId,
      method: operation.method as HttpMethod,
      path: operation.path,
      honoPath: API_ROOT + operation.path.replace(/\{([^}]+)\}/g, ':$1'),
      operation,
      requiresAuth: security.some((requirement) => Object.keys(requirement as object).length > 0),
      hasBody: operation.requestBody !== undefined,
      mediaTypes,
    };
  });
  return {
    document,
    api,
    routes,
    warm() {
      for (const route of routes) api.validator.getRequestValidatorsForOperation(route.operationId);
    },
    async warmInBackground() {
      for (const route of routes) {
        await new Promise((resolve) => setImmediate(resolve));
        api.validator.getRequestValidatorsForOperation(route.operationId);
      }
    },
  };
}
