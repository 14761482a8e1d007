import { describe, expect, it } from 'vitest';
import type { LoginAttemptRepository } from '../../domain/ports/login-attempt-repository.js';
import { type MakeStore, useStore } from './fixtures.js';

const T0 = new Date('2026-03-05T10:00:00.000Z');
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);

export function describeLoginAttemptRepositoryContract(make: MakeStore): void {
  describe('LoginAttemptRepository', () => {
    const store = useStore(make);
    const attempts = (): LoginAttemptRepository => store().loginAttempts;

    it('failuresSince counts a key with no failures as 0 with no oldest', async () => {
      expect(await attempts().failuresSince('ada@example.com|127.0.0.1', T0)).toStrictEqual({ count: 0, oldest: null });
    });

    it('failuresSince counts the failures at or after `since`, with the oldest of them', async () => {
      const key = 'ada@example.com|127.0.0.1';
      for (const s of [30, 0, 10, 20]) await attempts().recordFailure(key, at(s));
      expect(await attempts().failuresSince(key, at(10))).toStrictEqual({ count: 3, oldest: at(10) });
      expect(await attempts().failuresSince(key, at(0))).toStrictEqual({ count: 4, oldest: at(0) });
      expect(await attempts().failuresSince(key, at(31))).toStrictEqual({ count: 0, oldest: null });
    });

    it('counts per key: another account or another address is another key', async () => {
      await attempts().recordFailure('ada@example.com|127.0.0.1', at(1));
      await attempts().recordFailure('ada@example.com|127.0.0.1', at(2));
      await attempts().recordFailure('bob@example.com|127.0.0.1', at(3));
      expect((await attempts().failuresSince('ada@example.com|127.0.0.1', T0)).count).toBe(2);
      expect((await attempts().failuresSince('ada@example.com|10.0.0.1', T0)).count).toBe(0);
    });

    it('clear forgets the key and leaves other keys untouched', async () => {
      await attempts().recordFailure('a|1', at(1));
      await attempts().recordFailure('b|1', at(1));
      await attempts().clear('a|1');
      expect((await attempts().failuresSince('a|1', T0)).count).toBe(0);
      expect((await attempts().failuresSince('b|1', T0)).count).toBe(1);
    });

    it('concurrent failures are all counted', async () => {
      await Promise.all(Array.from({ length: 10 }, (_, i) => attempts().recordFailure('k', at(i))));
      expect((await attempts().failuresSince('k', T0)).count).toBe(10);
    });

    it('purgeBefore deletes failures strictly before the instant, of every key, up to the limit', async () => {
      const CUT = new Date('2026-03-04T12:00:00.000Z');
      const at = (ms: number) => new Date(CUT.getTime() + ms);
      await attempts().recordFailure('a', at(-2000));
      await attempts().recordFailure('a', at(-1));
      await attempts().recordFailure('b', at(-5000));
      await attempts().recordFailure('a', at(0));
      await attempts().recordFailure('b', at(1000));
      expect(await attempts().purgeBefore(CUT, 2)).toBe(2);
      expect(await attempts().purgeBefore(CUT, 2)).toBe(1);
      expect(await attempts().purgeBefore(CUT, 2)).toBe(0);
      expect(await attempts().failuresSince('a', at(-1_000_000))).toEqual({ count: 1, oldest: at(0) });
      expect(await attempts().failuresSince('b', at(-1_000_000))).toEqual({ count: 1, oldest: at(1000) });
    });

    it('purgeBefore refuses a limit that is not a positive integer (RangeError)', async () => {
      await expect(attempts().purgeBefore(new Date(), 0)).rejects.toBeInstanceOf(RangeError);
    });

    it('admit records a failure and admits while the key has fewer than limit in the window, then refuses with the oldest, recording nothing', async () => {
      const key = 'account:ada@example.com|127.0.0.1';
      await attempts().recordFailure(key, at(-100)); // before the window
      const first = await attempts().admit(key, at(1), at(0), 2);
      expect(first).toStrictEqual({ admitted: true, attemptId: expect.any(String) });
      expect((await attempts().admit(key, at(2), at(0), 2)).admitted).toBe(true);
      expect(await attempts().admit(key, at(3), at(0), 2)).toStrictEqual({ admitted: false, oldest: at(1) });
      expect(await attempts().failuresSince(key, at(0))).toStrictEqual({ count: 2, oldest: at(1) });
      // The window moves on: failures before `since` no longer count.
      expect((await attempts().admit(key, at(4), at(2), 2)).admitted).toBe(true);
    });

    it('of 12 concurrent admits on a key holding 1 failure with limit 5, exactly 4 are admitted', async () => {
      const key = 'address:198.51.100.7';
      await attempts().recordFailure(key, at(0));
      const outcomes = await Promise.all(Array.from({ length: 12 }, (_, i) => attempts().admit(key, at(1 + i), at(0), 5)));
      expect(outcomes.filter((o) => o.admitted)).toHaveLength(4);
      expect((await attempts().failuresSince(key, at(0))).count).toBe(5);
      const ids = outcomes.flatMap((o) => (o.admitted ? [o.attemptId] : []));
      expect(new Set(ids).size).toBe(4);
    });

    it('forget deletes that one failure; an unknown or malformed id does nothing', async () => {
      const key = 'k';
      const a = await attempts().admit(key, at(1), at(0), 10);
      await attempts().admit(key, at(2), at(0), 10);
      await attempts().recordFailure('other', at(1));
      if (!a.admitted) throw new Error('not admitted');
      await attempts().forget(a.attemptId);
      await attempts().forget(a.attemptId);
      await attempts().forget('999999999');
      await attempts().forget('not an id');
      expect(await attempts().failuresSince(key, at(0))).toStrictEqual({ count: 1, oldest: at(2) });
      expect((await attempts().failuresSince('other', at(0))).count).toBe(1);
    });

    it('knownAddress answers whether the account ever logged in from the address (rememberAddress); exactly, per account', async () => {
      expect(await attempts().knownAddress('ada@example.com', '192.0.2.1')).toBe(false);
      await attempts().rememberAddress('ada@example.com', '192.0.2.1', at(1));
      expect(await attempts().knownAddress('ada@example.com', '192.0.2.1')).toBe(true);
      expect(await attempts().knownAddress('ada@example.com', '192.0.2.10')).toBe(false);
      expect(await attempts().knownAddress('ADA@example.com', '192.0.2.1')).toBe(false);
      expect(await attempts().knownAddress('bob@example.com', '192.0.2.1')).toBe(false);
    });

    it('rememberAddress again (concurrently too) keeps the address known, and failures are untouched', async () => {
      await attempts().recordFailure('ada@example.com', at(0));
      await attempts().rememberAddress('ada@example.com', '2001:db8::/64', at(1));
      await Promise.all([2, 3, 4].map((s) => attempts().rememberAddress('ada@example.com', '2001:db8::/64', at(s))));
      expect(await attempts().knownAddress('ada@example.com', '2001:db8::/64')).toBe(true);
      expect((await attempts().failuresSince('ada@example.com', at(0))).count).toBe(1);
    });
  });
}
