import type { PostUseCases } from '../../../app/post-use-cases.js';
import type { Post } from '../../../domain/index.js';
import type { PostSort, PostSortKey } from '../../../domain/ports/post-repository.js';
import { fromStored, idempotencyKeyOf, requestFingerprint } from '../idempotency.js';
import { etagOf, ifNoneMatchHits, toApiPost, toApiPostSummary } from '../mappers.js';
import { requireIfMatch } from '../if-match.js';
import { actorOf } from '../principal.js';
import type { HandlerRegistry } from '../registry.js';
import { requestInstant } from '../timestamps.js';
import type { components } from '../../../../generated/api.js';
import { API_ROOT } from '../contract.js';

// The markdown export needs a YAML writer: loaded on the first export, not at every start.
let postFileModule: Promise<typeof import('../../../site-files/post-file.js')> | undefined;
const postFile = () => (postFileModule ??= import('../../../site-files/post-file.js'));

type Schemas = components['schemas'];

type PostHandlers = Pick<
  HandlerRegistry,
  'listPosts' | 'createPost' | 'bulkPosts' | 'getPost' | 'updatePost' | 'deletePost' | 'exportPost'
>;

/** The headers of a create's answer. */
function createdHeaders(post: Post) {
  return { ETag: etagOf(post.version), Location: `${API_ROOT}/posts/${post.id}` };
}

/** The answer to a create as it is stored for replays. */
function createdAnswer(post: Post) {
  return { status: 201, headers: createdHeaders(post), body: JSON.stringify(toApiPost(post)) };
}

/** The list order `sort` asks for; without it, relevance when searching and else last edited first. */
function postSortOf(sort: Schemas['PostSort'] | undefined, q: string | undefined): PostSort {
  const given = sort ?? (q === undefined ? '-updatedAt' : 'relevance');
  if (given === 'relevance') return { key: 'relevance', direction: 'desc' };
  return { key: given.replace(/^-/, '') as PostSortKey, direction: given.startsWith('-') ? 'desc' : 'asc' };
}

export function postHandlers(posts: PostUseCases): PostHandlers {
  return {
    async listPosts({ query }) {
      const page = await posts.queries.list({
        ...(query.status === undefined ? {} : { status: query.status }),
        ...(query.scheduled === undefined ? {} : { scheduled: query.scheduled }),
        ...(query.tag === undefined ? {} : { tag: query.tag }),
        ...(query.q === undefined ? {} : { q: query.q }),
        sort: postSortOf(query.sort, query.q),
        limit: query.limit,
        cursor: query.cursor ?? null,
      });
      return {
        status: 200,
        body: { items: page.items.map(toApiPostSummary), nextCursor: page.nextCursor, total: page.total, totalExact: page.totalExact },
      };
    },

    async createPost(request) {
      const { body } = request;
      const key = idempotencyKeyOf(request.headers['idempotency-key']);
      const input = {
        title: body.title,
        ...(body.slug === undefined ? {} : { slug: body.slug }),
        excerpt: body.excerpt,
        body: body.body,
        tags: body.tags,
        status: body.status,
        ...(body.publishAt === undefined ? {} : { publishAt: requestInstant('/publishAt', body.publishAt) }),
        ...(body.coverImage === undefined ? {} : { coverImage: body.coverImage }),
        ...(body.seo === undefined ? {} : { seo: body.seo }),
      };
      const idempotency =
        key === undefined ? undefined : { key, fingerprint: requestFingerprint('POST', request.path, body), render: createdAnswer };
      const outcome = await posts.writes.create(input, actorOf(request), idempotency);
      if (!outcome.replayed) {
        const post = outcome.result;
        return { status: 201, body: toApiPost(post), headers: createdHeaders(post) };
      }
      const stored = fromStored(outcome.response);
      return { status: 201, body: stored.body as Schemas['Post'], headers: stored.headers as { ETag: string; Location: string } };
    },

    async bulkPosts(request) {
      const { body } = request;
      const key = idempotencyKeyOf(request.headers['idempotency-key']);
      const answer = (outcome: Omit<Schemas['BulkResult'], 'action'>): Schemas['BulkResult'] => ({ action: body.action, ...outcome });
      const render = (outcome: Omit<Schemas['BulkResult'], 'action'>) => ({
        status: 200,
        headers: {},
        body: JSON.stringify(answer(outcome)),
      });
      const tag = 'tag' in body ? body.tag : undefined;
      const idempotency = key === undefined ? undefined : { key, fingerprint: requestFingerprint('POST', request.path, body), render };
      const outcome = await posts.bulk.run(body.ids, body.action, tag, actorOf(request), idempotency);
      if (!outcome.replayed) return { status: 200, body: answer(outcome.result), headers: {} };
      const stored = fromStored(outcome.response);
      return { status: 200, body: stored.body as Schemas['BulkResult'], headers: stored.headers };
    },

    async getPost({ params, headers }) {
      const post = await posts.queries.get(params.id);
      const etag = etagOf(post.version);
      const ifNoneMatch = headers['if-none-match'];
      if (ifNoneMatch !== undefined && ifNoneMatchHits(ifNoneMatch, post.version)) {
        return { status: 304, headers: { ETag: etag } };
      }
      return { status: 200, body: toApiPost(post), headers: { ETag: etag } };
    },

    async updatePost(request) {
      const expected = requireIfMatch(request.headers['if-match']);
      const { publishAt, ...edit } = request.body;
      const schedule = publishAt === undefined ? {} : { publishAt: publishAt === null ? null : requestInstant('/publishAt', publishAt) };
      const options = { autosave: request.query.autosave };
      const post = await posts.writes.update(request.params.id, expected, { ...edit, ...schedule }, actorOf(request), options);
      return { status: 200, body: toApiPost(post), headers: { ETag: etagOf(post.version) } };
    },

    async deletePost(request) {
      const expected = requireIfMatch(request.headers['if-match']);
      await posts.writes.delete(request.params.id, expected, actorOf(request));
      return { status: 204 };
    },

    async exportPost({ params }) {
      const [post, { postFileName, postFileOf }] = await Promise.all([posts.queries.get(params.id), postFile()]);
      return {
        status: 200,
        body: postFileOf(post, 'standalone'),
        headers: { 'Content-Disposition': `attachment; filename="${postFileName(post)}"`, ETag: etagOf(post.version) },
      };
    },
  };
}
