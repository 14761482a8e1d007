import { useInfiniteQuery } from '@tanstack/react-query';
import type { components } from '../../../../src/client/index.js';
import { problemOf } from '../../lib/problem';
import { postKeys, type PostListFilters } from '../../lib/query-keys';
import { useSession } from '../../lib/session';

export type PostStatus = components['schemas']['PostStatus'];
export type PostSummary = components['schemas']['PostSummary'];

/** Posts a page of the list holds. */
const PAGE_SIZE = 20;

/** The posts of one status and search, a page at a time (the API's cursor). */
export function usePostList(filters: PostListFilters) {
  const { client } = useSession();
  return useInfiniteQuery({
    queryKey: postKeys.list(filters),
    queryFn: async ({ pageParam, signal }) => {
      const { data, error, response } = await client.api.GET('/posts', {
        params: {
          query: {
            status: [filters.status],
            limit: PAGE_SIZE,
            ...(filters.q ? { q: filters.q } : {}),
            ...(pageParam ? { cursor: pageParam } : {}),
          },
        },
        signal,
      });
      if (error !== undefined) throw problemOf(error, response);
      return data;
    },
    initialPageParam: null as string | null,
    getNextPageParam: (page) => page.nextCursor,
  });
}
