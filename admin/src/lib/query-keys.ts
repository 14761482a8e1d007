import type { components } from '../../../src/client/index.js';

type PostStatus = components['schemas']['PostStatus'];
type PostSort = components['schemas']['PostSort'];
type ActivityType = components['schemas']['ActivityType'];

/**
 * A tab of the posts list: a status, or `scheduled` (the drafts with a `publishAt`; the `draft`
 * tab then holds the drafts without one, so no post is listed under two tabs).
 */
export type PostTab = PostStatus | 'scheduled';

/** What a list of posts is filtered by: the tab, the search (`q`, empty for none), the tag (empty for any) and the order. */
export interface PostListFilters {
  status: PostTab;
  q: string;
  tag: string;
  sort: PostSort;
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
  /** The tags with how many posts carry each (the list's filter, the dashboard). */
  counts: () => [...tagKeys.all, 'counts'] as const,
};

/** The query key of the blog's statistics (posts by status, edits per day). */
export const statsKeys = {
  all: ['stats'] as const,
};

/** The query keys of the activity log, all or of one type (empty for every type). */
export const activityKeys = {
  all: ['activity'] as const,
  list: (type: ActivityType | '') => [...activityKeys.all, type] as const,
};

/** The query keys of the media library: its pages (`lists()`) and each media (`detail(id)`). */
export const mediaKeys = {
  all: ['media'] as const,
  lists: () => [...mediaKeys.all, 'list'] as const,
  details: () => [...mediaKeys.all, 'detail'] as const,
  detail: (id: string) => [...mediaKeys.details(), id] as const,
};

/** The query key of the public site's settings (its address and post URL template: GET /site). */
export const siteKeys = {
  all: ['site'] as const,
};

/** The query keys of a post's preview links (listed without their tokens). */
export const previewLinkKeys = {
  all: ['preview-links'] as const,
  of: (postId: string) => [...previewLinkKeys.all, postId] as const,
};

/** The query keys of webhook subscriptions (one list) and of each one's deliveries, by status filter. */
export const webhookKeys = {
  all: ['webhooks'] as const,
  list: () => [...webhookKeys.all, 'list'] as const,
  deliveriesOf: (id: string) => [...webhookKeys.all, 'deliveries', id] as const,
  deliveries: (id: string, status: string) => [...webhookKeys.deliveriesOf(id), status] as const,
};
