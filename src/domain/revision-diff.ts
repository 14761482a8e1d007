import type { CoverImage, PostSeo } from './media.js';
import type { PostStatus } from './post.js';

/** The fields a comparison of two states of a post reports, in the order it reports them. */
export const COMPARED_FIELDS = ['title', 'slug', 'excerpt', 'status', 'tags', 'coverImage', 'seo', 'body'] as const;
export type ComparedField = (typeof COMPARED_FIELDS)[number];

/** A post's content as a revision, or the post itself, records it. */
export interface PostState {
  version: number;
  title: string;
  slug: string;
  excerpt: string;
  body: string;
  tags: readonly string[];
  status: PostStatus;
  coverImage: CoverImage | null;
  seo: PostSeo;
}

/** Whether two covers are the same media with the same alt text (or both none). */
export function sameCoverImage(a: CoverImage | null, b: CoverImage | null): boolean {
  return a === null || b === null ? a === b : a.mediaId === b.mediaId && a.alt === b.alt;
}

/** Whether two SEO field sets are equal, field by field. */
export function sameSeo(a: PostSeo, b: PostSeo): boolean {
  return a.title === b.title && a.description === b.description && a.canonicalUrl === b.canonicalUrl;
}

interface ValueChange<T> {
  changed: boolean;
  from: T;
  to: T;
}

/** Two states of a post compared field by field; the body only as changed or not (its text diff is the adapter's). */
export interface StateComparison {
  changed: ComparedField[];
  title: ValueChange<string>;
  slug: ValueChange<string>;
  excerpt: ValueChange<string>;
  status: ValueChange<PostStatus>;
  /** Tags as sets: `added` in the order `to` lists them, `removed` in the order `from` does. Order alone is no change. */
  tags: { changed: boolean; added: string[]; removed: string[] };
  /** The cover as a whole: another media or another alt text is a change. */
  coverImage: ValueChange<CoverImage | null>;
  /** The three SEO fields as one: any of them differing is a change. */
  seo: ValueChange<PostSeo>;
  bodyChanged: boolean;
}

/** What changes when a post goes from state `from` to state `to`. Exact comparison: no trimming or case folding. */
export function compareStates(from: PostState, to: PostState): StateComparison {
  const value = <T>(a: T, b: T): ValueChange<T> => ({ changed: a !== b, from: a, to: b });
  const before = new Set(from.tags);
  const after = new Set(to.tags);
  const added = to.tags.filter((tag) => !before.has(tag));
  const removed = from.tags.filter((tag) => !after.has(tag));
  const comparison: StateComparison = {
    changed: [],
    title: value(from.title, to.title),
    slug: value(from.slug, to.slug),
    excerpt: value(from.excerpt, to.excerpt),
    status: value(from.status, to.status),
    tags: { changed: added.length > 0 || removed.length > 0, added, removed },
    coverImage: { changed: !sameCoverImage(from.coverImage, to.coverImage), from: from.coverImage, to: to.coverImage },
    seo: { changed: !sameSeo(from.seo, to.seo), from: from.seo, to: to.seo },
    bodyChanged: from.body !== to.body,
  };
  comparison.changed = COMPARED_FIELDS.filter((field) => (field === 'body' ? comparison.bodyChanged : comparison[field].changed));
  return comparison;
}
