import type { PostService } from '../../../app/post-service.js';
import { etagOf, toApiPost, toApiRevision, toApiRevisionSummary } from '../mappers.js';
import { actorOf } from '../principal.js';
import type { HandlerRegistry } from '../registry.js';
import { guarded, requireIfMatch } from './posts.js';

export function revisionHandlers(posts: PostService): Pick<HandlerRegistry, 'listRevisions' | 'getRevision' | 'restoreRevision'> {
  return {
    async listRevisions({ params, query }) {
      const page = await posts.listRevisions(params.id, { limit: query.limit ?? 20, cursor: query.cursor ?? null });
      return { status: 200, body: { items: page.items.map(toApiRevisionSummary), nextCursor: page.nextCursor } };
    },
    async getRevision({ params }) {
      return { status: 200, body: toApiRevision(await posts.getRevision(params.id, params.version)) };
    },
    async restoreRevision(request) {
      const ifMatchHeader = request.headers['if-match'];
      const expected = requireIfMatch(ifMatchHeader);
      const { id, version } = request.params;
      const post = await guarded(posts, id, ifMatchHeader!, () => posts.restore(id, version, expected, actorOf(request)));
      return { status: 200, body: toApiPost(post), headers: { ETag: etagOf(post.version) } };
    },
  };
}
