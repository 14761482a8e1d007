import { useInfiniteQuery, useMutation, useQueryClient } from '@tanstack/react-query';
import type { components } from '../../../../src/client/index.js';
import { problemOf } from '../../lib/problem';
import { activityKeys, postKeys, statsKeys, tagKeys, type PostListFilters, type PostTab } from '../../lib/query-keys';
import { useSession } from '../../lib/session';

export type PostStatus = components['schemas']['PostStatus'];
export type PostSummary = components['schemas']['PostSummary'];
export type PostSort = components['schemas']['PostSort'];
export type BulkRequest = components['schemas']['BulkPostsRequest'];
export type BulkResult = components['schemas']['BulkResult'];
export type BulkAction = BulkResult['action'];

/** Posts a page of the list holds. */
const PAGE_SIZE = 20;

/** The most ids one POST /posts/bulk takes (BulkIds). */
const BULK_MAX = 200;

/** What a tab asks the API for: Drafts and Scheduled split the drafts by whether they have a publishAt. */
function tabQuery(tab: PostTab): { status: PostStatus[]; scheduled?: boolean } {
  if (tab === 'scheduled') return { status: ['draft'], scheduled: true };
  if (tab === 'draft') return { status: ['draft'], scheduled: false };
  return { status: [tab] };
}

/** The posts of one tab, search, tag and order, a page at a time (the API's cursor). */
export function usePostList(filters: PostListFilters) {
  const { client } = useSession();
  return useInfiniteQuery({
    queryKey: postKeys.list(filters),
    queryFn: async ({ pageParam, signal }) => {
      const { data, error, response } = await client.api.GET('/posts', {
        params: {
          query: {
            ...tabQuery(filters.status),
            limit: PAGE_SIZE,
            sort: filters.sort,
            ...(filters.q ? { q: filters.q } : {}),
            ...(filters.tag ? { tag: filters.tag } : {}),
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

/** Splits the ids into requests the API takes (at most 200 each). */
function chunks(ids: string[]): string[][] {
  const out: string[][] = [];
  for (let i = 0; i < ids.length; i += BULK_MAX) out.push(ids.slice(i, i + BULK_MAX));
  return out;
}

/**
 * One action on many posts (POST /posts/bulk, 200 ids a request, one after the other), answered
 * with what happened to each; then every list, the changed posts, the tags, the stats and the
 * activity are refetched.
 */
export function useBulkPosts() {
  const { client } = useSession();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (request: BulkRequest): Promise<BulkResult> => {
      const merged: BulkResult = { action: request.action, succeeded: [], failed: [] };
      for (const ids of chunks(request.ids)) {
        const { data, error, response } = await client.api.POST('/posts/bulk', { body: { ...request, ids } as BulkRequest });
        if (error !== undefined) throw problemOf(error, response);
        merged.succeeded.push(...data.succeeded);
        merged.failed.push(...data.failed);
      }
      return merged;
    },
    onSuccess: async (result) => {
      for (const { id } of result.succeeded) queryClient.removeQueries({ queryKey: postKeys.detail(id) });
      await Promise.all(
        [postKeys.lists(), tagKeys.all, statsKeys.all, activityKeys.all].map((queryKey) => queryClient.invalidateQueries({ queryKey })),
      );
    },
  });
}
