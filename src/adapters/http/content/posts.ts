import type { Media, Post, PostSummary } from '../../../domain/index.js';
import type { components } from '../../../../generated/api.js';
import { toContentCover } from './images.js';

type Schemas = components['schemas'];

/** The media the Content API shows, found by id (see `ContentQueries.media`): a deleted one is absent. */
export type FoundMedia = ReadonlyMap<string, Media>;

/** The media of a post's cover, when it has one that still exists. */
export function coverMediaOf(post: PostSummary, media: FoundMedia): Media | undefined {
  return post.coverImage === null ? undefined : media.get(post.coverImage.mediaId);
}

/** The media ids of the posts' covers. */
export function coverIdsOf(posts: readonly PostSummary[]): string[] {
  return posts.flatMap((post) => (post.coverImage === null ? [] : [post.coverImage.mediaId]));
}

/**
 * What readers see of a post: no version, status or anything else internal; its cover null when
 * its media is gone. `publishedAt` must be set (a visible post has been published; a preview or a
 * webhook sets it first).
 */
export function toContentSummary(post: PostSummary, media: FoundMedia, contentApiUrl: string): Schemas['ContentPostSummary'] {
  const cover = coverMediaOf(post, media);
  return {
    id: post.id,
    title: post.title,
    slug: post.slug,
    excerpt: post.excerpt,
    tags: [...post.tags],
    wordCount: post.wordCount,
    coverImage: cover === undefined ? null : toContentCover(post.coverImage!, cover, contentApiUrl),
    seo: { ...post.seo },
    publishedAt: post.publishedAt!.toISOString(),
    updatedAt: post.updatedAt.toISOString(),
  };
}

/** A post as `GET /content/posts/{id}` shows it without `html`. */
export function toContentPost(post: Post, media: FoundMedia, contentApiUrl: string): Schemas['ContentPost'] {
  return { ...toContentSummary(post, media, contentApiUrl), body: post.body };
}

/**
 * A post as the Content API shows it (`ContentPost`, without `html`), its cover's media looked up
 * by `findMedia` (`ContentQueries.media`): what a webhook's payload carries.
 */
export function contentPostPresenter(
  findMedia: (ids: string[]) => Promise<FoundMedia>,
  contentApiUrl: string,
): (post: Post) => Promise<Schemas['ContentPost']> {
  return async (post) => toContentPost(post, await findMedia(coverIdsOf([post])), contentApiUrl);
}
