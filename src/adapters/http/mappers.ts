import type { components } from '../../../generated/api.js';
import type { ActivityEvent, CoverImage, Media, Post, PostSeo, PostSummary, Revision, RevisionSummary } from '../../domain/index.js';

type Schemas = components['schemas'];

export function toApiCoverImage(cover: CoverImage | null): Schemas['CoverImage'] | null {
  return cover === null ? null : { mediaId: cover.mediaId, alt: cover.alt };
}

export function toApiSeo(seo: PostSeo): Schemas['PostSeo'] {
  return { title: seo.title, description: seo.description, canonicalUrl: seo.canonicalUrl };
}

/** Domain objects to the contract's JSON shapes (dates as RFC 3339 UTC with milliseconds). */
export function toApiPostSummary(post: PostSummary): Schemas['PostSummary'] {
  return {
    id: post.id,
    title: post.title,
    slug: post.slug,
    excerpt: post.excerpt,
    tags: [...post.tags],
    status: post.status,
    version: post.version,
    wordCount: post.wordCount,
    createdAt: post.createdAt.toISOString(),
    updatedAt: post.updatedAt.toISOString(),
    publishedAt: post.publishedAt ? post.publishedAt.toISOString() : null,
    publishAt: post.publishAt ? post.publishAt.toISOString() : null,
    coverImage: toApiCoverImage(post.coverImage),
    seo: toApiSeo(post.seo),
  };
}

/** A post with its body, in the contract's property order (the summary's, `body` after `excerpt`). */
export function toApiPost(post: Post): Schemas['Post'] {
  return {
    id: post.id,
    title: post.title,
    slug: post.slug,
    excerpt: post.excerpt,
    body: post.body,
    tags: [...post.tags],
    status: post.status,
    version: post.version,
    wordCount: post.wordCount,
    createdAt: post.createdAt.toISOString(),
    updatedAt: post.updatedAt.toISOString(),
    publishedAt: post.publishedAt ? post.publishedAt.toISOString() : null,
    publishAt: post.publishAt ? post.publishAt.toISOString() : null,
    coverImage: toApiCoverImage(post.coverImage),
    seo: toApiSeo(post.seo),
  };
}

function toApiRevisionFields(revision: Omit<Revision, 'body'>): Omit<Schemas['Revision'], 'body'> {
  return {
    postId: revision.postId,
    version: revision.version,
    title: revision.title,
    slug: revision.slug,
    excerpt: revision.excerpt,
    tags: [...revision.tags],
    status: revision.status,
    coverImage: toApiCoverImage(revision.coverImage),
    seo: toApiSeo(revision.seo),
    wordCount: revision.wordCount,
    createdAt: revision.createdAt.toISOString(),
    actor: { id: revision.actor.id, name: revision.actor.name },
    autosave: revision.autosaveSince !== null,
  };
}

export function toApiRevisionSummary(revision: RevisionSummary): Schemas['RevisionSummary'] {
  return { ...toApiRevisionFields(revision), changed: [...revision.changed] };
}

export function toApiRevision(revision: Revision): Schemas['Revision'] {
  const { body, ...fields } = revision;
  return { ...toApiRevisionFields(fields), body };
}

export function toApiActivityEvent(event: ActivityEvent): Schemas['ActivityEvent'] {
  return {
    id: event.id,
    type: event.type,
    postId: event.postId,
    postTitle: event.postTitle,
    postVersion: event.postVersion,
    actor: { id: event.actor.id, name: event.actor.name },
    occurredAt: event.occurredAt.toISOString(),
  };
}

/**
 * A media with the absolute public URL of each file, `<filesUrl>/<id>/<name>` (`filesUrl` is the
 * Content API's media address, `https://api.example.com/api/v1/content/media`); the variants are
 * every file but the original, in the order stored (by width, then type).
 */
export function toApiMedia(media: Media, filesUrl: string): Schemas['Media'] {
  const [original, ...variants] = media.files;
  return {
    id: media.id,
    url: `${filesUrl}/${media.id}/${original!.name}`,
    contentType: media.contentType,
    width: media.width,
    height: media.height,
    bytes: media.bytes,
    sha256: media.sha256,
    alt: media.alt,
    caption: media.caption,
    createdAt: media.createdAt.toISOString(),
    variants: variants.map((file) => ({
      width: file.width as Schemas['MediaVariant']['width'],
      height: file.height,
      contentType: file.contentType,
      url: `${filesUrl}/${media.id}/${file.name}`,
      bytes: file.bytes,
    })),
  };
}

/** A strong ETag: the version, quoted. */
export function etagOf(version: number): string {
  return `"${version}"`;
}

/**
 * One element of an If-Match list (RFC 9110 §8.8.3): an optional `W/`, then a quoted opaque tag of
 * visible ASCII but `"`, or obs-text; then optional whitespace and a comma, or the end.
 */
const ENTITY_TAG = /[ \t]*(?:(W\/)?"([\x21\x23-\x7e\x80-\xff]*)")?[ \t]*(?:,|$)/y;
/**
 * An opaque tag this server writes: a version in decimal, with the coding appended when the
 * answer was compressed (`3-br`, see compression.ts); the version is what it names.
 */
const VERSION_TAG = /^([1-9][0-9]{0,9})(?:-(?:br|gzip))?$/;

/**
 * What an If-Match header asks for: `*`, or the versions its strong entity tags name (`"3"`, or
 * `"3-br"` as a compressed answer sent it); null when it is neither `*` nor a list of entity tags
 * (`abc`, `3`, `"3`, an empty list). Weak tags never
 * match (If-Match uses the strong comparison, RFC 9110 §13.1.1), and neither do strong tags that
 * are not a version this server writes (`"abc"`): both are left out, so a list of nothing else
 * names no version and ends in a 412.
 */
export function parseIfMatch(header: string): readonly number[] | '*' | null {
  if (header.trim() === '*') return '*';
  const versions: number[] = [];
  let tags = 0;
  ENTITY_TAG.lastIndex = 0;
  while (ENTITY_TAG.lastIndex < header.length) {
    const at = ENTITY_TAG.lastIndex;
    const match = ENTITY_TAG.exec(header);
    if (match === null || ENTITY_TAG.lastIndex === at) return null;
    const [, weak, opaque] = match;
    if (opaque === undefined) continue; // an empty list element, which a recipient skips (RFC 9110 §5.6.1.2)
    tags++;
    const version = weak === undefined ? VERSION_TAG.exec(opaque)?.[1] : undefined;
    if (version !== undefined) versions.push(Number(version));
  }
  return tags === 0 ? null : versions;
}

/** Whether an If-None-Match header matches the current version (weak comparison, `*` matches). */
export function ifNoneMatchHits(header: string, version: number): boolean {
  if (header.trim() === '*') return true;
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etagOf(version));
}
