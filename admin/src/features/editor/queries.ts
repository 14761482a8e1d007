import { useQuery } from '@tanstack/react-query';
import type { Post } from '../../../../src/client/index.js';
import { problemOf } from '../../lib/problem';
import { postKeys, tagKeys } from '../../lib/query-keys';
import { useSession } from '../../lib/session';

/** One post with its body, as the editor opens it (src/client remembers its ETag for the save). */
export function usePost(id: string) {
  const { client } = useSession();
  return useQuery({
    queryKey: postKeys.detail(id),
    queryFn: async (): Promise<Post> => {
      const { data, error, response } = await client.getPost(id);
      if (error !== undefined) throw problemOf(error, response);
      return data;
    },
    // The editor's copy is the author's working base: never swapped under them by a refetch.
    staleTime: Infinity,
  });
}

/** The names of the tags in use, most used first, for the tag field's completion. */
export function useTagNames() {
  const { client } = useSession();
  return useQuery({
    queryKey: tagKeys.all,
    queryFn: async ({ signal }) => {
      const { data, error, response } = await client.api.GET('/tags', { signal });
      if (error !== undefined) throw problemOf(error, response);
      return data.items.map((tag) => tag.name);
    },
    staleTime: 60_000,
  });
}
