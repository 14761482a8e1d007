import { and, count, desc, eq, gt, isNull, lt, or, sql, type SQL } from 'drizzle-orm';
import { decodeCursor, encodeCursor } from '../../../domain/cursor.js';
import { NotFoundError, PreviewLinkLimitReachedError } from '../../../domain/errors.js';
import { checkedPageLimit, hasCursor, pageOf } from '../../../domain/paging.js';
import {
  PREVIEW_LINK_POSITION,
  previewLinkCursorScope,
  type PreviewLinkQuery,
  type PreviewLinkRepository,
} from '../../../domain/ports/preview-link-repository.js';
import type { PreviewLink } from '../../../domain/preview-links.js';
import { type Database, type DbSession } from '../driver/database.js';
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
  async create(link: PreviewLink, max?: number): Promise<PreviewLink> {
    const t = previewLinks;
    const insert = (db: Database) => db.insert(t).values(link).returning();
    const ctx = { id: link.id, tokenHash: link.tokenHash, postId: link.postId };
    if (max === undefined) return toLink((await this.session.run(insert, ctx))[0]!);
    const rows = await this.session.transaction(async (tx) => {
      // One create per post at a time past this lock (in every process: it is the database's; two
      // posts whose ids hash alike merely wait for each other). The count is the next statement,
      // so under READ COMMITTED it sees every link committed before the lock was granted; counted
      // in the INSERT's own statement, two creates could both see max - 1.
      await tx.execute(sql`select pg_advisory_xact_lock(hashtext('margin-cms:preview-links'), hashtext(${link.postId}))`);
      const [counted] = await tx
        .select({ n: count() })
        .from(t)
        .where(and(eq(t.postId, link.postId), isNull(t.revokedAt), gt(t.expiresAt, link.createdAt)));
      if ((counted?.n ?? 0) >= max) throw new PreviewLinkLimitReachedError(max);
      return insert(tx);
    }, ctx);
    return toLink(rows[0]!);
  }

  async listForPost(postId: string, query: PreviewLinkQuery): Promise<{ items: PreviewLink[]; nextCursor: string | null }> {
    const limit = checkedPageLimit(query.limit);
    const t = previewLinks;
    const scope = previewLinkCursorScope(postId);
    let after: SQL | undefined;
    if (hasCursor(query.cursor)) {
      const [at, id] = decodeCursor(query.cursor, scope, PREVIEW_LINK_POSITION) as [string, string];
      after = sql`(${t.createdAt}, ${t.id}) < (${at}::timestamptz, ${id})`;
    }
    const rows = await this.session.run((db) =>
      db
        .select()
        .from(t)
        .where(and(eq(t.postId, postId), after))
        .orderBy(desc(t.createdAt), desc(t.id))
        .limit(limit + 1),
    );
    return pageOf(rows.map(toLink), limit, (last) => encodeCursor(scope, [last.createdAt.toISOString(), last.id]));
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
