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
  /**
   * The answer that consuming this token produced, sealed so that only the holder of the token can
   * read it (for a retried refresh within the grace window); null until consumed.
   */
  replay: string | null;
  /** The user's session version when the token's login began (see `UserRepository`). */
  sessionVersion: number;
}

export type ConsumeOutcome =
  | { outcome: 'consumed'; token: RefreshToken }
  | { outcome: 'already_consumed'; token: RefreshToken }
  | { outcome: 'revoked'; token: RefreshToken }
  | { outcome: 'expired'; token: RefreshToken }
  | { outcome: 'unknown' };

/**
 * Refresh tokens, single use.
 * - `insert` stores a token (a login starts a family); a duplicate id throws `DuplicateIdError`.
 * - `rotate(hash, at, successor, replay)` atomically consumes an unconsumed, unrevoked, unexpired
 *   token (`consumedAt = at`, `replay` stored on it), inserts `successor` into the same family and
 *   returns `consumed`. Of concurrent rotations of one token exactly one is `consumed`; the others
 *   are `already_consumed` and see the winner's `consumedAt` and `replay`. A revoked token is
 *   `revoked` (whatever else holds), a consumed one `already_consumed`, an expired one
 *   (`expiresAt <= at`) `expired`, an unknown hash `unknown`; none of these changes anything or
 *   inserts the successor.
 * - `find(hash)` returns the token or null.
 * - `revokeFamily(familyId, at)` revokes every token of the family that is not yet revoked.
 * - `revokeUser(userId, at)` revokes every token of every family of the user that is not yet
 *   revoked; other users' tokens are untouched.
 * - `purgeExpired(now, limit)` deletes at most `limit` (a positive integer) tokens that expired
 *   (`expiresAt <= now`) or were revoked (`revokedAt <= now`), replays and all, and returns how
 *   many. A live token stays, consumed or not: a consumed one is what tells a reuse (which revokes
 *   the family) from a guess.
 * - `forgetReplays(consumedBefore, limit)` clears the sealed `replay` of at most `limit` tokens
 *   consumed strictly before `consumedBefore` (past the grace window nobody may read it) and
 *   returns how many; the tokens themselves stay.
 */
export interface RefreshTokenRepository {
  insert(token: RefreshToken): Promise<void>;
  rotate(tokenHash: string, at: Date, successor: RefreshToken, replay: string): Promise<ConsumeOutcome>;
  find(tokenHash: string): Promise<RefreshToken | null>;
  revokeFamily(familyId: string, at: Date): Promise<void>;
  revokeUser(userId: string, at: Date): Promise<void>;
  purgeExpired(now: Date, limit: number): Promise<number>;
  forgetReplays(consumedBefore: Date, limit: number): Promise<number>;
}
