import { DuplicateIdError, NotFoundError, PreviewLinkLimitReachedError } from '../../domain/errors.js';
import { previewLinkCursorScope, type PreviewLinkQuery, type PreviewLinkRepository } from '../../domain/ports/preview-link-repository.js';
import { previewLinkStatus, type PreviewLink } from '../../domain/preview-links.js';
import { newestFirstPage } from './newest-first.js';
import { copyDate, copyNullableDate, type MemoryData, type MemoryDatabase } from './state.js';

function copyLink(l: PreviewLink): PreviewLink {
  return { ...l, createdAt: copyDate(l.createdAt), expiresAt: copyDate(l.expiresAt), revokedAt: copyNullableDate(l.revokedAt) };
}

/**
 * Auto-commit only: each call is one synchronous step under the store's lock. A post's deletion
 * deletes its links (post-triggers.ts), as the Drizzle store's foreign key cascades.
 */
export class MemoryPreviewLinkRepository implements PreviewLinkRepository {
  readonly #db: MemoryDatabase;

  constructor(db: MemoryDatabase) {
    this.#db = db;
  }

  #exec<T>(fn: (data: MemoryData) => T): Promise<T> {
    return this.#db.autoCommit.exec(fn);
  }

  /** The limit, then the unique constraints, then the post: the order in which the Drizzle store checks them. */
  create(link: PreviewLink, max?: number): Promise<PreviewLink> {
    return this.#exec((data) => {
      if (max !== undefined) {
        let active = 0;
        for (const other of data.previewLinks.values()) {
          if (other.postId === link.postId && previewLinkStatus(other, link.createdAt) === 'active') active += 1;
        }
        if (active >= max) throw new PreviewLinkLimitReachedError(max);
      }
      if (data.previewLinks.has(link.id)) throw new DuplicateIdError(link.id);
      for (const other of data.previewLinks.values()) {
        if (other.tokenHash === link.tokenHash) throw new DuplicateIdError(link.tokenHash);
      }
      if (!data.posts.has(link.postId)) throw new NotFoundError('post', link.postId);
      data.previewLinks.set(link.id, copyLink(link));
      return copyLink(link);
    });
  }

  listForPost(postId: string, query: PreviewLinkQuery): Promise<{ items: PreviewLink[]; nextCursor: string | null }> {
    return this.#exec((data) => {
      const own = [...data.previewLinks.values()].filter((l) => l.postId === postId);
      const page = newestFirstPage(own, (l) => l.createdAt, previewLinkCursorScope(postId), query);
      return { items: page.items.map(copyLink), nextCursor: page.nextCursor };
    });
  }

  revoke(postId: string, id: string, at: Date): Promise<PreviewLink> {
    return this.#exec((data) => {
      const link = data.previewLinks.get(id);
      if (link === undefined || link.postId !== postId) throw new NotFoundError('previewLink', id);
      link.revokedAt ??= copyDate(at);
      return copyLink(link);
    });
  }

  findActive(tokenHash: string, now: Date): Promise<PreviewLink | null> {
    return this.#exec((data) => {
      for (const link of data.previewLinks.values()) {
        if (link.tokenHash === tokenHash) return previewLinkStatus(link, now) === 'active' ? copyLink(link) : null;
      }
      return null;
    });
  }

  purge(before: Date): Promise<number> {
    return this.#exec((data) => {
      const cutoff = before.getTime();
      let purged = 0;
      for (const [id, link] of data.previewLinks) {
        if (link.expiresAt.getTime() < cutoff || (link.revokedAt !== null && link.revokedAt.getTime() < cutoff)) {
          data.previewLinks.delete(id);
          purged += 1;
        }
      }
      return purged;
    });
  }
}
