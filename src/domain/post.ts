import type { CoverImage, PostSeo } from './media.js';

/** Lifecycle states of a post. */
export const POST_STATUSES = ['draft', 'published', 'archived'] as const;

export type PostStatus = (typeof POST_STATUSES)[number];

/** What a bulk operation does to each post it names (`transitionFor` gives the status it leads to). */
export type BulkAction = 'publish' | 'unpublish' | 'archive' | 'delete' | 'addTag' | 'removeTag';

/** What the activity log records of a change to a post. */
export const ACTIVITY_TYPES = [
  'created',
  'updated',
  'published',
  'unpublished',
  'archived',
  'deleted',
  'restored',
  'scheduled',
  'unscheduled',
] as const;

export type ActivityType = (typeof ACTIVITY_TYPES)[number];

/** The activity of a change that leaves the post in place: neither its creation nor its deletion. */
export type UpdateActivityType = Exclude<ActivityType, 'created' | 'deleted'>;

/** Maximum slug length, in characters. */
export const SLUG_MAX = 100;

export interface Post {
  id: string;
  title: string;
  slug: string;
  excerpt: string;
  /** Markdown source. */
  body: string;
  tags: string[];
  status: PostStatus;
  /** Optimistic-concurrency version; starts at 1 and increases by 1 on every change. */
  version: number;
  /** Words of the readable text of `body`, see `countWords`. */
  wordCount: number;
  createdAt: Date;
  updatedAt: Date;
  /** Instant of the first publish; kept when the post is unpublished or republished. */
  publishedAt: Date | null;
  /**
   * When a scheduled draft publishes itself; null when the post is not scheduled. Only a draft has
   * one (see `scheduleAfter`).
   */
  publishAt: Date | null;
  /** The image shown at the post's top, or null. */
  coverImage: CoverImage | null;
  /** What search engines and link previews are told; each field null means the post's own. */
  seo: PostSeo;
}

/** A post without its body, as returned by list endpoints. */
export type PostSummary = Omit<Post, 'body'>;

/**
 * Whether readers may see the post at `now`: published, with its `publishedAt` at or before
 * `now`. Drafts (scheduled or not), archived posts, and a post whose `publishedAt` is still
 * ahead (another process's clock ran ahead) are hidden.
 */
export function isVisibleToReaders(post: Pick<Post, 'status' | 'publishedAt'>, now: Date): boolean {
  return post.status === 'published' && post.publishedAt !== null && post.publishedAt.getTime() <= now.getTime();
}
