import { checkedBatchLimit } from '../../domain/index.js';
import { DuplicateIdError } from '../../domain/errors.js';
import type { ConsumeOutcome, RefreshToken, RefreshTokenRepository } from '../../domain/ports/refresh-token-repository.js';
import { copyDate, copyNullableDate, type Session } from './state.js';

function copyToken(t: RefreshToken): RefreshToken {
  return {
    id: t.id,
    familyId: t.familyId,
    userId: t.userId,
    tokenHash: t.tokenHash,
    createdAt: copyDate(t.createdAt),
    expiresAt: copyDate(t.expiresAt),
    consumedAt: copyNullableDate(t.consumedAt),
    revokedAt: copyNullableDate(t.revokedAt),
    replay: t.replay,
    sessionVersion: t.sessionVersion,
  };
}

function findByHash(tokens: Map<string, RefreshToken>, tokenHash: string): RefreshToken | undefined {
  for (const token of tokens.values()) if (token.tokenHash === tokenHash) return token;
  return undefined;
}

export class MemoryRefreshTokenRepository implements RefreshTokenRepository {
  readonly #session: Session;

  constructor(session: Session) {
    this.#session = session;
  }

  insert(token: RefreshToken): Promise<void> {
    return this.#session.exec((data) => {
      if (data.refreshTokens.has(token.id)) throw new DuplicateIdError(token.id);
      data.refreshTokens.set(token.id, copyToken(token));
    });
  }

  rotate(tokenHash: string, at: Date, successor: RefreshToken, replay: string): Promise<ConsumeOutcome> {
    return this.#session.exec((data): ConsumeOutcome => {
      const token = findByHash(data.refreshTokens, tokenHash);
      if (token === undefined) return { outcome: 'unknown' };
      if (token.revokedAt !== null) return { outcome: 'revoked', token: copyToken(token) };
      if (token.consumedAt !== null) return { outcome: 'already_consumed', token: copyToken(token) };
      if (token.expiresAt.getTime() <= at.getTime()) return { outcome: 'expired', token: copyToken(token) };
      if (data.refreshTokens.has(successor.id)) throw new DuplicateIdError(successor.id);
      token.consumedAt = copyDate(at);
      token.replay = replay;
      data.refreshTokens.set(successor.id, copyToken(successor));
      return { outcome: 'consumed', token: copyToken(token) };
    });
  }

  find(tokenHash: string): Promise<RefreshToken | null> {
    return this.#session.exec((data) => {
      const token = findByHash(data.refreshTokens, tokenHash);
      return token === undefined ? null : copyToken(token);
    });
  }

  purgeExpired(now: Date, limit: number): Promise<number> {
    return this.#session.exec((data) => {
      checkedBatchLimit(limit);
      let deleted = 0;
      for (const [id, token] of data.refreshTokens) {
        if (deleted === limit) break;
        const revoked = token.revokedAt !== null && token.revokedAt.getTime() <= now.getTime();
        if (token.expiresAt.getTime() <= now.getTime() || revoked) {
          data.refreshTokens.delete(id);
          deleted += 1;
        }
      }
      return deleted;
    });
  }

  forgetReplays(consumedBefore: Date, limit: number): Promise<number> {
    return this.#session.exec((data) => {
      checkedBatchLimit(limit);
      let cleared = 0;
      for (const token of data.refreshTokens.values()) {
        if (cleared === limit) break;
        if (token.replay !== null && token.consumedAt !== null && token.consumedAt.getTime() < consumedBefore.getTime()) {
          token.replay = null;
          cleared += 1;
        }
      }
      return cleared;
    });
  }

  revokeFamily(familyId: string, at: Date): Promise<void> {
    return this.#session.exec((data) => {
      for (const token of data.refreshTokens.values()) {
        if (token.familyId === familyId && token.revokedAt === null) token.revokedAt = copyDate(at);
      }
    });
  }

  revokeUser(userId: string, at: Date): Promise<void> {
    return this.#session.exec((data) => {
      for (const token of data.refreshTokens.values()) {
        if (token.userId === userId && token.revokedAt === null) token.revokedAt = copyDate(at);
      }
    });
  }
}
