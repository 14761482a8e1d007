// The Prism mock of the bundle behaves as openapi/README.md promises front-end developers:
// `Prefer: code=` and `Prefer: example=` pick responses and examples, bodies are validated, and the
// bearer security is enforced.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderMarkdown } from '../../src/adapters/http/content/markdown-html.js';
import { createMemoryStore } from '../../src/adapters/memory/store.js';
import { testServer, url } from '../support/http.js';
import { startPrism, type PrismMock } from '../support/prism.js';
import { exampleValue, formatErrors, loadBundle, schemaValidator } from './bundle.js';

const bundle = loadBundle();
const validator = schemaValidator(bundle);
const postSchema = { $ref: '#/components/schemas/Post' };

const postId = '01JDQ8Z4M6X2V7K9T3N5R8W1YB';
const auth = { Authorization: 'Bearer test' };
const validCreate = { title: 'Hello, margin', body: '# Hello\n', tags: ['markdown'] };
const validUpdate = { title: 'Renamed' };
const prismNotFound = 'https://stoplight.io/prism/errors#NOT_FOUND';

let prism: PrismMock | undefined;

beforeAll(async () => {
  prism = await startPrism();
}, 60_000);

afterAll(async () => {
  await prism?.stop();
});

interface Answer {
  status: number;
  contentType: string;
  headers: Headers;
  body: unknown;
}

async function call(method: string, path: string, options: { headers?: Record<string, string>; body?: unknown } = {}): Promise<Answer> {
  if (prism === undefined) throw new Error('Prism did not start');
  const headers: Record<string, string> = { ...options.headers };
  if (options.body !== undefined) headers['Content-Type'] = 'application/json';
  const response = await fetch(`${prism.baseUrl}${path}`, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await response.text();
  const contentType = response.headers.get('content-type') ?? '';
  return {
    status: response.status,
    contentType,
    headers: response.headers,
    body: /json/.test(contentType) && text !== '' ? (JSON.parse(text) as unknown) : text,
  };
}

const createPost = (headers: Record<string, string> = {}, body: unknown = validCreate): Promise<Answer> =>
  call('POST', '/posts', { headers: { ...auth, ...headers }, body });
const getPost = (headers: Record<string, string> = {}): Promise<Answer> =>
  call('GET', `/posts/${postId}`, { headers: { ...auth, ...headers } });
const updatePost = (headers: Record<string, string> = {}, body: unknown = validUpdate): Promise<Answer> =>
  call('PATCH', `/posts/${postId}`, { headers: { ...auth, ...headers }, body });

/** A readable failure message: the status, content type and body of an answer. */
function about(answer: Answer): string {
  return `${answer.status} ${answer.contentType}: ${JSON.stringify(answer.body)}`;
}

describe('the Prism mock, Prefer: code', () => {
  it('answers updatePost code=412 with the precondition-failed problem carrying the current post', async () => {
    const answer = await updatePost({ Prefer: 'code=412' });
    expect(answer.status, about(answer)).toBe(412);
    expect(answer.contentType).toMatch(/^application\/problem\+json/);
    const body = answer.body as { type: string; status: number; current: unknown };
    expect(body.type).toMatch(/precondition-failed$/);
    expect(body.status).toBe(412);
    const errors = validator.errors(postSchema, body.current);
    expect(errors, formatErrors(errors)).toEqual([]);
    expect(body).toEqual(exampleValue(bundle, 'PreconditionFailed'));
    expect(answer.headers.get('etag')).toMatch(/^"\d+"$/);
  });

  // Prism does not fall back to another response for a code the operation does not declare: it
  // answers its own 404 problem. It must never make up a 412 with `current`.
  it.each([
    ['getPost', () => getPost({ Prefer: 'code=412' })],
    ['createPost', () => createPost({ Prefer: 'code=412' })],
  ] as const)("answers %s code=412, which it does not declare, with Prism's own 404 problem", async (_, send) => {
    const answer = await send();
    expect(answer.status, about(answer)).toBe(404);
    expect(answer.contentType).toMatch(/^application\/problem\+json/);
    const body = answer.body as Record<string, unknown>;
    expect(body.type).toBe(prismNotFound);
    expect(body.detail).toBe('Requested status code 412 is not defined in the document.');
    expect(body).not.toHaveProperty('current');
  });

  it.each([
    ['getPost', () => getPost({ Prefer: 'code=400' })],
    ['getHealth', () => call('GET', '/healthz', { headers: { Prefer: 'code=400' } })],
  ] as const)('answers %s code=400 with the InvalidRequestTarget problem every operation declares', async (_, send) => {
    const answer = await send();
    expect(answer.status, about(answer)).toBe(400);
    expect(answer.contentType).toMatch(/^application\/problem\+json/);
    expect(answer.body).toEqual(exampleValue(bundle, 'InvalidRequestTarget'));
  });

  it('answers updatePost code=428 with the IfMatchMissing example', async () => {
    const answer = await updatePost({ Prefer: 'code=428' });
    expect(answer.status, about(answer)).toBe(428);
    expect(answer.contentType).toMatch(/^application\/problem\+json/);
    expect(answer.body).toEqual(exampleValue(bundle, 'IfMatchMissing'));
  });
});

describe('the Prism mock, Prefer: example', () => {
  it('answers createPost example=PostPublished (its second example) with exactly that example', async () => {
    const answer = await createPost({ Prefer: 'example=PostPublished' });
    expect(answer.status, about(answer)).toBe(201);
    expect(answer.body).toEqual(exampleValue(bundle, 'PostPublished'));
  });

  it.each(['PostDraft', 'PostPublished'])('answers getPost example=%s with exactly that example', async (name) => {
    const answer = await getPost({ Prefer: `example=${name}` });
    expect(answer.status, about(answer)).toBe(200);
    expect(answer.body).toEqual(exampleValue(bundle, name));
  });

  it('answers updatePost example=PostPublished with exactly that example', async () => {
    const answer = await updatePost({ Prefer: 'example=PostPublished' });
    expect(answer.status, about(answer)).toBe(200);
    expect(answer.body).toEqual(exampleValue(bundle, 'PostPublished'));
  });

  it('combines code and example in one Prefer header: updatePost code=409, example=SlugTaken', async () => {
    const answer = await updatePost({ Prefer: 'code=409, example=SlugTaken' });
    expect(answer.status, about(answer)).toBe(409);
    expect(answer.contentType).toMatch(/^application\/problem\+json/);
    expect(answer.body).toEqual(exampleValue(bundle, 'SlugTaken'));
  });

  it('picks the named example of the chosen code: createPost code=409, example=IdempotencyKeyInFlight', async () => {
    const answer = await createPost({ Prefer: 'code=409, example=IdempotencyKeyInFlight' });
    expect(answer.status, about(answer)).toBe(409);
    expect(answer.body).toEqual(exampleValue(bundle, 'IdempotencyKeyInFlight'));
  });

  it("answers an unknown example name with Prism's own 404 problem", async () => {
    const answer = await getPost({ Prefer: 'example=NoSuchExample' });
    expect(answer.status, about(answer)).toBe(404);
    expect((answer.body as { type?: unknown }).type).toBe(prismNotFound);
  });
});

describe('the Prism mock, request validation', () => {
  // Prism alone answers 422 with the operation's first 422 example (ValidationFailed), whatever the
  // real violations, which it lists in its `sl-violations` header; scripts/mock.mjs writes those
  // violations as the server's ValidationProblem.
  it('answers createPost {"titel":"x"} with 422 naming /body/title is required and /body/titel is not an allowed property, as the server does', async () => {
    const answer = await createPost({}, { titel: 'x' });
    expect(answer.status, about(answer)).toBe(422);
    expect(answer.contentType).toMatch(/^application\/problem\+json/);
    const expected = {
      type: 'https://margincms.dev/problems/validation-failed',
      title: 'Validation failed',
      status: 422,
      detail: 'The request has 2 invalid fields.',
      instance: '/api/v1/posts',
      errors: [
        { pointer: '/body/title', message: 'is required' },
        { pointer: '/body/titel', message: 'is not an allowed property' },
      ],
    };
    expect(answer.body).toEqual(expected);
    const errors = validator.errors({ $ref: '#/components/schemas/ValidationProblem' }, answer.body);
    expect(errors, formatErrors(errors)).toEqual([]);

    const server = await testServer({ store: createMemoryStore() });
    const { accessToken } = await server.authedClient();
    const real = await server.app.fetch(
      new Request(url('/posts'), {
        method: 'POST',
        headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ titel: 'x' }),
      }),
    );
    expect(real.status).toBe(422);
    expect(await real.json()).toEqual(expected);
  });

  it.each([
    ['createPost, a tag of the wrong type and a status out of its enum', 'POST', '/posts', { title: 'x', tags: [1], status: 'nope' }],
    ['listPosts, a limit that is not an integer and a status out of its enum', 'GET', '/posts?limit=abc&status=zz', undefined],
    ['getPost, an id that is not a ULID', 'GET', '/posts/abc', undefined],
    ['updatePost, an empty body', 'PATCH', `/posts/${postId}`, {}],
  ] as const)('answers %s with the pointers the server gives (422)', async (_, method, path, body) => {
    const headers = { ...auth, 'If-Match': '*' };
    const answer = await call(method, path, { headers, ...(body === undefined ? {} : { body }) });
    expect(answer.status, about(answer)).toBe(422);
    const server = await testServer({ store: createMemoryStore() });
    const { accessToken } = await server.authedClient();
    const real = await server.app.fetch(
      new Request(url(path), {
        method,
        headers: { authorization: `Bearer ${accessToken}`, 'if-match': '*', 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
    );
    expect(real.status).toBe(422);
    const pointers = (problem: unknown) => (problem as { errors: { pointer: string }[] }).errors.map((e) => e.pointer).sort();
    expect(pointers(answer.body)).toEqual(pointers(await real.json()));
    expect((answer.body as { type?: string }).type).toBe('https://margincms.dev/problems/validation-failed');
  });

  it('answers an invalid createPost that asks for an example with that example (Prefer: example=ValidationFailed)', async () => {
    const answer = await createPost({ Prefer: 'example=ValidationFailed' }, { titel: 'x' });
    expect(answer.status, about(answer)).toBe(422);
    expect(answer.body).toEqual(exampleValue(bundle, 'ValidationFailed'));
  });

  it('rejects a createPost body that breaks the schema with 422', async () => {
    const answer = await createPost({}, { title: '', colour: 1 });
    expect(answer.status, about(answer)).toBe(422);
    expect(answer.contentType).toMatch(/^application\/problem\+json/);
    expect((answer.body as { type?: string }).type).toMatch(/validation-failed$/);
    const violations = answer.headers.get('sl-violations') ?? '';
    expect(violations).toContain('colour');
    expect(violations).toContain('minLength');
  });

  it('rejects an empty updatePost body (minProperties 1) with 422', async () => {
    const answer = await updatePost({}, {});
    expect(answer.status, about(answer)).toBe(422);
    expect(answer.contentType).toMatch(/^application\/problem\+json/);
    expect(answer.headers.get('sl-violations') ?? '').toContain('minProperties');
  });

  it('accepts publishAt without a fraction or with an offset, as RFC 3339 writes them (201 and 200)', async () => {
    for (const publishAt of ['2030-01-01T00:00:00Z', '2030-01-01T01:00:00+01:00', '2030-01-01T00:00:00.123456Z']) {
      const created = await createPost({}, { ...validCreate, publishAt });
      expect(created.status, about(created)).toBe(201);
      const updated = await updatePost({ 'If-Match': '"3"' }, { publishAt });
      expect(updated.status, about(updated)).toBe(200);
    }
  });

  it('accepts the valid bodies used above', async () => {
    expect((await createPost()).status).toBe(201);
    expect((await updatePost()).status).toBe(200);
  });
});

describe('the Prism mock, dynamic=true', () => {
  // Prism's faker honours ids, slugs, lengths and enums, but for a `format: date-time` string it
  // ignores the Timestamp `pattern` (it writes `8843-12-18T23:59:10.0Z`, one fractional digit), so a
  // dynamic Post never fully validates. Everything but the timestamps must.
  it('answers getPost with a generated post that breaks the Post schema only in its timestamps', async () => {
    const answer = await getPost({ Prefer: 'dynamic=true' });
    expect(answer.status, about(answer)).toBe(200);
    const post = answer.body as Record<string, unknown>;
    expect(post).toBeTypeOf('object');
    const required = [...(bundle.components.schemas?.Post as { required: string[] }).required].sort();
    expect(Object.keys(post).sort()).toEqual(required);
    expect(post).not.toEqual(exampleValue(bundle, 'PostDraft'));
    expect(post).not.toEqual(exampleValue(bundle, 'PostPublished'));
    const timestamps = ['/createdAt', '/updatedAt', '/publishedAt', '/publishAt'];
    const otherErrors = validator.errors(postSchema, post).filter((e) => !timestamps.includes(e.instancePath));
    expect(otherErrors, formatErrors(otherErrors)).toEqual([]);
  });
});

describe('the Prism mock, security', () => {
  it('answers getPost without Authorization with 401 and a Bearer challenge', async () => {
    const answer = await call('GET', `/posts/${postId}`);
    expect(answer.status, about(answer)).toBe(401);
    expect(answer.contentType).toMatch(/^application\/problem\+json/);
    expect(answer.headers.get('www-authenticate')).toMatch(/^Bearer\b/);
  });

  it('answers the public getHealth without Authorization', async () => {
    const answer = await call('GET', '/healthz');
    expect(answer.status, about(answer)).toBe(200);
    expect(answer.body).toEqual(exampleValue(bundle, 'HealthOk'));
  });
});

describe('the Prism mock, Content API', () => {
  const slugPath = '/content/posts/slug/cursor-pagination-without-tears';
  const contentPostSchema = { $ref: '#/components/schemas/ContentPost' };

  it('answers getContentPostBySlug without Authorization with the ContentPost example, valid against its schema', async () => {
    const answer = await call('GET', slugPath);
    expect(answer.status, about(answer)).toBe(200);
    expect(answer.body).toEqual(exampleValue(bundle, 'ContentPost'));
    const errors = validator.errors(contentPostSchema, answer.body);
    expect(errors, formatErrors(errors)).toEqual([]);
  });

  it('answers getContentPostBySlug example=ContentPostWithHtml with the rendered-HTML example', async () => {
    const answer = await call('GET', `${slugPath}?include=html`, { headers: { Prefer: 'example=ContentPostWithHtml' } });
    expect(answer.status, about(answer)).toBe(200);
    expect(answer.body).toEqual(exampleValue(bundle, 'ContentPostWithHtml'));
    expect((answer.body as { html?: unknown }).html).toBeTypeOf('string');
  });

  it('answers getContentPostBySlug code=404 with the ContentNotFound problem', async () => {
    const answer = await call('GET', slugPath, { headers: { Prefer: 'code=404' } });
    expect(answer.status, about(answer)).toBe(404);
    expect(answer.contentType).toMatch(/^application\/problem\+json/);
    expect(answer.body).toEqual(exampleValue(bundle, 'ContentNotFound'));
  });

  it('answers getContentPostBySlug code=304 with no body', async () => {
    const answer = await call('GET', slugPath, { headers: { Prefer: 'code=304' } });
    expect(answer.status, about(answer)).toBe(304);
    expect(answer.body).toBe('');
  });

  it.each([
    ['/content/feed.atom', 'application/atom+xml', 'AtomFeed'],
    ['/content/feed.rss', 'application/rss+xml', 'RssFeed'],
    ['/content/sitemap.xml', 'application/xml', 'Sitemap'],
  ] as const)('answers %s with the %s example as written', async (path, type, example) => {
    const answer = await call('GET', path);
    expect(answer.status, about(answer)).toBe(200);
    expect(answer.contentType.startsWith(type)).toBe(true);
    expect(answer.body).toBe(exampleValue(bundle, example));
  });
});

describe('the Prism mock, the examples of #13', () => {
  it('answers exportSite with the SiteExportFlat archive, byte for byte a zip that unzips', async () => {
    const response = await fetch(`${prism!.baseUrl}/export`, { headers: { ...auth, Prefer: 'example=SiteExportFlat' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/zip/);
    const bytes = new Uint8Array(await response.arrayBuffer());
    const expected = exampleValue(bundle, 'SiteExportFlat') as string;
    expect(Buffer.from(bytes).toString('latin1')).toBe(expected);
    const { unzipSync } = await import('fflate');
    expect(Object.keys(unzipSync(bytes))).toContain('manifest.json');
  });

  it.each([
    ['ImportDryRunHugo', 200, 'ImportReport'],
    ['ImportReimportUnchanged', 200, 'ImportReport'],
    ['ArchiveRefusedTraversal', 422, 'ArchiveRefusedProblem'],
    ['ArchiveRefusedZipBomb', 422, 'ArchiveRefusedProblem'],
  ] as const)('answers importSite, sent a zip, with the %s example (%i)', async (example, status, schema) => {
    const { zipSync } = await import('fflate');
    const response = await fetch(`${prism!.baseUrl}/import?mode=dry-run`, {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/zip', Prefer: `code=${status}, example=${example}` },
      body: zipSync({ 'hello.md': new TextEncoder().encode('---\ntitle: Hello\n---\nWorld\n') }),
    });
    expect(response.status).toBe(status);
    const body = (await response.json()) as unknown;
    expect(body).toEqual(exampleValue(bundle, example));
    expect(formatErrors(validator.errors({ $ref: `#/components/schemas/${schema}` }, body))).toBe('');
  });

  it('answers getRevisionDiff with the RevisionDiffAgainstCurrent example', async () => {
    const answer = await call('GET', `/posts/${postId}/revisions/1/diff`, {
      headers: { ...auth, Prefer: 'example=RevisionDiffAgainstCurrent' },
    });
    expect(answer.status, about(answer)).toBe(200);
    expect(answer.body).toEqual(exampleValue(bundle, 'RevisionDiffAgainstCurrent'));
    expect(formatErrors(validator.errors({ $ref: '#/components/schemas/RevisionDiff' }, answer.body))).toBe('');
  });
});

describe('the Prism mock, what the admin sees over it (#30)', () => {
  it('answers updatePost with the draft getPost answers, one version higher, and an ETag of that version', async () => {
    const before = await getPost();
    const after = await updatePost({ 'If-Match': before.headers.get('etag') ?? '*' });
    expect(after.status, about(after)).toBe(200);
    const { version, updatedAt: _updated, ...rest } = after.body as Record<string, unknown>;
    const { version: previous, updatedAt: _previousUpdate, ...draft } = before.body as Record<string, unknown>;
    expect(rest).toEqual(draft);
    expect(version).toBe((previous as number) + 1);
    expect(after.headers.get('etag')).toBe(`"${String(version)}"`);
    expect(formatErrors(validator.errors(postSchema, after.body))).toBe('');
  });

  it('answers renderPreview with the body of the draft getPost answers, rendered as the server renders it', async () => {
    const draft = (await getPost()).body as { body: string };
    const answer = await call('POST', '/preview', { headers: auth, body: { body: draft.body } });
    expect(answer.status, about(answer)).toBe(200);
    expect(answer.body).toEqual({ html: renderMarkdown(draft.body) });
  });
});
