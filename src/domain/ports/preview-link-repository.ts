import type { PreviewLink } from '../preview-links.js';

/**
 * Preview links of posts. Auto-commit only (outside `unitOfWork`). Every adapter passes
 * `describePreviewLinkRepositoryContract`.
 * - `create(link)` stores it as given; a link of a post that does not exist throws
 *   `NotFoundError('post')`, an id another holds `DuplicateIdError`, a `tokenHash` another holds
 *   `DuplicateIdError` too (tokens are random: it does not happen).
 * - `listForPost(postId, limit)` answers up to `limit` of the post's links, newest first (by
 *   `createdAt`, ties by id, both descending), revoked and expired ones included; none is `[]`.
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
  create(link: PreviewLink): Promise<PreviewLink>;
  listForPost(postId: string, limit: number): Promise<PreviewLink[]>;
  revoke(postId: string, id: string, at: Date): Promise<PreviewLink>;
  findActive(tokenHash: string, now: Date): Promise<PreviewLink | null>;
  purge(before: Date): Promise<number>;
}
