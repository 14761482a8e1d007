import { describe, expect, it } from 'vitest';
import { createSemaphore } from './semaphore.js';

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe('createSemaphore', () => {
  it('runs at most `limit` tasks at once and starts the waiting ones in arrival order', async () => {
    const semaphore = createSemaphore(2);
    const gates = [deferred(), deferred(), deferred(), deferred()];
    const started: number[] = [];
    const done = gates.map((gate, i) =>
      semaphore.run(async () => {
        started.push(i);
        await gate.promise;
        return i;
      }),
    );
    await Promise.resolve();
    expect(started).toEqual([0, 1]);
    expect(semaphore.waiting).toBe(2);

    gates[1]!.resolve();
    await done[1];
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual([0, 1, 2]);

    gates[0]!.resolve();
    gates[2]!.resolve();
    gates[3]!.resolve();
    expect(await Promise.all(done)).toEqual([0, 1, 2, 3]);
    expect(started).toEqual([0, 1, 2, 3]);
    expect(semaphore.running).toBe(0);
  });

  it('frees the slot of a task that throws', async () => {
    const semaphore = createSemaphore(1);
    await expect(semaphore.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await semaphore.run(() => Promise.resolve('next'))).toBe('next');
    expect(semaphore.running).toBe(0);
  });

  it('refuses a limit below 1', () => {
    expect(() => createSemaphore(0)).toThrow(RangeError);
  });
});
