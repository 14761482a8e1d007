import { InvalidTransitionError, ValidationError, type ValidationIssue } from './errors.js';
import { MEDIA_ALT_MAX, type PostSeo } from './media.js';
import type { BulkAction, Post, PostStatus, UpdateActivityType } from './post.js';
import type { PostChanges, PostQuery } from './ports/post-repository.js';
import { sameCoverImage, sameSeo } from './revision-diff.js';
import { normalizeTag, normalizeTags } from './tags.js';
import { hasControlCharacter, isStorableText, UNSTORABLE_TEXT_MESSAGE, unstorableTextIssues } from './text.js';
import { countWords } from './word-count.js';

/** The `publishAt` a post in `status` keeps of `publishAt`: only a draft is scheduled. */
export function scheduleKept(status: PostStatus, publishAt: Date | null): Date | null {
  return status === 'draft' && publishAt !== null ? new Date(publishAt.getTime()) : null;
}

/**
 * Status, publishedAt and publishAt after moving `post` to `next`.
 * The first publish stamps `publishedAt = now`; later unpublish/republish
 * (and archiving) keep the existing `publishedAt`. Only a draft stays scheduled: moving to
 * published or archived clears `publishAt`.
 */
export function applyStatusChange(
  post: Pick<Post, 'status' | 'publishedAt' | 'publishAt'>,
  next: PostStatus,
  now: Date,
): { status: PostStatus; publishedAt: Date | null; publishAt: Date | null } {
  const publishedAt =
    post.publishedAt !== null ? new Date(post.publishedAt.getTime()) : next === 'published' ? new Date(now.getTime()) : null;
  return { status: next, publishedAt, publishAt: scheduleKept(next, post.publishAt) };
}

/**
 * The `publishAt` a post gets from a create or an edit that asks for `requested` (undefined:
 * not asked, keep `current`; null: unschedule), given the status the post has after the write.
 * Only a draft can be scheduled, and only for a time after `now`.
 * @throws ValidationError at `/publishAt` for a schedule on a published or archived post, or one
 *   that is not in the future
 */
export function scheduleAfter(status: PostStatus, current: Date | null, requested: Date | null | undefined, now: Date): Date | null {
  if (requested === undefined) return scheduleKept(status, current);
  if (requested === null) return null;
  if (status !== 'draft') {
    throw new ValidationError([{ pointer: '/publishAt', message: `only a draft can be scheduled; this post would be ${status}` }]);
  }
  if (requested.getTime() <= now.getTime()) {
    throw new ValidationError([{ pointer: '/publishAt', message: 'must be in the future' }]);
  }
  return new Date(requested.getTime());
}

/**
 * The activity recorded for an update that moves a post from `before` to
 * `after`. A status change wins over a schedule change, which wins over a content change (one
 * activity per update):
 * - any other status → archived: 'archived'
 * - draft/archived → published: 'published'
 * - published → draft: 'unpublished'
 * - a draft given a publishAt, or a different one: 'scheduled'
 * - a scheduled draft that loses its publishAt by an edit: 'unscheduled'
 * - archived → draft, or nothing of the above: 'updated'
 */
export function activityTypeFor(
  before: Pick<Post, 'status' | 'publishAt'>,
  after: Pick<Post, 'status' | 'publishAt'>,
): Exclude<UpdateActivityType, 'restored'> {
  if (before.status !== after.status) {
    if (after.status === 'archived') return 'archived';
    if (after.status === 'published') return 'published';
    if (before.status === 'published') return 'unpublished';
  }
  const was = before.publishAt?.getTime() ?? null;
  const is = after.publishAt?.getTime() ?? null;
  if (is !== null && is !== was) return 'scheduled';
  if (is === null && was !== null && before.status === after.status) return 'unscheduled';
  return 'updated';
}

/** The activity of an update that applies `changes` to `before` (see `activityTypeFor`). */
export function activityOfChanges(
  before: Pick<Post, 'status' | 'publishAt'>,
  changes: Pick<PostChanges, 'status' | 'publishAt'>,
): Exclude<UpdateActivityType, 'restored'> {
  return activityTypeFor(before, {
    status: changes.status ?? before.status,
    publishAt: changes.publishAt === undefined ? before.publishAt : changes.publishAt,
  });
}

/**
 * Whether an edit asked as an autosave is recorded as one (`UpdateRecord.autosave`): an edit of a
 * draft (scheduled or not) that keeps its status and schedule (`activityOfChanges` is `updated`).
 * A save that publishes, archives, schedules or unschedules, or edits a post that is not a draft,
 * records a revision of its own, so a published post's text changes only by a save of its own.
 */
export function autosavable(before: Pick<Post, 'status' | 'publishAt'>, changes: Pick<PostChanges, 'status' | 'publishAt'>): boolean {
  return before.status === 'draft' && activityOfChanges(before, changes) === 'updated';
}

/**
 * What a write asks to change of a post (absent fields keep their value), its tags normalised
 * (`checkedPostContent`) and its SEO fields too (`normalizedSeo`): of `seo`, absent fields keep
 * their value as well.
 */
export type PostEdit = Omit<PostChanges, 'wordCount' | 'publishedAt' | 'seo'> & { seo?: Partial<PostSeo> };

/**
 * How an edit's `publishAt` is read: `asked` (a client's edit, see `scheduleAfter`: a schedule
 * must be on a draft and in the future, else `ValidationError`) or `stated` (an import file that
 * states the post as it is: a draft keeps whatever publishAt it states, another status none).
 */
export type ScheduleReading = 'asked' | 'stated';

function sameInstant(a: Date | null, b: Date | null): boolean {
  return (a?.getTime() ?? null) === (b?.getTime() ?? null);
}

function sameTags(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((tag, i) => tag === b[i]);
}

/**
 * What `edit` changes of `before` at `now`, as the changes of an update: only the fields whose
 * value differs from `before`'s (an edit that changes nothing gives `{}`).
 * - title, slug, excerpt, tags and the cover image as given; a body with its word count (`countWords`);
 * - the SEO fields, all three, when any of them changes (those the edit leaves out keep their value);
 * - a status with the `publishedAt` of `applyStatusChange` (the first publish stamps `now`);
 * - `publishAt` for the status the post has after the edit (only a draft stays scheduled), the
 *   edit's own read as `schedule` says.
 * @throws ValidationError at `/publishAt` when `schedule` is `asked` (see `scheduleAfter`)
 */
export function changesFor(before: Post, edit: PostEdit, now: Date, schedule: ScheduleReading = 'asked'): PostChanges {
  const changes: PostChanges = {};
  if (edit.title !== undefined && edit.title !== before.title) changes.title = edit.title;
  if (edit.slug !== undefined && edit.slug !== before.slug) changes.slug = edit.slug;
  if (edit.excerpt !== undefined && edit.excerpt !== before.excerpt) changes.excerpt = edit.excerpt;
  if (edit.body !== undefined && edit.body !== before.body) {
    changes.body = edit.body;
    changes.wordCount = countWords(edit.body);
  }
  if (edit.tags !== undefined && !sameTags(edit.tags, before.tags)) changes.tags = [...edit.tags];
  if (edit.coverImage !== undefined && !sameCoverImage(edit.coverImage, before.coverImage)) {
    changes.coverImage = edit.coverImage === null ? null : { mediaId: edit.coverImage.mediaId, alt: edit.coverImage.alt };
  }
  if (edit.seo !== undefined) {
    const seo = seoAfter(before.seo, edit.seo);
    if (!sameSeo(seo, before.seo)) changes.seo = seo;
  }
  const status = edit.status ?? before.status;
  if (status !== before.status) {
    changes.status = status;
    const { publishedAt } = applyStatusChange(before, status, now);
    if (!sameInstant(publishedAt, before.publishedAt)) changes.publishedAt = publishedAt;
  }
  const publishAt =
    schedule === 'asked'
      ? scheduleAfter(status, before.publishAt, edit.publishAt, now)
      : scheduleKept(status, edit.publishAt === undefined ? before.publishAt : edit.publishAt);
  if (!sameInstant(publishAt, before.publishAt)) changes.publishAt = publishAt;
  return changes;
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

/** Longest SEO title, SEO description and canonical URL, in characters (code points). */
export const SEO_TITLE_MAX = 200;
export const SEO_DESCRIPTION_MAX = 500;
const CANONICAL_URL_MAX = 2048;

/** A cover image as a write names it: the alt text may be left to the media's own. */
export interface CoverImageInput {
  mediaId: string;
  alt?: string;
}

function characters(value: string): number {
  let n = 0;
  for (const _ of value) n += 1;
  return n;
}

/** An absolute http(s) URL with a host, written without spaces or control characters. */
export function isCanonicalUrl(value: string): boolean {
  if (characters(value) > CANONICAL_URL_MAX || /[\s\p{Cc}]/u.test(value)) return false;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
}

/** The issues of a write's SEO fields and cover image (pointers `/seo/title`, `/coverImage/alt`…). */
function seoAndCoverIssues(seo: Partial<PostSeo> | undefined, coverImage: CoverImageInput | null | undefined): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const limited = (pointer: string, value: string | null | undefined, max: number) => {
    if (value === undefined || value === null) return;
    if (!isStorableText(value)) issues.push({ pointer, message: UNSTORABLE_TEXT_MESSAGE });
    else if (characters(value) > max) issues.push({ pointer, message: `must be at most ${max} characters` });
  };
  limited('/seo/title', seo?.title, SEO_TITLE_MAX);
  limited('/seo/description', seo?.description, SEO_DESCRIPTION_MAX);
  const url = seo?.canonicalUrl;
  if (url !== undefined && url !== null && url !== '' && !isCanonicalUrl(url)) {
    issues.push({
      pointer: '/seo/canonicalUrl',
      message: `must be an absolute http or https URL of at most ${CANONICAL_URL_MAX} characters, without spaces`,
    });
  }
  if (coverImage !== undefined && coverImage !== null) {
    if (!isStorableText(coverImage.mediaId)) issues.push({ pointer: '/coverImage/mediaId', message: UNSTORABLE_TEXT_MESSAGE });
    limited('/coverImage/alt', coverImage.alt, MEDIA_ALT_MAX);
  }
  return issues;
}

/**
 * The SEO fields of a write as stored: an empty string is no value (null). Absent fields stay
 * absent (an edit keeps them).
 */
export function normalizedSeo(seo: Partial<PostSeo>): Partial<PostSeo> {
  const normalized: Partial<PostSeo> = {};
  for (const key of ['title', 'description', 'canonicalUrl'] as const) {
    const value = seo[key];
    if (value !== undefined) normalized[key] = value === '' ? null : value;
  }
  return normalized;
}

/** The SEO fields after an edit of some of them (`normalizedSeo`), the others kept from `before`. */
export function seoAfter(before: PostSeo, edit: Partial<PostSeo>): PostSeo {
  return { title: before.title, description: before.description, canonicalUrl: before.canonicalUrl, ...normalizedSeo(edit) };
}

/**
 * The fields of a create or an edit, checked, with their tags normalised: every problem is
 * reported at once, as a `ValidationError` whose pointers are relative to the input (`/title`,
 * `/tags/3`, `/seo/canonicalUrl`, `/coverImage/alt`). Text must be storable; an SEO title is at
 * most `SEO_TITLE_MAX` characters, a description `SEO_DESCRIPTION_MAX`, a canonical URL an absolute
 * http(s) URL (`isCanonicalUrl`; an empty string is none) and a cover's alt text at most
 * `MEDIA_ALT_MAX`. Returns the normalised tags (undefined when none were given).
 */
export function checkedPostContent(fields: {
  title?: string;
  slug?: string;
  excerpt?: string;
  body?: string;
  tags?: readonly string[];
  seo?: Partial<PostSeo>;
  coverImage?: CoverImageInput | null;
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
  issues.push(...seoAndCoverIssues(fields.seo, fields.coverImage));
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
 * A post list's filters, checked, with the tag normalised. `q` may not hold control characters
 * (the contract's rule for every query text); the `relevance` sort needs a `q`.
 * @throws ValidationError at `/q`, `/tag` and/or `/sort` (pointers into the query)
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
  if (query.sort.key === 'relevance' && (query.q === undefined || query.q === '')) {
    issues.push({ pointer: '/sort', message: 'relevance needs q' });
  }
  if (issues.length > 0) throw new ValidationError(issues, 'query');
  return tag === undefined ? query : { ...query, tag };
}
