/**
 * Requests counted per key (e.g. a client address of the Content API) in fixed windows, so that
 * a rate limit holds across every server process sharing the store.
 * - `hit(key, at, windowMs)` counts one request of `key` at `at` and answers the key's window
 *   after it: its `hits` (this one included) and `endsAt`. When the key has no window, or its
 *   window ended at or before `at`, a new one starts: `hits` is 1 and `endsAt` is `at` plus
 *   `windowMs` (a positive integer). Otherwise `hits` is one more than before and `endsAt` stays.
 *   One atomic step, across every process sharing the store: N concurrent hits on a key within
 *   one window each count once, and answer N distinct `hits`.
 *   Keys compare exactly; another key's window is untouched.
 * - `hitMany(key, n, at, windowMs)` counts `n` (a positive integer) requests of `key` at `at` in
 *   one atomic step, as `n` hits would: a new window starts with `hits` = `n`, an open one grows by
 *   `n`. Concurrent calls on a key within one window add up. A limiter that counts locally sends
 *   its sum with it (see `SharedRateLimit`).
 * - `purgeEnded(before, limit)` deletes at most `limit` (a positive integer) windows that ended
 *   at or before `before`, of any key, and returns how many; a window ending later is never
 *   deleted. A key whose window was purged starts a new one at its next hit.
 */
export interface RateWindow {
  hits: number;
  endsAt: Date;
}

export interface RateLimitCounter {
  hit(key: string, at: Date, windowMs: number): Promise<RateWindow>;
  hitMany(key: string, n: number, at: Date, windowMs: number): Promise<RateWindow>;
  purgeEnded(before: Date, limit: number): Promise<number>;
}
