import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { UnavailableError } from '../../../domain/errors.js';
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

  it('starts a waiting call only once the call holding the permit has settled, and hands both their results', async () => {
    const gate = new ConnectionGate(1, 1000, 1);
    const first = deferred<string>();
    const order: string[] = [];
    const a = gate.run(async () => {
      const value = await first.promise;
      order.push('a finished');
      return value;
    });
    const b = gate.run(async () => {
      order.push('b started');
      return 'b';
    });
    await settle();
    expect(order).toEqual([]);
    expect(gate.waiting).toBe(1);
    expect(gate.available).toBe(0);
    first.resolve('a');
    await expect(Promise.all([a, b])).resolves.toEqual(['a', 'b']);
    expect(order).toEqual(['a finished', 'b started']);
    expect(gate.available).toBe(1);
  });

  it('takes a call rejected with a falsy reason for a failure, not a success', async () => {
    const gate = new ConnectionGate(1, 1000, 4);
    await expect(gate.run(() => Promise.reject(new UnavailableError(1)))).rejects.toBeInstanceOf(UnavailableError);
    await expect(gate.run(() => Promise.reject(null))).rejects.toBeNull();
    expect(gate.pipelining).toBe(false);
    expect(gate.available).toBe(4);
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

  it('gives each connection pipelineDepth permits and a transaction a whole connection of them', async () => {
    const gate = new ConnectionGate(2, 1000, 3);
    expect(gate.permits).toBe(6);
    expect(gate.exclusive).toBe(3);
    const statements = await Promise.all([1, 2, 3, 4].map(() => gate.acquire()));
    expect(gate.available).toBe(2);

    // Two permits free, a transaction needs three: it waits until a statement ends.
    let transaction: Release | undefined;
    void gate.acquire(gate.exclusive).then((r) => (transaction = r));
    await settle();
    expect(transaction).toBeUndefined();
    statements[0]!();
    await settle();
    expect(transaction).toBeTypeOf('function');
    expect(gate.available).toBe(0);

    transaction!();
    for (const release of statements.slice(1)) release();
    expect(gate.available).toBe(6);
  });

  it('keeps light callers behind a waiting heavy one, and lets them in when it times out', async () => {
    const gate = new ConnectionGate(1, 100, 4);
    const held = await Promise.all([1, 2].map(() => gate.acquire()));
    const heavy = gate.acquire(4).catch((e: unknown) => e);
    await settle();
    // Two permits are free, but the transaction came first.
    let light: Release | undefined;
    void gate.acquire().then((r) => (light = r));
    await vi.advanceTimersByTimeAsync(50);
    expect(light).toBeUndefined();
    expect(gate.waiting).toBe(2);

    await vi.advanceTimersByTimeAsync(50);
    expect(await heavy).toBeInstanceOf(UnavailableError);
    await settle();
    expect(light).toBeTypeOf('function');
    expect(gate.available).toBe(1);

    light!();
    for (const release of held) release();
    expect(gate.available).toBe(4);
    expect(gate.waiting).toBe(0);
  });

  it('pipelines only while the pool answers: a whole connection per call before the first success and after an UnavailableError', async () => {
    const gate = new ConnectionGate(1, 1000, 4);
    const held = (): Promise<number> => {
      let available = -1;
      return gate.run(async () => (available = gate.available)).then(() => available);
    };
    expect(gate.pipelining).toBe(false);
    expect(await held()).toBe(0);
    expect(gate.pipelining).toBe(true);
    expect(await held()).toBe(3);
    expect(await gate.run(async () => gate.available, true)).toBe(0);

    // A plain failure says nothing about the pool; an UnavailableError does.
    await expect(gate.run(() => Promise.reject(new Error('bad SQL')))).rejects.toThrow('bad SQL');
    expect(gate.pipelining).toBe(true);
    await expect(gate.run(() => Promise.reject(new UnavailableError(1)))).rejects.toBeInstanceOf(UnavailableError);
    expect(gate.pipelining).toBe(false);
    expect(await held()).toBe(0);
    expect(await held()).toBe(3);
    expect(gate.available).toBe(4);
  });

  it('refuses a weight it could never grant', () => {
    const gate = new ConnectionGate(1, 1000, 2);
    expect(() => gate.acquire(3)).toThrow(RangeError);
    expect(() => gate.acquire(0)).toThrow(RangeError);
    expect(gate.available).toBe(2);
  });

  it('rejects a pool size or pipeline depth below 1 and a negative timeout', () => {
    expect(() => new ConnectionGate(0, 1000)).toThrow(RangeError);
    expect(() => new ConnectionGate(1, -1)).toThrow(RangeError);
    expect(() => new ConnectionGate(1, 1000, 0)).toThrow(RangeError);
  });
});
