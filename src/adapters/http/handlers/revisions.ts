import type { PostUseCases } from '../../../app/post-use-cases.js';
import { etagOf, toApiPost, toApiRevision, toApiRevisionSummary } from '../mappers.js';
import { actorOf } from '../principal.js';
import type { HandlerRegistry } from '../registry.js';
import { requireIfMatch } from './posts.js';

export function revisionHandlers(posts: PostUseCases): Pick<HandlerRegistry, 'listRevisions' | 'getRevision' | 'restoreRevision'> {
  return {
    async listRevisions({ params, query }) {
      const page = await posts.queries.listRevisions(params.id, { limit: query.limit, cursor: query.cursor ?? null });
      return { status: 200, body: { items: page.items.map(toApiRevisionSummary), nextCursor: page.nextCursor } };
    },
    async getRevision({ params }) {
      return { status: 200, body: toApiRevision(await posts.queries.getRevision(params.id, params.version)) };
    },
    async restoreRevision(request) {
      const expected = requireIfMatch(request.headers['if-match']);
      const { id, version } = request.params;
      const post = await posts.writes.restore(id, version, expected, actorOf(request));
      return { status: 200, body: toApiPost(post), headers: { ETag: etagOf(post.version) } };
    },
  };
}
