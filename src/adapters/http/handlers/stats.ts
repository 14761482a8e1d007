import type { PostQueries } from '../../../app/post-queries.js';
import type { HandlerRegistry } from '../registry.js';

export function statsHandlers(posts: PostQueries): Pick<HandlerRegistry, 'getStats'> {
  return {
    async getStats() {
      return { status: 200, body: await posts.stats() };
    },
  };
}
