/**
 * Failed logins, counted per key (account and client address) so that a throttle holds across
 * every server process sharing the database.
 * - `recordFailure(key, at)` counts one failure at `at`.
 * - `failuresSince(key, since)` counts the key's failures at or after `since`, with the oldest of
 *   them (null when none), so the caller can say when the window frees up.
 * - `clear(key)` forgets the key's failures (a successful login). Other keys are untouched.
 * - `purgeBefore(before, limit)` deletes at most `limit` (a positive integer) failures recorded
 *   strictly before `before`, of any key, and returns how many; later failures are never deleted.
 */
export interface LoginAttemptRepository {
  recordFailure(key: string, at: Date): Promise<void>;
  failuresSince(key: string, since: Date): Promise<{ count: number; oldest: Date | null }>;
  clear(key: string): Promise<void>;
  purgeBefore(before: Date, limit: number): Promise<number>;
}
