import type { PostService } from '../../../app/post-service.js';
import type { HandlerRegistry } from '../registry.js';

export function statsHandlers(posts: PostService): Pick<HandlerRegistry, 'getStats'> {
  return {
    async getStats() {
      return { status: 200, body: await posts.stats() };
    },
  };
}
