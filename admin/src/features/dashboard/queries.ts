import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import type { components } from '../../../../src/client/index.js';
import { problemOf } from '../../lib/problem';
import { activityKeys, statsKeys } from '../../lib/query-keys';
import { useSession } from '../../lib/session';

export type ActivityType = components['schemas']['ActivityType'];
export type ActivityEvent = components['schemas']['ActivityEvent'];

/** Events a page of the activity log holds. */
const PAGE_SIZE = 20;

/** Posts by status, words published and edits per day (GET /stats). */
export function useStats() {
  const { client } = useSession();
  return useQuery({
    queryKey: statsKeys.all,
    queryFn: async ({ signal }) => {
      const { data, error, response } = await client.api.GET('/stats', { signal });
      if (error !== undefined) throw problemOf(error, response);
      return data;
    },
  });
}

/** The activity log, newest first, of one type or all (`''`), a page at a time. */
export function useActivity(type: ActivityType | '') {
  const { client } = useSession();
  return useInfiniteQuery({
    queryKey: activityKeys.list(type),
    queryFn: async ({ pageParam, signal }) => {
      const { data, error, response } = await client.api.GET('/activity', {
        params: { query: { limit: PAGE_SIZE, ...(type ? { type } : {}), ...(pageParam ? { cursor: pageParam } : {}) } },
        signal,
      });
      if (error !== undefined) throw problemOf(error, response);
      return data;
    },
    initialPageParam: null as string | null,
    getNextPageParam: (page) => page.nextCursor,
  });
}
