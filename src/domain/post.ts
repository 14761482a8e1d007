/** Lifecycle states of a post. */
export const POST_STATUSES = ['draft', 'published', 'archived'] as const;

export type PostStatus = (typeof POST_STATUSES)[number];

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
}

/** A post without its body, as returned by list endpoints. */
export type PostSummary = Omit<Post, 'body'>;
