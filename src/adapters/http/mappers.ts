import type { components } from '../../../generated/api.js';
import type { ActivityEvent, Post, PostSummary, Revision, RevisionSummary } from '../../domain/index.js';

type Schemas = components['schemas'];

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
  };
}

export function toApiRevisionSummary(revision: RevisionSummary): Schemas['RevisionSummary'] {
  return {
    postId: revision.postId,
    version: revision.version,
    title: revision.title,
    slug: revision.slug,
    excerpt: revision.excerpt,
    tags: [...revision.tags],
    status: revision.status,
    wordCount: revision.wordCount,
    createdAt: revision.createdAt.toISOString(),
    actor: { id: revision.actor.id, name: revision.actor.name },
  };
}

export function toApiRevision(revision: Revision): Schemas['Revision'] {
  const { body, ...summary } = revision;
  return { ...toApiRevisionSummary(summary), body };
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

/** A strong ETag: the version, quoted. */
export function etagOf(version: number): string {
  return `"${version}"`;
}

/**
 * The versions an If-Match header accepts: `*`, or the strong entity tags it lists. Weak tags
 * never match (RFC 9110 §13.1.1 uses the strong comparison) and anything unparsable matches
 * nothing, so it ends in a 412.
 */
export function parseIfMatch(header: string): readonly number[] | '*' {
  if (header.trim() === '*') return '*';
  const versions: number[] = [];
  for (const tag of header.split(',')) {
    const match = /^\s*"([1-9][0-9]{0,9})"\s*$/.exec(tag);
    if (match?.[1]) versions.push(Number(match[1]));
  }
  return versions;
}

/** Whether an If-None-Match header matches the current version (weak comparison, `*` matches). */
export function ifNoneMatchHits(header: string, version: number): boolean {
  if (header.trim() === '*') return true;
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etagOf(version));
}
