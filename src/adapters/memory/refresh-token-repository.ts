import { DuplicateIdError } from '../../domain/errors.js';
import type {
  ConsumeOutcome,
  RefreshToken,
  RefreshTokenRepository,
} from '../../domain/ports/refresh-token-repository.js';
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
  };
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

  consume(tokenHash: string, at: Date): Promise<ConsumeOutcome> {
    return this.#session.exec((data): ConsumeOutcome => {
      const token = [...data.refreshTokens.values()].find((t) => t.tokenHash === tokenHash);
      if (token === undefined) return { outcome: 'unknown' };
      if (token.revokedAt !== null) return { outcome: 'revoked', token: copyToken(token) };
      if (token.consumedAt !== null) return { outcome: 'already_consumed', token: copyToken(token) };
      if (token.expiresAt.getTime() <= at.getTime()) {
        return { outcome: 'expired', token: copyToken(token) };
      }
      token.consumedAt = copyDate(at);
      return { outcome: 'consumed', token: copyToken(token) };
    });
  }

  revokeFamily(familyId: string, at: Date): Promise<void> {
    return this.#session.exec((data) => {
      for (const token of data.refreshTokens.values()) {
        if (token.familyId === familyId && token.revokedAt === null) token.revokedAt = copyDate(at);
      }
    });
  }
}
