import { afterEach, describe, expect, it, vi } from 'vitest';
import { createMemoryStore } from '../adapters/memory/store.js';
import type { RateLimitCounter, RateWindow } from '../domain/ports/rate-limit-counter.js';
import { SharedRateLimit, type RateDecision, type SharedRateLimitOptions } from './shared-rate-limit.js';

const T0 = new Date('2026-03-05T10:00:00.000Z');
const MINUTE = 60_000;

/** The memory store's counter, with every `hitMany` recorded and, when `delayMs` is set, answered that much later. */
function recordedCounter(options: { delayMs?: number } = {}) {
  const store = createMemoryStore().rateLimits;
  const calls: number[] = [];
  const counter: Pick<RateLimitCounter, 'hitMany'> = {
    async hitMany(key, n, at, windowMs) {
      calls.push(n);
      if (options.delayMs !== undefined) await new Promise((resolve) => setTimeout(resolve, options.delayMs));
      return store.hitMany(key, n, at, windowMs);
    },
  };
  return { counter, calls, store };
}

const limiters: SharedRateLimit[] = [];
afterEach(async () => {
  await Promise.all(limiters.splice(0).map((limiter) => limiter.close()));
  vi.restoreAllMocks();
});

function limiterOf(options: Partial<SharedRateLimitOptions> & Pick<SharedRateLimitOptions, 'counter' | 'limit'>): SharedRateLimit {
  const limiter = new SharedRateLimit({ windowMs: MINUTE, now: () => T0, onFlushError: () => undefined, flushEveryMs: 5, ...options });
  limiters.push(limiter);
  return limiter;
}

const admittedOf = (decisions: RateDecision[]) => decisions.filter((d) => d.admitted).length;
const admitAll = (limiter: SharedRateLimit, n: number, key = 'content:10.0.0.1') =>
  Promise.all(Array.from({ length: n }, () => limiter.admit(key, T0)));
const settle = () => new Promise((resolve) => setTimeout(resolve, 40));

describe('SharedRateLimit', () => {
  it('decides a request at once, without a store statement, and sends the sum of a burst in one hitMany', async () => {
    const { counter, calls, store } = recordedCounter();
    const limiter = limiterOf({ counter, limit: 600 });
    for (let i = 0; i < 10; i += 1) expect(limiter.admit('k', T0)).toStrictEqual({ admitted: true });
    expect(calls).toEqual([]);
    await settle();
    expect(calls).toEqual([10]);
    expect(await store.hit('k', T0, MINUTE)).toMatchObject({ hits: 11 });
  });

  it('sends at once when a key has a twentieth of the limit unsent', async () => {
    const { counter, calls } = recordedCounter();
    const limiter = limiterOf({ counter, limit: 600, flushEveryMs: 60_000 });
    expect(limiter.flushAt).toBe(30);
    for (let i = 0; i < 29; i += 1) limiter.admit('k', T0);
    await settle();
    expect(calls).toEqual([]);
    limiter.admit('k', T0);
    await settle();
    expect(calls).toEqual([30]);
  });

  it('one process never admits more than the limit, however its requests interleave with the store', async () => {
    const { counter } = recordedCounter({ delayMs: 3 });
    const limiter = limiterOf({ counter, limit: 100 });
    const decisions = await admitAll(limiter, 300);
    expect(admittedOf(decisions)).toBe(100);
    const refused = decisions.find((d) => !d.admitted);
    expect(refused).toStrictEqual({ admitted: false, endsAt: new Date(T0.getTime() + MINUTE) });
  });

  it('two processes on one store: each hears of the other at its next flush, and admit at most limit − 1 + 2 × flushAt together', async () => {
    const { counter, store } = recordedCounter({ delayMs: 2 });
    const [a, b] = [limiterOf({ counter, limit: 200 }), limiterOf({ counter, limit: 200 })];
    const decisions = (await Promise.all([admitAll(a, 300), admitAll(b, 300)])).flat();
    const admitted = admittedOf(decisions);
    expect(admitted).toBeGreaterThanOrEqual(200);
    expect(admitted).toBeLessThanOrEqual(200 - 1 + 2 * a.flushAt);
    // The combined count converges: after a flush the store holds every admitted request.
    await settle();
    expect((await store.hitMany('content:10.0.0.1', 1, T0, MINUTE)).hits).toBe(admitted + 1);
    // And both now refuse, each knowing the other's count.
    expect(a.admit('content:10.0.0.1', T0)).toMatchObject({ admitted: false });
    expect(b.admit('content:10.0.0.1', T0)).toMatchObject({ admitted: false });
  });

  it('a new window admits again once the store says the last one ended', async () => {
    const { counter } = recordedCounter();
    let now = T0;
    const limiter = limiterOf({ counter, limit: 3, now: () => now });
    expect(admittedOf(await admitAll(limiter, 5))).toBe(3);
    now = new Date(T0.getTime() + MINUTE);
    expect(admittedOf(await Promise.all([0, 1, 2, 3].map(() => limiter.admit('content:10.0.0.1', now))))).toBe(3);
  });

  it('fails open when a flush fails: the requests pass, the failure is reported once, nothing rejects unhandled', async () => {
    const onFlushError = vi.fn();
    const counter = { hitMany: (): Promise<RateWindow> => Promise.reject(new Error('relation "rate_limit_windows" does not exist')) };
    const limiter = limiterOf({ counter, limit: 3, onFlushError });
    const decisions = [];
    for (let i = 0; i < 10; i += 1) decisions.push(await limiter.admit('k', T0));
    await settle();
    expect(admittedOf(decisions)).toBe(10);
    expect(onFlushError).toHaveBeenCalledTimes(1);
    expect(onFlushError.mock.calls[0]![0]).toBeInstanceOf(Error);
  });

  it('leaves no unhandled rejection when the failure reporter itself throws', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const counter = { hitMany: (): Promise<RateWindow> => Promise.reject(new Error('down')) };
      const limiter = limiterOf({
        counter,
        limit: 3,
        onFlushError: () => {
          throw new Error('the logger broke');
        },
      });
      const decisions = [];
      for (let i = 0; i < 10; i += 1) decisions.push(await limiter.admit('k', T0));
      await settle();
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(admittedOf(decisions)).toBe(10);
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('reports a failure again after a flush succeeded in between', async () => {
    const onFlushError = vi.fn();
    const { store } = recordedCounter();
    let down = true;
    const counter = {
      hitMany: (...args: Parameters<RateLimitCounter['hitMany']>) => (down ? Promise.reject(new Error('down')) : store.hitMany(...args)),
    };
    const limiter = limiterOf({ counter, limit: 1000, onFlushError });
    for (const state of [true, true, false, true]) {
      down = state;
      await limiter.admit('k', T0);
      await settle();
    }
    expect(onFlushError).toHaveBeenCalledTimes(2);
  });

  it('runs an unref’d timer only while a key has a window, and close() stops it after sending what is unsent', async () => {
    const setInterval = vi.spyOn(globalThis, 'setInterval');
    const { counter, calls } = recordedCounter();
    const limiter = limiterOf({ counter, limit: 600, flushEveryMs: 60_000 });
    expect(setInterval).not.toHaveBeenCalled();
    limiter.admit('k', T0);
    limiter.admit('k', T0);
    expect(setInterval).toHaveBeenCalledTimes(1);
    const timer = setInterval.mock.results[0]!.value as NodeJS.Timeout;
    expect(timer.hasRef()).toBe(false);
    await limiter.close();
    expect(calls).toEqual([2]);
    // Stopped: the timer no longer runs, and a request after close starts none.
    limiter.admit('k', T0);
    expect(setInterval).toHaveBeenCalledTimes(1);
  });

  it('stops its timer when every window it knows has ended', async () => {
    const clearInterval = vi.spyOn(globalThis, 'clearInterval');
    const { counter } = recordedCounter();
    let now = T0;
    const limiter = limiterOf({ counter, limit: 600, windowMs: 20, now: () => now });
    limiter.admit('k', T0);
    await settle();
    expect(clearInterval).not.toHaveBeenCalled();
    now = new Date(T0.getTime() + 20);
    await settle();
    expect(clearInterval).toHaveBeenCalledTimes(1);
  });
});
