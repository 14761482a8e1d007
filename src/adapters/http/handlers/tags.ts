import type { PostService } from '../../../app/post-service.js';
import type { HandlerRegistry } from '../registry.js';

export function tagHandlers(posts: PostService): Pick<HandlerRegistry, 'listTags'> {
  return {
    async listTags() {
      return { status: 200, body: { items: await posts.tags() } };
    },
  };
}
