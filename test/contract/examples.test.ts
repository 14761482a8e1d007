// The contract itself: the split spec's file index, the bundle's operations and security, its error
// media types, and every response example validated against its schema.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { unzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  exampleCases,
  exampleValue,
  formatErrors,
  loadBundle,
  mediaCases,
  operations,
  repoRoot,
  responseCases,
  schemaValidator,
  type OpenApiDocument,
  type SecurityRequirement,
} from './bundle.js';

const bundle = loadBundle();
const validator = schemaValidator(bundle);

const contentOperationIds = [
  'listContentPosts',
  'getContentPost',
  'getContentPostBySlug',
  'listContentTags',
  'getAtomFeed',
  'getRssFeed',
  'getSitemap',
  'getMediaFile',
  'getContentPreview',
];
const expectedOperationIds = [
  'getHealth',
  'getReadiness',
  'login',
  'refreshTokens',
  'logout',
  'logoutAll',
  'getMe',
  'listPosts',
  'createPost',
  'bulkPosts',
  'getPost',
  'updatePost',
  'deletePost',
  'listRevisions',
  'getRevision',
  'getRevisionDiff',
  'restoreRevision',
  'exportPost',
  'exportSite',
  'importSite',
  'getSite',
  'listTags',
  'listActivity',
  'getStats',
  'renderPreview',
  'listMedia',
  'uploadMedia',
  'getMedia',
  'updateMedia',
  'deleteMedia',
  'listWebhooks',
  'createWebhook',
  'getWebhook',
  'updateWebhook',
  'deleteWebhook',
  'listWebhookDeliveries',
  'redeliverWebhookDelivery',
  'listPreviewLinks',
  'createPreviewLink',
  'revokePreviewLink',
  ...contentOperationIds,
];

const publicOperationIds = ['getHealth', 'getReadiness', 'login', 'refreshTokens', 'logout', ...contentOperationIds];

describe("the split spec's index (openapi/openapi.yaml)", () => {
  const specDir = `${repoRoot}openapi/`;
  const rootDoc = parse(readFileSync(`${specDir}openapi.yaml`, 'utf8')) as {
    paths: Record<string, { $ref?: string }>;
    components: Record<string, Record<string, { $ref?: string }>>;
  };
  const kinds = readdirSync(`${specDir}components`).filter((d) => statSync(`${specDir}components/${d}`).isDirectory());
  const filesOf = (dir: string): string[] => readdirSync(`${specDir}${dir}`).filter((f) => statSync(`${specDir}${dir}/${f}`).isFile());

  it('has the six component kinds as folders', () => {
    expect(kinds.sort()).toEqual(['examples', 'headers', 'parameters', 'requestBodies', 'responses', 'schemas']);
  });

  it.each(kinds)('lists every file under components/%s in the root under its file name', (kind) => {
    const listed = rootDoc.components[kind] ?? {};
    const unlisted = filesOf(`components/${kind}`).filter((file) => {
      const name = file.replace(/\.yaml$/, '');
      return !file.endsWith('.yaml') || listed[name]?.$ref !== `components/${kind}/${file}`;
    });
    expect(unlisted, `files not indexed as components.${kind}.<FileName>: $ref: components/${kind}/<FileName>.yaml`).toEqual([]);
  });

  it.each(kinds)('points every components.%s entry of the root at an existing file named after it', (kind) => {
    const listed = Object.entries(rootDoc.components[kind] ?? {});
    expect(listed.length).toBeGreaterThan(0);
    const wrong = listed
      .filter(([name, entry]) => entry.$ref !== `components/${kind}/${name}.yaml` || !existsSync(`${specDir}${entry.$ref}`))
      .map(([name, entry]) => `${name}: ${entry.$ref ?? '(inline)'}`);
    expect(wrong).toEqual([]);
  });

  it('references every file under paths/ from the root', () => {
    const referenced = new Set(Object.values(rootDoc.paths).map((item) => item.$ref));
    expect(filesOf('paths').filter((file) => !referenced.has(`paths/${file}`))).toEqual([]);
  });

  it('points every root path at an existing file named after the URL path', () => {
    const wrong = Object.entries(rootDoc.paths)
      .filter(([path, item]) => {
        const expected = `paths/${path.slice(1).replaceAll('/', '_')}.yaml`;
        return item.$ref !== expected || !existsSync(`${specDir}${expected}`);
      })
      .map(([path, item]) => `${path}: ${item.$ref ?? '(inline)'}`);
    expect(wrong).toEqual([]);
  });
});

describe("the bundle's operations (generated/openapi.json)", () => {
  const ops = operations(bundle);

  it('has exactly the 49 operations of v1 (40 admin, 9 content), each operationId once', () => {
    const ids = ops.map((op) => op.operationId);
    expect(ids).toHaveLength(49);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual([...expectedOperationIds].sort());
  });

  it('requires the bearer token globally', () => {
    expect(bundle.security).toEqual([{ bearerAuth: [] }]);
    expect(bundle.components.securitySchemes?.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  it('protects every operation but health, readiness, login, refresh, logout and the Content API with the bearer token', () => {
    const effective = (security: SecurityRequirement[] | undefined): SecurityRequirement[] => security ?? bundle.security ?? [];
    // An operation is public when one of its alternatives needs nothing (no requirement, or `{}`).
    const isPublic = (security: SecurityRequirement[]): boolean =>
      security.length === 0 || security.some((requirement) => Object.keys(requirement).length === 0);
    const publicIds = ops.filter((op) => isPublic(effective(op.operation.security))).map((op) => op.operationId);
    expect(publicIds.sort()).toEqual([...publicOperationIds].sort());
    for (const op of ops.filter((o) => !publicIds.includes(o.operationId))) {
      expect(effective(op.operation.security), op.operationId).toEqual([{ bearerAuth: [] }]);
    }
  });

  const errorResponses = responseCases(bundle).filter((r) => /^[45]/.test(r.status));

  it('declares error responses', () => {
    expect(errorResponses.length).toBeGreaterThan(ops.length);
  });

  /** The one error a person opens in a browser: a preview link that no longer works is also an HTML page (by `Accept`). */
  const ALSO_HTML = new Set(['getContentPreview 404']);

  it.each(errorResponses.map((r) => [r.label, r] as const))('serves %s as application/problem+json only', (label, r) => {
    expect(Object.keys(r.response.content ?? {})).toEqual(
      ALSO_HTML.has(label) ? ['application/problem+json', 'text/html'] : ['application/problem+json'],
    );
  });

  it('declares the 400 malformed-request problem on every operation, with a named example of it', () => {
    const missing = ops.filter((op) => op.operation.responses?.['400'] === undefined).map((op) => op.operationId);
    expect(missing, 'operations without a 400').toEqual([]);
    const withoutExample = ops
      .filter(
        (op) =>
          !exampleCases(bundle).some((c) => c.operationId === op.operationId && c.status === '400' && c.name === 'InvalidRequestTarget'),
      )
      .map((op) => op.operationId);
    expect(withoutExample, 'operations whose 400 lacks the InvalidRequestTarget example').toEqual([]);
  });

  const preconditionFailed = exampleCases(bundle).filter((c) => c.status === '412');

  it('declares 412 with examples on updatePost, deletePost and restoreRevision', () => {
    expect([...new Set(preconditionFailed.map((c) => c.operationId))].sort()).toEqual(['deletePost', 'restoreRevision', 'updatePost']);
  });

  it.each(preconditionFailed.map((c) => [c.label, c] as const))('carries the current post in %s', (_, c) => {
    const value = c.example.value as { current?: unknown };
    expect(value.current).toBeTypeOf('object');
    expect(validator.errors({ $ref: '#/components/schemas/Post' }, value.current)).toEqual([]);
  });
});

describe('every response example (generated/openapi.json)', () => {
  const media = mediaCases(bundle);

  it('finds response bodies to check', () => {
    expect(media.length).toBeGreaterThan(operations(bundle).length);
  });

  it.each(media.map((m) => [m.label, m] as const))(
    'gives %s named examples, each a $ref to the example component of the same name',
    (_, m) => {
      const examples = Object.entries(m.media.examples ?? {});
      expect(examples.length).toBeGreaterThan(0);
      for (const [name, example] of examples) {
        expect(example, name).toEqual({ $ref: `#/components/examples/${name}` });
      }
    },
  );

  it.each(exampleCases(bundle).map((c) => [c.label, c] as const))('validates %s against its schema', (_, c) => {
    expect(c.media.schema, 'the media type has a schema').toBeDefined();
    expect(c.example.externalValue, 'examples are inline values').toBeUndefined();
    expect(c.example, 'the example has a value').toHaveProperty('value');
    const errors = validator.errors(c.media.schema, c.example.value);
    expect(errors, formatErrors(errors)).toEqual([]);
  });
});

describe('the site export example (SiteExportFlat)', () => {
  it('is a real archive: its string is the zip byte for byte, and its manifest lists each file with its size and SHA-256', () => {
    const text = exampleValue(bundle, 'SiteExportFlat') as string;
    // Every character is one byte below 0x80, so the mock's UTF-8 answer is these bytes exactly.
    expect([...text].every((c) => c.charCodeAt(0) < 0x80)).toBe(true);
    const entries = unzipSync(Uint8Array.from(text, (c) => c.charCodeAt(0)));
    const manifest = JSON.parse(Buffer.from(entries['manifest.json']!).toString('utf8')) as {
      format: string;
      counts: { posts: number };
      files: { path: string; bytes: number; sha256: string }[];
    };
    expect(manifest).toMatchObject({ format: 'margincms-export', version: 1, layout: 'flat', counts: { posts: 3 } });
    expect(Object.keys(entries).sort()).toEqual([...manifest.files.map((f) => f.path), 'manifest.json'].sort());
    for (const file of manifest.files) {
      expect(entries[file.path]!.byteLength).toBe(file.bytes);
      expect(createHash('sha256').update(entries[file.path]!).digest('hex')).toBe(file.sha256);
    }
  });
});

describe('the example validation itself', () => {
  const postSchema = { $ref: '#/components/schemas/Post' };

  it('rejects a post without id', () => {
    const { id: _id, ...withoutId } = exampleValue(bundle, 'PostDraft') as Record<string, unknown>;
    const errors = validator.errors(postSchema, withoutId);
    expect(errors.map((e) => e.params)).toContainEqual({ missingProperty: 'id' });
  });

  it('rejects a timestamp without milliseconds and a malformed ULID', () => {
    const post = { ...(exampleValue(bundle, 'PostDraft') as object), createdAt: '2026-11-28T09:14:03Z', id: 'not-a-ulid' };
    const paths = validator.errors(postSchema, post).map((e) => e.instancePath);
    expect(paths).toContain('/createdAt');
    expect(paths).toContain('/id');
  });

  it('rejects a 412 problem whose current is not a full post', () => {
    const problem = structuredClone(exampleValue(bundle, 'PreconditionFailed')) as { current: Record<string, unknown> };
    delete problem.current.version;
    const errors = validator.errors({ $ref: '#/components/schemas/PreconditionFailedProblem' }, problem);
    expect(errors.map((e) => `${e.instancePath} ${JSON.stringify(e.params)}`)).toContain('/current {"missingProperty":"version"}');
  });

  it('flags exactly the responses that use an example broken in a scratch copy of the bundle', () => {
    const scratch = structuredClone(bundle) as OpenApiDocument;
    const postDraft = scratch.components.examples?.PostDraft as { value: Record<string, unknown> };
    delete postDraft.value.id;
    const scratchValidator = schemaValidator(scratch);
    const failing = exampleCases(scratch)
      .filter((c) => scratchValidator.errors(c.media.schema, c.example.value).length > 0)
      .map((c) => c.label);
    const usingPostDraft = exampleCases(bundle)
      .filter((c) => c.name === 'PostDraft')
      .map((c) => c.label);
    expect(usingPostDraft.length).toBeGreaterThan(0);
    expect(failing).toEqual(usingPostDraft);
  });
});
