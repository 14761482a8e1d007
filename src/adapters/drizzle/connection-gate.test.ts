import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { UnavailableError } from '../../domain/errors.js';
import { ConnectionGate, type Release } from './connection-gate.js';

/** A promise with its resolve, for holding a permit until the test lets go. */
function deferred<T = void>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Lets pending promise callbacks run. */
async function settle(): Promise<void> {
  for (let i = 0; i < 5; i += 1) await Promise.resolve();
}

describe('ConnectionGate', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('lets `permits` callers in at once and makes the next one wait', async () => {
    const gate = new ConnectionGate(2, 1000);
    const a = await gate.acquire();
    await gate.acquire();
    expect(gate.available).toBe(0);

    let third: Release | undefined;
    void gate.acquire().then((r) => (third = r));
    await settle();
    expect(third).toBeUndefined();
    expect(gate.waiting).toBe(1);

    a();
    await settle();
    expect(third).toBeTypeOf('function');
    expect(gate.waiting).toBe(0);
    expect(gate.available).toBe(0);
  });

  it('hands permits to waiters first come, first served', async () => {
    const gate = new ConnectionGate(1, 1000);
    const holder = await gate.acquire();
    const order: number[] = [];
    const waiters = [1, 2, 3].map((n) =>
      gate.acquire().then((release) => {
        order.push(n);
        release();
      }),
    );
    holder();
    await Promise.all(waiters);
    expect(order).toEqual([1, 2, 3]);
    expect(gate.available).toBe(1);
  });

  it('hands a released permit to the waiter, not to a caller arriving later', async () => {
    const gate = new ConnectionGate(1, 1000);
    const holder = await gate.acquire();
    const order: string[] = [];
    const waiter = gate.acquire().then((release) => {
      order.push('waiter');
      release();
    });
    holder();
    const latecomer = gate.acquire().then((release) => {
      order.push('latecomer');
      release();
    });
    await Promise.all([waiter, latecomer]);
    expect(order).toEqual(['waiter', 'latecomer']);
  });

  it('throws UnavailableError (retry after 1 s) after acquireTimeoutMs, without running the call', async () => {
    const gate = new ConnectionGate(1, 2000);
    await gate.acquire();
    const fn = vi.fn(async () => 'ran');
    const outcome = gate.run(fn).catch((e: unknown) => e);

    await vi.advanceTimersByTimeAsync(1999);
    expect(gate.waiting).toBe(1);
    await vi.advanceTimersByTimeAsync(1);

    const error = await outcome;
    expect(error).toBeInstanceOf(UnavailableError);
    expect((error as UnavailableError).retryAfterSeconds).toBe(1);
    expect(fn).not.toHaveBeenCalled();
    expect(gate.waiting).toBe(0);
  });

  it('fails at once when no permit is free and acquireTimeoutMs is 0', async () => {
    const gate = new ConnectionGate(1, 0);
    await gate.acquire();
    await expect(gate.acquire()).rejects.toBeInstanceOf(UnavailableError);
  });

  it('releases the permit when the call throws or rejects', async () => {
    const gate = new ConnectionGate(1, 1000);
    await expect(gate.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(gate.available).toBe(1);
    await expect(
      gate.run(() => {
        throw new Error('sync boom');
      }),
    ).rejects.toThrow('sync boom');
    expect(gate.available).toBe(1);
  });

  it('holds the permit until the call settles', async () => {
    const gate = new ConnectionGate(1, 1000);
    const work = deferred<string>();
    const running = gate.run(() => work.promise);
    await settle();
    expect(gate.available).toBe(0);
    work.resolve('done');
    await expect(running).resolves.toBe('done');
    expect(gate.available).toBe(1);
  });

  it('leaks no permit: releasing twice gives back one, a timed-out waiter takes none', async () => {
    const gate = new ConnectionGate(2, 100);
    const a = await gate.acquire();
    const b = await gate.acquire();
    const late = gate.acquire().catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(100);
    expect(await late).toBeInstanceOf(UnavailableError);

    a();
    a();
    expect(gate.available).toBe(1);
    b();
    expect(gate.available).toBe(2);

    // Many callers, some failing, some timing out: every permit comes back.
    const calls = Array.from({ length: 20 }, (_, i) =>
      gate
        .run(async () => {
          await new Promise((resolve) => setTimeout(resolve, 30));
          if (i % 3 === 0) throw new Error(`call ${i}`);
          return i;
        })
        .catch((e: unknown) => e),
    );
    await vi.advanceTimersByTimeAsync(1000);
    const outcomes = await Promise.all(calls);
    expect(outcomes.some((o) => o instanceof UnavailableError)).toBe(true);
    expect(outcomes.some((o) => typeof o === 'number')).toBe(true);
    expect(gate.available).toBe(2);
    expect(gate.waiting).toBe(0);
  });

  it('rejects a pool size below 1 and a negative timeout', () => {
    expect(() => new ConnectionGate(0, 1000)).toThrow(RangeError);
    expect(() => new ConnectionGate(1, -1)).toThrow(RangeError);
  });
});
