/**
 * Failed logins, counted per key (an account, a client address, or both) so that a throttle holds across
 * every server process sharing the database.
 * - `recordFailure(key, at)` counts one failure at `at`.
 * - `failuresSince(key, since)` counts the key's failures at or after `since`, with the oldest of
 *   them (null when none), so the caller can say when the window frees up.
 * - `admit(key, at, since, limit)` is one atomic step, across every process sharing the store:
 *   when the key has fewer than `limit` failures at or after `since`, it records a failure at `at`
 *   (an attempt counts as failed while it runs) and answers `admitted` with that failure's id;
 *   otherwise it records nothing and answers not admitted with the oldest failure in the window.
 *   Of N concurrent calls on a key with c failures in the window, exactly `min(N, limit - c)`
 *   (at least 0) are admitted.
 * - `forget(attemptId)` deletes that one failure (the attempt succeeded); unknown ids do nothing.
 * - `clear(key)` forgets the key's failures (a successful login). Other keys are untouched.
 * - `rememberAddress(account, address, at)` records that `account` logged in from `address` (again,
 *   it only moves the time on); `knownAddress(account, address)` answers whether it ever did.
 *   Accounts and addresses compare exactly; another account's addresses are not its own.
 * - `purgeBefore(before, limit)` deletes at most `limit` (a positive integer) failures recorded
 *   strictly before `before`, of any key, and returns how many; later failures are never deleted.
 */
export type Admission = { admitted: true; attemptId: string } | { admitted: false; oldest: Date };

export interface LoginAttemptRepository {
  recordFailure(key: string, at: Date): Promise<void>;
  admit(key: string, at: Date, since: Date, limit: number): Promise<Admission>;
  forget(attemptId: string): Promise<void>;
  failuresSince(key: string, since: Date): Promise<{ count: number; oldest: Date | null }>;
  clear(key: string): Promise<void>;
  rememberAddress(account: string, address: string, at: Date): Promise<void>;
  knownAddress(account: string, address: string): Promise<boolean>;
  purgeBefore(before: Date, limit: number): Promise<number>;
}
