import { useInfiniteQuery, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Media } from '../../../src/client/index.js';
import { ApiProblem, problemOf, unreachable } from './problem';
import { mediaKeys } from './query-keys';
import { useSession } from './session';

/** Images per page of the library. */
const PAGE_SIZE = 24;

/** What the file input and the drop zones offer: the types the server takes (it still reads the bytes). */
export const IMAGE_TYPES = 'image/jpeg,image/png,image/webp,image/avif,image/gif';

/** The library, newest first, a page at a time (the API's cursor). */
export function useMediaLibrary(enabled = true) {
  const { client } = useSession();
  return useInfiniteQuery({
    queryKey: mediaKeys.lists(),
    queryFn: async ({ pageParam, signal }) => {
      const { data, error, response } = await client.listMedia({ limit: PAGE_SIZE, ...(pageParam ? { cursor: pageParam } : {}) }, signal);
      if (error !== undefined) throw problemOf(error, response);
      return data;
    },
    initialPageParam: null as string | null,
    getNextPageParam: (page) => page.nextCursor,
    enabled,
  });
}

/** One media (a post's cover names only its id); a media the library answered already comes from the cache. */
export function useMedia(id: string | null) {
  const { client } = useSession();
  return useQuery({
    queryKey: mediaKeys.detail(id ?? ''),
    queryFn: async (): Promise<Media> => {
      const { data, error, response } = await client.getMedia(id!);
      if (error !== undefined) throw problemOf(error, response);
      return data;
    },
    enabled: id !== null,
    // A media's files never change; only its alt text and caption do, through this admin.
    staleTime: Infinity,
  });
}

/**
 * Uploads files one by one: each stored media goes into the cache (its detail, and the library
 * is refetched); an upload the server refused becomes an ApiProblem whose detail says why in words.
 */
export function useUploadImage() {
  const { client } = useSession();
  const queryClient = useQueryClient();
  return async (file: File): Promise<Media> => {
    let result;
    try {
      result = await client.uploadMedia(file);
    } catch {
      throw unreachable();
    }
    if (result.error !== undefined) throw refusal(file.name, problemOf(result.error, result.response));
    queryClient.setQueryData(mediaKeys.detail(result.data.id), result.data);
    await queryClient.invalidateQueries({ queryKey: mediaKeys.lists() });
    return result.data;
  };
}

/** Why the server refused an upload, in words (the problem's own detail follows). */
function refusal(name: string, problem: ApiProblem): ApiProblem {
  const reason = (problem.problem as { reason?: string }).reason;
  const said =
    problem.status === 413
      ? `${name} is too large to upload.`
      : problem.status === 415
        ? `${name} is not an image the library takes (JPEG, PNG, WebP, AVIF or GIF).`
        : reason === 'too-many-pixels'
          ? `${name} has too many pixels to be stored.`
          : reason === 'unreadable'
            ? `${name} could not be read as an image (it may be damaged).`
            : null;
  if (said === null) return problem;
  return new ApiProblem({ ...problem.problem, title: `Could not upload ${name}`, detail: `${said} ${problem.problem.detail}` });
}

/** The smallest picture that shows `media` at thumbnail size: its 320-pixel variant in WebP or its own type, or the original. */
export function thumbnailOf(media: Media): { url: string; width: number; height: number } {
  const small = media.variants.filter((variant) => variant.width === 320);
  const variant = small.find((v) => v.contentType === 'image/webp') ?? small[0];
  return variant ?? { url: media.url, width: media.width, height: media.height };
}

/** The markdown that shows `media` in a post's body; `[` and `]` in the alt text are escaped. */
export function imageMarkdown(media: Media, alt: string): string {
  return `![${alt.replace(/[[\]\\]/g, (c) => `\\${c}`)}](${media.url})`;
}

/** A file's name without its extension, as the alt text of an image that has none yet. */
export function altFromName(name: string): string {
  return name.replace(/\.[A-Za-z0-9]+$/, '');
}
