// Reading the bundled contract (generated/openapi.json) for the contract tests: its operations,
// its response examples, and Ajv validators for its schemas.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ErrorObject, ValidateFunction } from 'ajv';
import ajvFormatsModule from 'ajv-formats';

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

// ajv-formats is CommonJS: depending on the loader the plugin is the module or its `default`.
const addFormats = ((ajvFormatsModule as unknown as { default?: unknown }).default ?? ajvFormatsModule) as unknown as (
  ajv: Ajv2020,
) => Ajv2020;

interface Ref {
  $ref: string;
}
interface ExampleObject {
  summary?: string;
  description?: string;
  value?: unknown;
  externalValue?: string;
}
interface MediaTypeObject {
  schema?: unknown;
  example?: unknown;
  examples?: Record<string, ExampleObject | Ref>;
}
interface ResponseObject {
  description?: string;
  headers?: Record<string, unknown>;
  content?: Record<string, MediaTypeObject>;
}
export type SecurityRequirement = Record<string, string[]>;
interface OperationObject {
  operationId?: string;
  security?: SecurityRequirement[];
  responses?: Record<string, ResponseObject | Ref>;
}
export interface OpenApiDocument {
  openapi: string;
  security?: SecurityRequirement[];
  paths: Record<string, Record<string, unknown>>;
  components: Record<string, Record<string, unknown>>;
}

export function loadBundle(): OpenApiDocument {
  return JSON.parse(readFileSync(`${repoRoot}generated/openapi.json`, 'utf8')) as OpenApiDocument;
}

const httpMethods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

export interface Operation {
  operationId: string;
  method: string;
  path: string;
  operation: OperationObject;
}

export function operations(doc: OpenApiDocument): Operation[] {
  const found: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    const pathItem = resolve<Record<string, unknown>>(doc, item);
    for (const method of httpMethods) {
      const operation = pathItem[method] as OperationObject | undefined;
      if (operation === undefined) continue;
      found.push({ operationId: operation.operationId ?? `${method} ${path}`, method, path, operation });
    }
  }
  return found;
}

function isRef(value: unknown): value is Ref {
  return typeof value === 'object' && value !== null && typeof (value as Ref).$ref === 'string';
}

/** Follows local `$ref`s (`#/...`) until it reaches a value that is not a reference. */
function resolve<T>(doc: OpenApiDocument, value: unknown): T {
  const seen = new Set<string>();
  let current = value;
  while (isRef(current)) {
    const ref = current.$ref;
    if (!ref.startsWith('#/')) throw new Error(`not a local $ref: ${ref}`);
    if (seen.has(ref)) throw new Error(`$ref cycle through ${ref}`);
    seen.add(ref);
    let target: unknown = doc;
    for (const raw of ref.slice(2).split('/')) {
      const key = decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~');
      if (typeof target !== 'object' || target === null || !(key in target)) {
        throw new Error(`$ref ${ref} does not resolve`);
      }
      target = (target as Record<string, unknown>)[key];
    }
    current = target;
  }
  return current as T;
}

export interface ResponseCase {
  /** `createPost 201`, how test names refer to it. */
  label: string;
  operationId: string;
  status: string;
  response: ResponseObject;
}

export function responseCases(doc: OpenApiDocument): ResponseCase[] {
  return operations(doc).flatMap(({ operationId, operation }) =>
    Object.entries(operation.responses ?? {}).map(([status, response]) => ({
      label: `${operationId} ${status}`,
      operationId,
      status,
      response: resolve<ResponseObject>(doc, response),
    })),
  );
}

export interface MediaCase extends ResponseCase {
  mediaType: string;
  media: MediaTypeObject;
}

/** Every media type of every response that has content. */
export function mediaCases(doc: OpenApiDocument): MediaCase[] {
  return responseCases(doc).flatMap((response) =>
    Object.entries(response.response.content ?? {}).map(([mediaType, media]) => ({
      ...response,
      label: `${response.label} ${mediaType}`,
      mediaType,
      media,
    })),
  );
}

export interface ExampleCase extends MediaCase {
  name: string;
  /** The `$ref` the media type used for this example, if any. */
  ref: string | undefined;
  example: ExampleObject;
}

/** Every named example of every response media type, `$ref`s resolved. */
export function exampleCases(doc: OpenApiDocument): ExampleCase[] {
  return mediaCases(doc).flatMap((media) =>
    Object.entries(media.media.examples ?? {}).map(([name, example]) => ({
      ...media,
      label: `${media.label} example ${name}`,
      name,
      ref: isRef(example) ? example.$ref : undefined,
      example: resolve<ExampleObject>(doc, example),
    })),
  );
}

/** The value of `components.examples.<name>`. */
export function exampleValue(doc: OpenApiDocument, name: string): unknown {
  return resolve<ExampleObject>(doc, { $ref: `#/components/examples/${name}` }).value;
}

const bundleId = 'urn:margin:bundle';

export interface SchemaValidator {
  /** The Ajv errors of `value` against `schema` (a schema from the bundle), or [] when it is valid. */
  errors(schema: unknown, value: unknown): ErrorObject[];
}

/**
 * Validators for schemas taken from `doc`: the whole document is added to Ajv as `urn:margin:bundle`
 * and each schema's `#/...` references are rewritten to point into it.
 */
export function schemaValidator(doc: OpenApiDocument): SchemaValidator {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema(doc as object, bundleId);
  const compiled = new Map<string, ValidateFunction>();
  return {
    errors(schema, value) {
      const rewritten = JSON.stringify(schema, (key, v: unknown) =>
        key === '$ref' && typeof v === 'string' && v.startsWith('#/') ? `${bundleId}${v}` : v,
      );
      let validate = compiled.get(rewritten);
      if (validate === undefined) {
        validate = ajv.compile(JSON.parse(rewritten) as object);
        compiled.set(rewritten, validate);
      }
      return validate(value) ? [] : [...(validate.errors ?? [])];
    },
  };
}

export function formatErrors(errors: ErrorObject[]): string {
  return errors.map((e) => `${e.instancePath || '/'} ${e.message ?? e.keyword} (${e.schemaPath})`).join('\n');
}
