import { NotFoundError, ValidationError, VersionConflictError } from '../../../domain/index.js';
import type { PostService } from '../../../app/post-service.js';
import { fromStored, idempotencyKeyOf, requestFingerprint } from '../idempotency.js';
import { etagOf, ifNoneMatchHits, parseIfMatch, toApiPost, toApiPostSummary } from '../mappers.js';
import { actorOf } from '../principal.js';
import { HttpProblem } from '../problem.js';
import type { HandlerRegistry } from '../registry.js';
import type { components } from '../../../../generated/api.js';
import { API_ROOT } from '../contract.js';

type Schemas = components['schemas'];

type PostHandlers = Pick<
  HandlerRegistry,
  'listPosts' | 'createPost' | 'bulkPosts' | 'getPost' | 'updatePost' | 'deletePost' | 'exportPost'
>;

/** 428 when If-Match is missing: the server, not the schema, requires it. */
export function requireIfMatch(header: string | undefined) {
  if (header === undefined) {
    throw new HttpProblem(428, 'precondition-required', "Send If-Match with the post's current ETag to change it.");
  }
  return parseIfMatch(header);
}

/**
 * Runs a use case whose `ValidationError` pointers are relative to its input (`/tags/3`, `/q`),
 * re-pointing them into the request part that input came from (`/body/tags/3`, `/query/q`).
 */
export async function inRequest<T>(part: '/body' | '/query', work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    throw new ValidationError(error.issues.map((issue) => ({ pointer: part + issue.pointer, message: issue.message })));
  }
}

/** Runs a guarded write; a stale If-Match becomes a 412 carrying the post as it is now. */
export async function guarded<T>(posts: PostService, id: string, ifMatch: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (!(error instanceof VersionConflictError)) throw error;
    const current = await posts.get(id);
    throw new HttpProblem(
      412,
      'precondition-failed',
      `If-Match ${ifMatch} does not match the current version ${current.version}.`,
      { current: toApiPost(current) },
      { etag: etagOf(current.version) },
    );
  }
}

export function postHandlers(posts: PostService): PostHandlers {
  return {
    async listPosts({ query }) {
      const sort = query.sort ?? '-updatedAt';
      const filters = {
        ...(query.status === undefined ? {} : { status: query.status }),
        ...(query.tag === undefined ? {} : { tag: query.tag }),
        ...(query.q === undefined ? {} : { q: query.q }),
      };
      const page = await inRequest('/query', () =>
        posts.list({
          ...filters,
          sort: { key: sort.replace(/^-/, '') as 'updatedAt', direction: sort.startsWith('-') ? 'desc' : 'asc' },
          limit: query.limit ?? 20,
          cursor: query.cursor ?? null,
        }),
      );
      return { status: 200, body: { items: page.items.map(toApiPostSummary), nextCursor: page.nextCursor, total: page.total, totalExact: page.totalExact } };
    },

    async createPost(request) {
      const { body } = request;
      const key = idempotencyKeyOf(request.headers['idempotency-key']);
      const render = (post: Parameters<typeof toApiPost>[0]) => ({
        status: 201,
        headers: { ETag: etagOf(post.version), Location: `${API_ROOT}/posts/${post.id}` },
        body: JSON.stringify(toApiPost(post)),
      });
      const input = {
        title: body.title,
        ...(body.slug === undefined ? {} : { slug: body.slug }),
        excerpt: body.excerpt ?? '',
        body: body.body ?? '',
        tags: body.tags ?? [],
        status: body.status ?? 'draft',
      };
      const idempotency = key === undefined ? undefined : { key, fingerprint: requestFingerprint('POST', request.path, body), render };
      const outcome = await inRequest('/body', () => posts.create(input, actorOf(request), idempotency));
      const response = outcome.replayed ? outcome.response : key === undefined ? render(outcome.result) : outcome.response;
      const stored = fromStored(response, outcome.replayed);
      return { status: 201, body: stored.body as Schemas['Post'], headers: stored.headers as { ETag: string; Location: string } };
    },

    async bulkPosts(request) {
      const { body } = request;
      const key = idempotencyKeyOf(request.headers['idempotency-key']);
      const render = (result: { succeeded: { id: string; version: number }[]; failed: unknown[] }) => ({
        status: 200,
        headers: {},
        body: JSON.stringify({ action: body.action, ...result }),
      });
      const tag = 'tag' in body ? body.tag : undefined;
      const idempotency = key === undefined ? undefined : { key, fingerprint: requestFingerprint('POST', request.path, body), render };
      const outcome = await inRequest('/body', () => posts.bulk(body.ids, body.action, tag, actorOf(request), idempotency));
      const response = outcome.replayed ? outcome.response : key === undefined ? render(outcome.result) : outcome.response;
      const stored = fromStored(response, outcome.replayed);
      return { status: 200, body: stored.body as Schemas['BulkResult'], headers: stored.headers };
    },

    async getPost({ params, headers }) {
      const post = await posts.get(params.id);
      const etag = etagOf(post.version);
      const ifNoneMatch = headers['if-none-match'];
      if (ifNoneMatch !== undefined && ifNoneMatchHits(ifNoneMatch, post.version)) {
        return { status: 304, headers: { ETag: etag } };
      }
      return { status: 200, body: toApiPost(post), headers: { ETag: etag } };
    },

    async updatePost(request) {
      const ifMatchHeader = request.headers['if-match'];
      const expected = requireIfMatch(ifMatchHeader);
      const { id } = request.params;
      const update = () => posts.update(id, expected, request.body, actorOf(request));
      const post = await inRequest('/body', () => guarded(posts, id, ifMatchHeader!, update));
      return { status: 200, body: toApiPost(post), headers: { ETag: etagOf(post.version) } };
    },

    async deletePost(request) {
      const ifMatchHeader = request.headers['if-match'];
      const expected = requireIfMatch(ifMatchHeader);
      await guarded(posts, request.params.id, ifMatchHeader!, () => posts.delete(request.params.id, expected, actorOf(request)));
      return { status: 204 };
    },

    async exportPost({ params }) {
      const { post, markdown } = await posts.export(params.id);
      if (!/^[a-z0-9-]+$/.test(post.slug)) throw new NotFoundError('post', params.id);
      return {
        status: 200,
        body: markdown,
        headers: { 'Content-Disposition': `attachment; filename="${post.slug}.md"`, ETag: etagOf(post.version) },
      };
    },
  };
}
