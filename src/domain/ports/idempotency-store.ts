/** The answer stored for a completed idempotent request, replayed byte for byte. */
export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface IdempotencyClaim {
  /** Keys are scoped to a user: two users may use the same key. */
  userId: string;
  key: string;
  /** Method, path and canonical body, hashed by the caller. */
  fingerprint: string;
  now: Date;
  /** How long the claim holds while its request runs; after that another request may take it over. */
  leaseMs: number;
  /** When a completed record may be forgotten. */
  expiresAt: Date;
}

export type ClaimOutcome =
  /** `progress`: what the request whose key this claim took over had saved (null when none). */
  | { outcome: 'claimed'; progress: string | null }
  | { outcome: 'in_flight'; retryAfterMs: number }
  | { outcome: 'mismatch' }
  | { outcome: 'completed'; response: StoredResponse };

/**
 * Idempotency keys, claimed atomically before any work (the store decides, never a read before
 * the write).
 * - `claim` on a free (or expired) key takes it: `claimed`. On a key held by a request still inside
 *   its lease with the same fingerprint: `in_flight` with the lease time left. On a key whose lease
 *   has run out, with the same fingerprint: taken over, `claimed` (a retry of the abandoned
 *   request); with another fingerprint it stays the abandoned request's: `mismatch`. On a key
 *   with another fingerprint, held or completed: `mismatch`. On a completed key with the same
 *   fingerprint: `completed` with the stored response. A completed key past `expiresAt` is
 *   forgotten: any claim takes it. Of N concurrent claims of one free key exactly one is
 *   `claimed`; when the key keeps changing hands while a claim looks at it, the claim answers
 *   `in_flight` (never an error).
 * - Claims are fenced by the instant they were made (`claim.now`): after a takeover only the new
 *   claim may complete or release the key.
 * - `complete(userId, key, claimedAt, response)` stores the response for the claim made at
 *   `claimedAt` (inside the caller's transaction when one is running, so the post and its stored
 *   answer commit together). When that claim no longer holds the key (its lease ran out and another
 *   request took it over, or it was released) it throws `IdempotencyKeyInFlightError` and stores
 *   nothing, so the caller's transaction rolls back instead of writing a second time.
 * - `saveProgress(userId, key, claimedAt, progress)` replaces the progress of the key held by the
 *   claim made at `claimedAt` (inside the caller's transaction when one is running, so a step and
 *   its record commit together). Fenced like `complete`: when that claim no longer holds the key
 *   it throws `IdempotencyKeyInFlightError` and saves nothing. A claim that takes over an abandoned
 *   key (same fingerprint) gets the saved progress back in `claimed`; a fresh key has none.
 * - `release(userId, key, claimedAt)` frees the key held by the claim made at `claimedAt`, so a
 *   retry can claim it again; it touches neither a completed key nor another claim's. A key with
 *   saved progress is not forgotten: its lease ends at once, so a retry of the same request takes
 *   it over with that progress (and another request is still a `mismatch`).
 * - `read` returns the stored response of a completed key, or null.
 * - `purgeExpired(now, limit)` deletes at most `limit` (a positive integer) records whose
 *   `expiresAt <= now`, completed or abandoned, and returns how many it deleted; a record that has
 *   not expired is never deleted. Which of the expired records one call takes is unspecified.
 */
export interface IdempotencyStore {
  claim(claim: IdempotencyClaim): Promise<ClaimOutcome>;
  complete(userId: string, key: string, claimedAt: Date, response: StoredResponse): Promise<void>;
  saveProgress(userId: string, key: string, claimedAt: Date, progress: string): Promise<void>;
  release(userId: string, key: string, claimedAt: Date): Promise<void>;
  read(userId: string, key: string): Promise<StoredResponse | null>;
  purgeExpired(now: Date, limit: number): Promise<number>;
}
