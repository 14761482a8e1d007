import { InvalidTransitionError } from './errors.js';
import type { Post, PostStatus } from './post.js';

export const ACTIVITY_TYPES = [
  'created',
  'updated',
  'published',
  'unpublished',
  'archived',
  'deleted',
  'restored',
] as const;

export type ActivityType = (typeof ACTIVITY_TYPES)[number];

export const BULK_ACTIONS = [
  'publish',
  'unpublish',
  'archive',
  'delete',
  'addTag',
  'removeTag',
] as const;

export type BulkAction = (typeof BULK_ACTIONS)[number];

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
    post.publishedAt !== null
      ? new Date(post.publishedAt.getTime())
      : next === 'published'
        ? new Date(now.getTime())
        : null;
  return { status: next, publishedAt };
}

/**
 * The activity recorded for an update that moves a post from `before` to
 * `after`. A status change wins over a content change (one activity per update):
 * - any other status → archived: 'archived'
 * - draft/archived → published: 'published'
 * - published → draft: 'unpublished'
 * - archived → draft, or no status change: 'updated'
 *
 * `contentChanged` therefore never changes the result today; callers decide
 * whether an update with no status and no content change is recorded at all.
 */
export function activityTypeFor(
  before: PostStatus,
  after: PostStatus,
  contentChanged: boolean,
): Extract<ActivityType, 'published' | 'unpublished' | 'archived' | 'updated'> {
  void contentChanged;
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
