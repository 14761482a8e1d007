export interface RefreshToken {
  id: string;
  /** Every token rotated from one login shares the family id. */
  familyId: string;
  userId: string;
  /** A hash of the token; the token itself is never stored. */
  tokenHash: string;
  createdAt: Date;
  expiresAt: Date;
  consumedAt: Date | null;
  revokedAt: Date | null;
}

export type ConsumeOutcome =
  | { outcome: 'consumed'; token: RefreshToken }
  | { outcome: 'already_consumed'; token: RefreshToken }
  | { outcome: 'revoked'; token: RefreshToken }
  | { outcome: 'expired'; token: RefreshToken }
  | { outcome: 'unknown' };

/**
 * Refresh tokens, single use.
 * - `consume(hash, at)` marks an unconsumed, unrevoked, unexpired token consumed at `at` and
 *   returns `consumed`; of two concurrent consumes of one token exactly one is `consumed` and the
 *   other `already_consumed`. A revoked token is `revoked`, an expired one `expired`, an unknown
 *   hash `unknown`. Nothing but the first consume changes the token.
 * - `revokeFamily(familyId, at)` revokes every token of the family that is not yet revoked.
 */
export interface RefreshTokenRepository {
  insert(token: RefreshToken): Promise<void>;
  consume(tokenHash: string, at: Date): Promise<ConsumeOutcome>;
  revokeFamily(familyId: string, at: Date): Promise<void>;
}
