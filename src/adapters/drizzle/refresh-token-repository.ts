import { and, eq, gt, isNull } from 'drizzle-orm';
import type {
  ConsumeOutcome,
  RefreshToken,
  RefreshTokenRepository,
} from '../../domain/ports/refresh-token-repository.js';
import type { DbSession } from './database.js';
import { refreshTokens } from './schema.js';

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
        }),
      { id: token.id },
    );
  }

  /**
   * The guarded UPDATE decides (of two concurrent consumes the second waits for the first's row
   * lock, then no longer matches); only when it matched nothing does one read say why.
   */
  async consume(tokenHash: string, at: Date): Promise<ConsumeOutcome> {
    const t = refreshTokens;
    return this.session.run(async (db): Promise<ConsumeOutcome> => {
      const consumed = await db
        .update(t)
        .set({ consumedAt: at })
        .where(
          and(eq(t.tokenHash, tokenHash), isNull(t.consumedAt), isNull(t.revokedAt), gt(t.expiresAt, at)),
        )
        .returning();
      if (consumed[0] !== undefined) return { outcome: 'consumed', token: toToken(consumed[0]) };
      const rows = await db.select().from(t).where(eq(t.tokenHash, tokenHash));
      const row = rows[0];
      if (row === undefined) return { outcome: 'unknown' };
      const token = toToken(row);
      if (token.revokedAt !== null) return { outcome: 'revoked', token };
      if (token.consumedAt !== null) return { outcome: 'already_consumed', token };
      return { outcome: 'expired', token };
    });
  }

  async revokeFamily(familyId: string, at: Date): Promise<void> {
    const t = refreshTokens;
    await this.session.run((db) =>
      db
        .update(t)
        .set({ revokedAt: at })
        .where(and(eq(t.familyId, familyId), isNull(t.revokedAt))),
    );
  }
}
