import { cursorScope, type CursorField } from '../cursor.js';
import type { PreviewLink } from '../preview-links.js';

/** The position of a post's links (newest first): `[createdAtIso, id]`. */
export const PREVIEW_LINK_POSITION: readonly CursorField[] = ['instant', 'string'];

/** The scope of `PreviewLinkRepository.listForPost`: one post's links. */
export function previewLinkCursorScope(postId: string): string {
  return cursorScope({ list: 'preview-links', postId });
}

export interface PreviewLinkQuery {
  /** 1 to 100. */
  limit: number;
  cursor?: string | null;
}

/**
 * Preview links of posts. Auto-commit only (outside `unitOfWork`). Every adapter passes
 * `describePreviewLinkRepositoryContract`.
 * - `create(link, max?)` stores it as given; a link of a post that does not exist throws
 *   `NotFoundError('post')`, an id another holds `DuplicateIdError`, a `tokenHash` another holds
 *   `DuplicateIdError` too (tokens are random: it does not happen). With `max`, it stores it only
 *   while the post has fewer than `max` links active at `link.createdAt` (not revoked, `expiresAt`
 *   after it), else throws `PreviewLinkLimitReachedError(max)` and stores nothing; the count and
 *   the insert are one atomic step per post, so of concurrent creates for one post, in one
 *   process or several, never more than `max` are active.
 * - `listForPost(postId, query)` answers a page of the post's links, newest first (by `createdAt`,
 *   ties by id, both descending), revoked and expired ones included, keyset-paginated like every
 *   list: following `nextCursor` (null on the last page) reaches every link once; a cursor of
 *   another post, or no cursor at all, throws `InvalidCursorError`; none is
 *   `{ items: [], nextCursor: null }`.
 * - `revoke(postId, id, at)` sets `revokedAt = at` unless the link is revoked already (the first
 *   time is kept) and answers the link; a link that does not exist, or is another post's, throws
 *   `NotFoundError('previewLink')`.
 * - `findActive(tokenHash, now)` answers the link with that hash when it is neither revoked nor
 *   expired at `now` (`expiresAt` after `now`), else null.
 * - Deleting a post deletes its links (a later `findActive` answers null).
 * - `purge(before)` deletes the links that expired or were revoked before `before`, and answers
 *   how many.
 */
export interface PreviewLinkRepository {
  create(link: PreviewLink, max?: number): Promise<PreviewLink>;
  listForPost(postId: string, query: PreviewLinkQuery): Promise<{ items: PreviewLink[]; nextCursor: string | null }>;
  revoke(postId: string, id: string, at: Date): Promise<PreviewLink>;
  findActive(tokenHash: string, now: Date): Promise<PreviewLink | null>;
  purge(before: Date): Promise<number>;
}
