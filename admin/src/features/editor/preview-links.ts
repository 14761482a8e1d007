import { useInfiniteQuery, useQueryClient } from '@tanstack/react-query';
import type { PreviewLinkCreated } from '../../../../src/client/index.js';
import { problemOf, unreachable } from '../../lib/problem';
import { previewLinkKeys } from '../../lib/query-keys';
import { useSession } from '../../lib/session';

/** How long a new preview link lives: what the author picks from (7 days, the server's default, first chosen). */
export const EXPIRY_CHOICES = [
  { days: 1, label: '1 day' },
  { days: 7, label: '7 days' },
  { days: 30, label: '30 days' },
] as const;

export const DEFAULT_EXPIRY_DAYS = 7;

const DAY_MS = 86_400_000;

/** Links per page of the list. */
const LINKS_PAGE = 20;

/** A post's preview links, the newest first, without their tokens, a page at a time (the API's cursor). */
export function usePreviewLinks(postId: string) {
  const { client } = useSession();
  return useInfiniteQuery({
    queryKey: previewLinkKeys.of(postId),
    queryFn: async ({ pageParam, signal }) => {
      const query = { limit: LINKS_PAGE, ...(pageParam ? { cursor: pageParam } : {}) };
      const { data, error, response } = await client.listPreviewLinks(postId, query, signal);
      if (error !== undefined) throw problemOf(error, response);
      return data;
    },
    initialPageParam: null as string | null,
    getNextPageParam: (page) => page.nextCursor,
  });
}

/**
 * Creates a link that expires `days` from now and answers it with its URL and token. The answer
 * goes to the caller only (never into the query cache): the list is refetched, without tokens.
 */
export function useCreatePreviewLink(postId: string) {
  const { client } = useSession();
  const queryClient = useQueryClient();
  return async (days: number): Promise<PreviewLinkCreated> => {
    const expiresAt = new Date(Date.now() + days * DAY_MS).toISOString();
    const result = await client.createPreviewLink(postId, expiresAt).catch(() => {
      throw unreachable();
    });
    if (result.error !== undefined) throw problemOf(result.error, result.response);
    await queryClient.invalidateQueries({ queryKey: previewLinkKeys.of(postId) });
    return result.data;
  };
}

/** Revokes a link (204 also when it already was); the list is refetched. */
export function useRevokePreviewLink(postId: string) {
  const { client } = useSession();
  const queryClient = useQueryClient();
  return async (linkId: string): Promise<void> => {
    const result = await client.revokePreviewLink(postId, linkId).catch(() => {
      throw unreachable();
    });
    if (result.error !== undefined) throw problemOf(result.error, result.response);
    await queryClient.invalidateQueries({ queryKey: previewLinkKeys.of(postId) });
  };
}
