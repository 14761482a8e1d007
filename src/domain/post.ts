/** Lifecycle states of a post. */
export const POST_STATUSES = ['draft', 'published', 'archived'] as const;

export type PostStatus = (typeof POST_STATUSES)[number];

export function isPostStatus(value: unknown): value is PostStatus {
  return typeof value === 'string' && (POST_STATUSES as readonly string[]).includes(value);
}

/** Maximum title length, in characters. */
export const TITLE_MAX = 200;
/** Maximum slug length, in characters. */
export const SLUG_MAX = 100;
/** Maximum excerpt length, in characters. */
export const EXCERPT_MAX = 500;

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

/** The author-editable content of a post. */
export interface PostContent {
  title: string;
  excerpt: string;
  body: string;
  tags: string[];
}
