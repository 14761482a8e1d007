import type { PostQueries } from '../../../app/post-queries.js';
import { toApiActivityEvent } from '../mappers.js';
import type { HandlerRegistry } from '../registry.js';

export function activityHandlers(posts: PostQueries): Pick<HandlerRegistry, 'listActivity'> {
  return {
    async listActivity({ query }) {
      const page = await posts.listActivity({
        ...(query.postId === undefined ? {} : { postId: query.postId }),
        ...(query.type === undefined ? {} : { type: query.type }),
        limit: query.limit,
        cursor: query.cursor ?? null,
      });
      return { status: 200, body: { items: page.items.map(toApiActivityEvent), nextCursor: page.nextCursor } };
    },
  };
}
