import type { MarginClient, Post } from '../../../src/client/index.js';
import { problemOf } from './problem';
import { postKeys } from './query-keys';

/**
 * One post with its body, under the post's query key: src/client remembers its ETag, which the
 * editor's save and the history's restore send as If-Match. Each page says how fresh it wants it.
 */
export function postQuery(client: MarginClient, id: string) {
  return {
    queryKey: postKeys.detail(id),
    queryFn: async (): Promise<Post> => {
      const { data, error, response } = await client.getPost(id);
      if (error !== undefined) throw problemOf(error, response);
      return data;
    },
  };
}
