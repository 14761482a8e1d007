import { InvalidTransitionError, ValidationError, type ValidationIssue } from './errors.js';
import type { Post, PostStatus } from './post.js';
import type { PostQuery } from './ports/post-repository.js';
import { normalizeTag, normalizeTags } from './tags.js';
import { hasControlCharacter, isStorableText, UNSTORABLE_TEXT_MESSAGE, unstorableTextIssues } from './text.js';

export const ACTIVITY_TYPES = ['created', 'updated', 'published', 'unpublished', 'archived', 'deleted', 'restored'] as const;

export type ActivityType = (typeof ACTIVITY_TYPES)[number];

export type BulkAction = 'publish' | 'unpublish' | 'archive' | 'delete' | 'addTag' | 'removeTag';

/**
 * Status and publishedAt after moving `post` to `next`.
 * The first publish stamps `publishedAt = now`; later unpublish/republish
 * (and archiving) keep the existing `publishedAt`.
 */
export function applyStatusChange(
  post: Pick<Post, 'status' | 'publishedAt'>,
  next: PostStatus,
  now: Date,
): { status: PostStatus; publishedAt: Date | null } {
  const publishedAt =
    post.publishedAt !== null ? new Date(post.publishedAt.getTime()) : next === 'published' ? new Date(now.getTime()) : null;
  return { status: next, publishedAt };
}

/**
 * The activity recorded for an update that moves a post from `before` to
 * `after`. A status change wins over a content change (one activity per update):
 * - any other status → archived: 'archived'
 * - draft/archived → published: 'published'
 * - published → draft: 'unpublished'
 * - archived → draft, or no status change: 'updated'
 */
export function activityTypeFor(
  before: PostStatus,
  after: PostStatus,
): Extract<ActivityType, 'published' | 'unpublished' | 'archived' | 'updated'> {
  if (before === after) return 'updated';
  if (after === 'archived') return 'archived';
  if (after === 'published') return 'published';
  if (before === 'published') return 'unpublished';
  return 'updated';
}

/**
 * The status a post in `from` gets when `action` is applied to it.
 * `delete`, `addTag` and `removeTag` leave the status unchanged.
 * @throws InvalidTransitionError for publish when already published,
 *   unpublish when not published, archive when already archived.
 */
export function transitionFor(action: BulkAction, from: PostStatus): PostStatus {
  switch (action) {
    case 'publish':
      if (from === 'published') throw new InvalidTransitionError(from, action);
      return 'published';
    case 'unpublish':
      if (from !== 'published') throw new InvalidTransitionError(from, action);
      return 'draft';
    case 'archive':
      if (from === 'archived') throw new InvalidTransitionError(from, action);
      return 'archived';
    case 'delete':
    case 'addTag':
    case 'removeTag':
      return from;
  }
}

/**
 * The text fields of a create or an edit, checked, with their tags normalised: every problem is
 * reported at once, as a `ValidationError` whose pointers are relative to the input (`/title`,
 * `/tags/3`). Returns the normalised tags (undefined when none were given).
 */
export function checkedPostContent(fields: {
  title?: string;
  slug?: string;
  excerpt?: string;
  body?: string;
  tags?: readonly string[];
}): string[] | undefined {
  const { title, slug, excerpt, body, tags: rawTags } = fields;
  const issues = unstorableTextIssues({ title, slug, excerpt, body, tags: rawTags });
  let tags: string[] | undefined;
  if (rawTags !== undefined) {
    try {
      tags = normalizeTags(rawTags);
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      const seen = new Set(issues.map((i) => i.pointer));
      issues.push(...error.issues.filter((i) => !seen.has(i.pointer)));
    }
  }
  if (issues.length > 0) throw new ValidationError(issues);
  return tags;
}

/**
 * A tag given to filter or change posts by, normalised.
 * @throws ValidationError at `/tag`, from `source` (unstorable text, or a tag `normalizeTag` refuses)
 */
export function checkedTag(tag: string, source: 'input' | 'query'): string {
  if (!isStorableText(tag)) throw new ValidationError([{ pointer: '/tag', message: UNSTORABLE_TEXT_MESSAGE }], source);
  try {
    return normalizeTag(tag);
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    throw new ValidationError(error.issues, source);
  }
}

/**
 * A post list's filters, checked, with the tag normalised. `q` may not hold control characters:
 * the Drizzle adapter searches title, excerpt and body joined by line breaks, so a line break in
 * `q` could match across them.
 * @throws ValidationError at `/q` and/or `/tag` (pointers into the query)
 */
export function checkedPostQuery(query: PostQuery): PostQuery {
  const issues: ValidationIssue[] = [];
  if (query.q !== undefined && hasControlCharacter(query.q)) {
    issues.push({ pointer: '/q', message: 'must not contain line breaks or other control characters' });
  }
  let tag: string | undefined;
  if (query.tag !== undefined) {
    try {
      tag = checkedTag(query.tag, 'query');
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      issues.push(...error.issues);
    }
  }
  if (issues.length > 0) throw new ValidationError(issues, 'query');
  return tag === undefined ? query : { ...query, tag };
}
