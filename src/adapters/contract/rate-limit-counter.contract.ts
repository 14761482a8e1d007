import { describe, expect, it } from 'vitest';
import type { RateLimitCounter } from '../../domain/ports/rate-limit-counter.js';
import { type MakeStore, rejectionOf, times, useStore } from './fixtures.js';

const T0 = new Date('2026-03-05T10:00:00.000Z');
const at = (ms: number) => new Date(T0.getTime() + ms);
const MINUTE = 60_000;

export function describeRateLimitCounterContract(make: MakeStore): void {
  describe('RateLimitCounter', () => {
    const store = useStore(make);
    const counter = (): RateLimitCounter => store().rateLimits;

    it('hit starts a window of windowMs at the first hit of a key, with 1 hit', async () => {
      expect(await counter().hit('content:127.0.0.1', at(5), MINUTE)).toStrictEqual({ hits: 1, endsAt: at(5 + MINUTE) });
    });

    it('hit counts one more within the window and keeps its end', async () => {
      await counter().hit('k', at(0), MINUTE);
      await counter().hit('k', at(1_000), MINUTE);
      expect(await counter().hit('k', at(MINUTE - 1), MINUTE)).toStrictEqual({ hits: 3, endsAt: at(MINUTE) });
    });

    it('hit starts a new window when the window ended at or before it', async () => {
      await counter().hit('k', at(0), MINUTE);
      await counter().hit('k', at(1), MINUTE);
      expect(await counter().hit('k', at(MINUTE), MINUTE)).toStrictEqual({ hits: 1, endsAt: at(2 * MINUTE) });
      expect(await counter().hit('k', at(3 * MINUTE + 7), 1_000)).toStrictEqual({ hits: 1, endsAt: at(3 * MINUTE + 1_007) });
    });

    it('counts per key: keys compare exactly and another key is untouched', async () => {
      await counter().hit('content:10.0.0.1', at(0), MINUTE);
      await counter().hit('content:10.0.0.1', at(1), MINUTE);
      expect((await counter().hit('content:10.0.0.10', at(2), MINUTE)).hits).toBe(1);
      expect((await counter().hit('Content:10.0.0.1', at(3), MINUTE)).hits).toBe(1);
      expect((await counter().hit('content:10.0.0.1', at(4), MINUTE)).hits).toBe(3);
    });

    it('N concurrent hits on a key within one window each count once, with N distinct hits', async () => {
      const answers = await Promise.all(times(20, (i) => counter().hit('busy', at(i), MINUTE)));
      expect(answers.map((a) => a.hits).sort((a, b) => a - b)).toEqual(times(20, (i) => i + 1));
      expect(new Set(answers.map((a) => a.endsAt.getTime())).size).toBe(1);
    });

    it('hit refuses a window that is not a positive integer of milliseconds', async () => {
      for (const windowMs of [0, -1, 1.5, Number.NaN])
        expect(await rejectionOf(counter().hit('k', at(0), windowMs))).toBeInstanceOf(RangeError);
    });

    it('hitMany counts n hits in one step: a new window starts with n, an open one grows by n', async () => {
      expect(await counter().hitMany('k', 5, at(0), MINUTE)).toStrictEqual({ hits: 5, endsAt: at(MINUTE) });
      await counter().hit('k', at(10), MINUTE);
      expect(await counter().hitMany('k', 30, at(20), MINUTE)).toStrictEqual({ hits: 36, endsAt: at(MINUTE) });
      expect(await counter().hitMany('k', 2, at(MINUTE), MINUTE)).toStrictEqual({ hits: 2, endsAt: at(2 * MINUTE) });
      expect((await counter().hitMany('other', 3, at(MINUTE), MINUTE)).hits).toBe(3);
    });

    it('concurrent hitMany calls on a key within one window add up', async () => {
      const answers = await Promise.all(times(10, (i) => counter().hitMany('busy', i + 1, at(i), MINUTE)));
      expect(Math.max(...answers.map((a) => a.hits))).toBe(55);
      expect(new Set(answers.map((a) => a.hits)).size).toBe(10);
    });

    it('hitMany refuses an n that is not a positive integer', async () => {
      for (const n of [0, -1, 1.5, Number.NaN])
        expect(await rejectionOf(counter().hitMany('k', n, at(0), MINUTE))).toBeInstanceOf(RangeError);
      expect(await rejectionOf(counter().hitMany('k', 2, at(0), 0))).toBeInstanceOf(RangeError);
    });

    it('purgeEnded deletes at most limit windows that ended at or before `before`, never a later one', async () => {
      for (const [key, start] of [
        ['a', 0],
        ['b', 10],
        ['c', 20],
        ['d', 30],
      ] as const)
        await counter().hit(key, at(start), 1_000);
      expect(await counter().purgeEnded(at(1_020), 2)).toBe(2);
      expect(await counter().purgeEnded(at(1_020), 10)).toBe(1);
      expect(await counter().purgeEnded(at(1_020), 10)).toBe(0);
      // The later window is kept and counts on; a purged key starts anew.
      expect((await counter().hit('d', at(1_025), 1_000)).hits).toBe(2);
      expect((await counter().hit('a', at(1_025), 1_000)).hits).toBe(1);
    });

    it('purgeEnded refuses a limit that is not a positive integer', async () => {
      expect(await rejectionOf(counter().purgeEnded(at(0), 0))).toBeInstanceOf(RangeError);
    });
  });
}
