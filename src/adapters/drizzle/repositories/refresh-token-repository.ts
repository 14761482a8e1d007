import { checkedBatchLimit } from '../../../domain/paging.js';
import { and, eq, gt, isNull, sql } from 'drizzle-orm';
import type { ConsumeOutcome, RefreshToken, RefreshTokenRepository } from '../../../domain/ports/refresh-token-repository.js';
import { type DbSession } from '../driver/database.js';
import { refreshTokens } from '../schema/schema.js';

type TokenRow = typeof refreshTokens.$inferSelect;

function toToken(row: TokenRow): RefreshToken {
  return {
    id: row.id,
    familyId: row.familyId,
    userId: row.userId,
    tokenHash: row.tokenHash,
    createdAt: row.createdAt,
    expiresAt: row.expiresAt,
    consumedAt: row.consumedAt,
    revokedAt: row.revokedAt,
    replay: row.replay,
    sessionVersion: row.sessionVersion,
  };
}

export class DrizzleRefreshTokenRepository implements RefreshTokenRepository {
  constructor(private readonly session: DbSession) {}

  async insert(token: RefreshToken): Promise<void> {
    await this.session.run(
      (db) =>
        db.insert(refreshTokens).values({
          id: token.id,
          familyId: token.familyId,
          userId: token.userId,
          tokenHash: token.tokenHash,
          createdAt: token.createdAt,
          expiresAt: token.expiresAt,
          consumedAt: token.consumedAt,
          revokedAt: token.revokedAt,
          replay: token.replay,
          sessionVersion: token.sessionVersion,
        }),
      { id: token.id },
    );
  }

  /**
   * One transaction: the guarded UPDATE decides (of two concurrent rotations the second waits for
   * the first's row lock, then no longer matches and reads the committed winner); the successor is
   * inserted only by the winner. Only when the UPDATE matched nothing does one read say why.
   */
  async rotate(tokenHash: string, at: Date, successor: RefreshToken, replay: string): Promise<ConsumeOutcome> {
    const t = refreshTokens;
    return this.session.transaction(
      async (tx): Promise<ConsumeOutcome> => {
        const consumed = await tx
          .update(t)
          .set({ consumedAt: at, replay })
          .where(and(eq(t.tokenHash, tokenHash), isNull(t.consumedAt), isNull(t.revokedAt), gt(t.expiresAt, at)))
          .returning();
        if (consumed[0] !== undefined) {
          await tx.insert(t).values({ ...successor });
          return { outcome: 'consumed', token: toToken(consumed[0]) };
        }
        const rows = await tx.select().from(t).where(eq(t.tokenHash, tokenHash));
        const row = rows[0];
        if (row === undefined) return { outcome: 'unknown' };
        const token = toToken(row);
        if (token.revokedAt !== null) return { outcome: 'revoked', token };
        if (token.consumedAt !== null) return { outcome: 'already_consumed', token };
        return { outcome: 'expired', token };
      },
      { id: successor.id },
    );
  }

  async find(tokenHash: string): Promise<RefreshToken | null> {
    const rows = await this.session.run((db) => db.select().from(refreshTokens).where(eq(refreshTokens.tokenHash, tokenHash)));
    return rows[0] === undefined ? null : toToken(rows[0]);
  }

  async purgeExpired(now: Date, limit: number): Promise<number> {
    const t = refreshTokens;
    const batch = checkedBatchLimit(limit);
    const at = sql`${now.toISOString()}::timestamptz`;
    const deleted = await this.session.run((db) =>
      db
        .delete(t)
        .where(sql`${t.id} IN (SELECT ${t.id} FROM ${t} WHERE ${t.expiresAt} <= ${at} OR ${t.revokedAt} <= ${at} LIMIT ${batch})`)
        .returning({ id: t.id }),
    );
    return deleted.length;
  }

  async forgetReplays(consumedBefore: Date, limit: number): Promise<number> {
    const t = refreshTokens;
    const batch = checkedBatchLimit(limit);
    const cleared = await this.session.run((db) =>
      db
        .update(t)
        .set({ replay: null })
        .where(
          sql`${t.id} IN (SELECT ${t.id} FROM ${t} WHERE ${t.replay} IS NOT NULL AND ${t.consumedAt} < ${consumedBefore.toISOString()}::timestamptz LIMIT ${batch})`,
        )
        .returning({ id: t.id }),
    );
    return cleared.length;
  }

  /**
   * Repeats the UPDATE until it revokes nothing. Under READ COMMITTED one UPDATE cannot see a
   * successor that a concurrent rotation inserts and commits while the UPDATE waits for the row
   * lock of the token being rotated; the next statement takes a fresh snapshot and does. Once every
   * token is revoked, no rotation can start again (it requires `revoked_at IS NULL`).
   */
  async revokeFamily(familyId: string, at: Date): Promise<void> {
    const t = refreshTokens;
    for (;;) {
      const revoked = await this.session.run((db) =>
        db
          .update(t)
          .set({ revokedAt: at })
          .where(and(eq(t.familyId, familyId), isNull(t.revokedAt)))
          .returning({ id: t.id }),
      );
      if (revoked.length === 0) return;
    }
  }

  /** Repeated until it revokes nothing, for the reason `revokeFamily` gives. */
  async revokeUser(userId: string, at: Date): Promise<void> {
    const t = refreshTokens;
    for (;;) {
      const revoked = await this.session.run((db) =>
        db
          .update(t)
          .set({ revokedAt: at })
          .where(and(eq(t.userId, userId), isNull(t.revokedAt)))
          .returning({ id: t.id }),
      );
      if (revoked.length === 0) return;
    }
  }
}
