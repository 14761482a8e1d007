import { and, desc, eq, gt, isNull, lt, or, sql } from 'drizzle-orm';
import { NotFoundError } from '../../../domain/errors.js';
import type { PreviewLinkRepository } from '../../../domain/ports/preview-link-repository.js';
import type { PreviewLink } from '../../../domain/preview-links.js';
import { type DbSession } from '../driver/database.js';
import { previewLinks } from '../schema/schema.js';

type LinkRow = typeof previewLinks.$inferSelect;

function toLink(row: LinkRow): PreviewLink {
  return {
    id: row.id,
    postId: row.postId,
    tokenHash: row.tokenHash,
    createdAt: row.createdAt,
    expiresAt: row.expiresAt,
    revokedAt: row.revokedAt,
  };
}

/** A post's deletion deletes its links: the foreign key `preview_links_post_fkey` cascades. */
export class DrizzlePreviewLinkRepository implements PreviewLinkRepository {
  constructor(private readonly session: DbSession) {}

  /** A missing post is the foreign key's violation, a taken id or hash a unique one (pg-errors.ts). */
  async create(link: PreviewLink): Promise<PreviewLink> {
    const rows = await this.session.run((db) => db.insert(previewLinks).values(link).returning(), {
      id: link.id,
      tokenHash: link.tokenHash,
      postId: link.postId,
    });
    return toLink(rows[0]!);
  }

  async listForPost(postId: string, limit: number): Promise<PreviewLink[]> {
    const t = previewLinks;
    const rows = await this.session.run((db) =>
      db.select().from(t).where(eq(t.postId, postId)).orderBy(desc(t.createdAt), desc(t.id)).limit(limit),
    );
    return rows.map(toLink);
  }

  /** The first revocation is kept (`coalesce`). */
  async revoke(postId: string, id: string, at: Date): Promise<PreviewLink> {
    const t = previewLinks;
    const rows = await this.session.run((db) =>
      db
        .update(t)
        .set({ revokedAt: sql`coalesce(${t.revokedAt}, ${at.toISOString()}::timestamptz)` })
        .where(and(eq(t.id, id), eq(t.postId, postId)))
        .returning(),
    );
    if (rows[0] === undefined) throw new NotFoundError('previewLink', id);
    return toLink(rows[0]);
  }

  async findActive(tokenHash: string, now: Date): Promise<PreviewLink | null> {
    const t = previewLinks;
    const rows = await this.session.run((db) =>
      db
        .select()
        .from(t)
        .where(and(eq(t.tokenHash, tokenHash), isNull(t.revokedAt), gt(t.expiresAt, now))),
    );
    return rows[0] === undefined ? null : toLink(rows[0]);
  }

  async purge(before: Date): Promise<number> {
    const t = previewLinks;
    const rows = await this.session.run((db) =>
      db
        .delete(t)
        .where(or(lt(t.expiresAt, before), lt(t.revokedAt, before)))
        .returning({ id: t.id }),
    );
    return rows.length;
  }
}
