/**
 * Shared set-up of the HTTP tests of the post operations: one `testServer` per test over an empty
 * store, logged in as the admin, with a raw `send` (for malformed or hand-made requests) next to
 * the typed client. Every request goes through the contract-validating fetch.
 */
import { expect } from 'vitest';
import type { components } from '../../generated/api.js';
import type { Store, TransactionalRepositories } from '../../src/domain/index.js';
import { testServer, url, type TestServerOptions } from '../support/http.js';
import type { MakeStore } from '../support/stores.js';

export type ApiPost = components['schemas']['Post'];
export type CreateBody = components['schemas']['CreatePostRequest'];
export type ApiProblem = components['schemas']['Problem'] & Record<string, any>;

/** A well-formed ULID that no post has. */
export const UNKNOWN_ID = '01JDQ8Z4M6X2V7K9T3N5R8W1YB';
const PROBLEM_BASE = 'https://margincms.dev/problems/';

export interface SendInit {
  /** Sent as JSON with Content-Type: application/json. */
  body?: unknown;
  /** Sent as is, with Content-Type: application/json unless `headers` says otherwise. */
  raw?: string;
  headers?: Record<string, string>;
  /** Leave out the admin's bearer token. */
  anonymous?: boolean;
}

export interface SetupOptions extends Omit<TestServerOptions, 'store'> {
  /** Wraps the empty store before the server is composed over it (see `instrumented`). */
  wrap?: (store: Store) => Store;
}

export async function setup(make: MakeStore, options: SetupOptions = {}) {
  const { wrap, ...serverOptions } = options;
  const raw = await make();
  const store = wrap ? wrap(raw) : raw;
  // Tests that drive a clock move it by days: keep the admin's access token valid meanwhile.
  const server = await testServer({ store, ...(serverOptions.clock ? { accessTokenTtlSeconds: 365 * 86_400 } : {}), ...serverOptions });
  const { client: api, headers: auth } = await server.authedClient();

  function send(method: string, path: string, init: SendInit = {}): Promise<Response> {
    const hasBody = init.body !== undefined || init.raw !== undefined;
    return server.fetch(url(path), {
      method,
      headers: {
        ...(init.anonymous ? {} : auth),
        ...(hasBody ? { 'content-type': 'application/json' } : {}),
        ...init.headers,
      },
      ...(hasBody ? { body: init.raw ?? JSON.stringify(init.body) } : {}),
    });
  }

  /** Creates a post (201 expected) and returns it. */
  async function create(body: CreateBody, headers: Record<string, string> = {}): Promise<ApiPost> {
    const response = await send('POST', '/posts', { body, headers });
    expect(response.status, await peek(response)).toBe(201);
    return (await response.json()) as ApiPost;
  }

  /** A guarded PATCH with `If-Match: "<version>"` (200 expected); returns the post after it. */
  async function patch(id: string, version: number, body: Record<string, unknown>): Promise<ApiPost> {
    const response = await send('PATCH', `/posts/${id}`, { body, headers: { 'if-match': `"${version}"` } });
    expect(response.status, await peek(response)).toBe(200);
    return (await response.json()) as ApiPost;
  }

  async function getPost(id: string): Promise<ApiPost> {
    const response = await send('GET', `/posts/${id}`);
    expect(response.status).toBe(200);
    return (await response.json()) as ApiPost;
  }

  /** Every activity event, newest first, optionally for one post. */
  async function activity(postId?: string) {
    const response = await send('GET', `/activity?limit=100${postId ? `&postId=${postId}` : ''}`);
    expect(response.status).toBe(200);
    return ((await response.json()) as components['schemas']['ActivityPage']).items;
  }

  /** Every revision of a post (summaries), newest first. */
  async function revisions(id: string) {
    const response = await send('GET', `/posts/${id}/revisions?limit=100`);
    expect(response.status).toBe(200);
    return ((await response.json()) as components['schemas']['RevisionPage']).items;
  }

  /** Every post (summaries) in the default order. */
  async function allPosts() {
    const response = await send('GET', '/posts?limit=100');
    expect(response.status).toBe(200);
    return (await response.json()) as components['schemas']['PostPage'];
  }

  return { ...server, store, api, auth, send, create, patch, getPost, activity, revisions, allPosts };
}

export type Setup = Awaited<ReturnType<typeof setup>>;

/** The body text, for assertion messages; leaves the response readable. */
export async function peek(response: Response): Promise<string> {
  return `${response.status} ${await response.clone().text()}`;
}

/** Asserts a problem+json answer of this status and kind, and returns its body. */
export async function expectProblem(response: Response, status: number, kind: string): Promise<ApiProblem> {
  expect(response.status, await peek(response)).toBe(status);
  expect(response.headers.get('content-type')).toBe('application/problem+json');
  const body = (await response.json()) as ApiProblem;
  expect(body).toMatchObject({ type: PROBLEM_BASE + kind, status });
  return body;
}

/** Asserts a 422 validation problem whose `errors` include a field error at each pointer. */
export async function expectInvalid(response: Response, ...pointers: string[]): Promise<ApiProblem> {
  const body = await expectProblem(response, 422, 'validation-failed');
  const got = (body.errors as { pointer: string }[]).map((e) => e.pointer);
  for (const pointer of pointers) expect(got, JSON.stringify(body.errors)).toContain(pointer);
  return body;
}

/** Asserts a 401 with the bearer challenge. */
export async function expectUnauthorized(response: Response): Promise<void> {
  await expectProblem(response, 401, 'unauthorized');
  expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
}

/** A promise with its resolver, to hold a request at a chosen point. */
export function latch<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/**
 * The store with its unit of work wrapped: `around` runs before each transaction (to hold it), and
 * `repos` may replace the repositories a transaction sees (to inject a failure).
 */
export function instrumented(
  store: Store,
  hooks: {
    around?: () => Promise<void>;
    repos?: (repos: TransactionalRepositories) => TransactionalRepositories;
  },
): Store {
  return {
    ...store,
    unitOfWork: {
      run: async (work) => {
        await hooks.around?.();
        return store.unitOfWork.run((repos) => work(hooks.repos ? hooks.repos(repos) : repos));
      },
      runExclusive: async (job, work) => {
        await hooks.around?.();
        return store.unitOfWork.runExclusive(job, (repos) => work(hooks.repos ? hooks.repos(repos) : repos));
      },
    },
  };
}
