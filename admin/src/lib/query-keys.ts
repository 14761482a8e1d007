import type { components } from '../../../src/client/index.js';

type PostStatus = components['schemas']['PostStatus'];

/** What a list of posts is filtered by: the status and the search (`q`, empty for none). */
export interface PostListFilters {
  status: PostStatus;
  q: string;
}

/**
 * The query keys of posts, shared by the features that read or write them: every list under
 * `lists()` and every post under `details()`, so a save updates its post and invalidates the lists.
 */
export const postKeys = {
  all: ['posts'] as const,
  lists: () => [...postKeys.all, 'list'] as const,
  list: (filters: PostListFilters) => [...postKeys.lists(), filters] as const,
  details: () => [...postKeys.all, 'detail'] as const,
  detail: (id: string) => [...postKeys.details(), id] as const,
};

/** The query keys of tags (their names and counts, for completion). */
export const tagKeys = {
  all: ['tags'] as const,
};
