import type { PostQueries } from '../../../app/post-queries.js';
import type { HandlerRegistry } from '../registry.js';

export function tagHandlers(posts: PostQueries): Pick<HandlerRegistry, 'listTags'> {
  return {
    async listTags() {
      return { status: 200, body: { items: await posts.tags() } };
    },
  };
}
