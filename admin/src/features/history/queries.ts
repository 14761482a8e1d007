import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import type { components } from '../../../../src/client/index.js';
import { problemOf } from '../../lib/problem';
import { postKeys } from '../../lib/query-keys';
import { postQuery } from '../../lib/post-query';
import { useSession } from '../../lib/session';

export type RevisionSummary = components['schemas']['RevisionSummary'];
export type RevisionDiff = components['schemas']['RevisionDiff'];

/** `current` or another revision's version, as the diff's `against` parameter says it. */
export type Against = 'current' | number;

/**
 * The query keys of a post's revisions, below the post's own key: whatever invalidates the post
 * invalidates its history too.
 */
export const revisionKeys = {
  all: (id: string) => [...postKeys.detail(id), 'revisions'] as const,
  list: (id: string) => [...revisionKeys.all(id), 'list'] as const,
  diff: (id: string, version: number, against: Against) => [...revisionKeys.all(id), 'diff', version, String(against)] as const,
};

/** Revisions a page of the list holds. */
const PAGE_SIZE = 20;

/** The post as it is now (src/client remembers its ETag, which the restore sends as If-Match). */
export function useCurrentPost(id: string) {
  const { client } = useSession();
  return useQuery({
    ...postQuery(client, id),
    // History is about what the post is now: read it afresh whenever the page opens.
    staleTime: 0,
  });
}

/** The post's revisions, newest first, a page at a time (the API's cursor). */
export function useRevisions(id: string) {
  const { client } = useSession();
  return useInfiniteQuery({
    queryKey: revisionKeys.list(id),
    queryFn: async ({ pageParam, signal }) => {
      const { data, error, response } = await client.api.GET('/posts/{id}/revisions', {
        params: { path: { id }, query: { limit: PAGE_SIZE, ...(pageParam ? { cursor: pageParam } : {}) } },
        signal,
      });
      if (error !== undefined) throw problemOf(error, response);
      return data;
    },
    initialPageParam: null as string | null,
    getNextPageParam: (page) => page.nextCursor,
    staleTime: 0,
  });
}

/** What goes from `against` to revision `version`, field by field (none while `version` is null). */
export function useRevisionDiff(id: string, version: number | null, against: Against) {
  const { client } = useSession();
  return useQuery({
    queryKey: revisionKeys.diff(id, version ?? 0, against),
    enabled: version !== null,
    queryFn: async ({ signal }): Promise<RevisionDiff> => {
      const { data, error, response } = await client.api.GET('/posts/{id}/revisions/{version}/diff', {
        params: { path: { id, version: version! }, query: { against: String(against) } },
        signal,
      });
      if (error !== undefined) throw problemOf(error, response);
      return data;
    },
    staleTime: 0,
  });
}
