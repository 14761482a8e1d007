import type { ComparedState } from '../../../app/post-queries.js';
import type { PostUseCases } from '../../../app/post-use-cases.js';
import { compareStates } from '../../../domain/index.js';
import { diffBodies } from '../body-diff.js';
import { etagOf, toApiCoverImage, toApiPost, toApiRevision, toApiRevisionSummary, toApiSeo } from '../mappers.js';
import { requireIfMatch } from '../if-match.js';
import { actorOf } from '../principal.js';
import type { HandlerRegistry } from '../registry.js';

export function revisionHandlers(
  posts: PostUseCases,
): Pick<HandlerRegistry, 'listRevisions' | 'getRevision' | 'getRevisionDiff' | 'restoreRevision'> {
  return {
    async listRevisions({ params, query }) {
      const page = await posts.queries.listRevisions(params.id, { limit: query.limit, cursor: query.cursor ?? null });
      return { status: 200, body: { items: page.items.map(toApiRevisionSummary), nextCursor: page.nextCursor } };
    },
    async getRevision({ params }) {
      return { status: 200, body: toApiRevision(await posts.queries.getRevision(params.id, params.version)) };
    },
    async getRevisionDiff({ params, query }) {
      const against = query.against === undefined || query.against === 'current' ? 'current' : Number(query.against);
      const { from, to } = await posts.queries.revisionComparison(params.id, params.version, against);
      const fields = compareStates(from, to);
      return {
        status: 200,
        body: {
          postId: params.id,
          from: { version: from.version, current: from.current },
          to: { version: to.version, current: to.current },
          changed: fields.changed,
          title: fields.title,
          slug: fields.slug,
          excerpt: fields.excerpt,
          status: fields.status,
          tags: fields.tags,
          coverImage: { ...fields.coverImage, from: toApiCoverImage(fields.coverImage.from), to: toApiCoverImage(fields.coverImage.to) },
          seo: { ...fields.seo, from: toApiSeo(fields.seo.from), to: toApiSeo(fields.seo.to) },
          body: diffBodies({ body: from.body, label: labelOf(from) }, { body: to.body, label: labelOf(to) }),
        },
      };
    },
    async restoreRevision(request) {
      const expected = requireIfMatch(request.headers['if-match']);
      const { id, version } = request.params;
      const post = await posts.writes.restore(id, version, expected, actorOf(request));
      return { status: 200, body: toApiPost(post), headers: { ETag: etagOf(post.version) } };
    },
  };
}

/** How a unified diff's `---`/`+++` header names a side: `body v3 (current)`, `body v1`. */
function labelOf(state: ComparedState): string {
  return `body v${state.version}${state.current ? ' (current)' : ''}`;
}
