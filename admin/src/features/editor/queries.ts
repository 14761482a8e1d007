import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { problemOf } from '../../lib/problem';
import { tagKeys } from '../../lib/query-keys';
import { postQuery } from '../../lib/post-query';
import { useSession } from '../../lib/session';

/**
 * One post with its body, as the editor opens it: read afresh on every opening and whenever the
 * window regains focus, so a change made in another tab, by someone else or by the scheduler shows
 * at once. What a newer version does to the form is the form's to decide (PostForm: it replaces a
 * form without changes, and brings up the conflict banner over one with changes).
 */
export function usePost(id: string) {
  const { client } = useSession();
  return useQuery({
    ...postQuery(client, id),
    staleTime: 0,
    refetchOnMount: 'always',
    refetchOnWindowFocus: 'always',
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

/** The preview's query keys: one answer per body, as the server renders it. */
const previewKeys = {
  all: ['preview'] as const,
  of: (body: string) => [...previewKeys.all, body] as const,
};

/**
 * The body rendered to HTML by the server (POST /preview): the Content API's renderer and
 * sanitiser, so the preview is what readers will get. The last answer stays while the next loads.
 */
export function usePreview(body: string) {
  const { client } = useSession();
  return useQuery({
    queryKey: previewKeys.of(body),
    // Not aborted when the body moves on (no signal): the debounce already spaces the requests,
    // and an answer that comes late still fills the cache for that body.
    queryFn: async (): Promise<string> => {
      const { data, error, response } = await client.api.POST('/preview', { body: { body } });
      if (error !== undefined) throw problemOf(error, response);
      return data.html;
    },
    placeholderData: keepPreviousData,
    staleTime: Infinity,
    gcTime: 30_000,
    retry: false,
  });
}
