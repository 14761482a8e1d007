/**
 * At most `limit` holders at once; the others wait in arrival order (FIFO). A slot is handed
 * straight to the next waiter on release, so a newcomer can never overtake a waiter.
 */
export interface Semaphore {
  run<T>(task: () => Promise<T>): Promise<T>;
  /** Tasks running now and tasks waiting, for tests and metrics. */
  readonly running: number;
  readonly waiting: number;
}

export function createSemaphore(limit: number): Semaphore {
  if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`A semaphore needs a limit of at least 1, not ${limit}.`);
  let running = 0;
  const queue: (() => void)[] = [];

  const acquire = (): Promise<void> => {
    if (running < limit) {
      running += 1;
      return Promise.resolve();
    }
    return new Promise((resolve) => queue.push(resolve));
  };
  const release = (): void => {
    const next = queue.shift();
    if (next)
      next(); // the slot passes on: `running` stays the same
    else running -= 1;
  };

  return {
    async run(task) {
      await acquire();
      try {
        return await task();
      } finally {
        release();
      }
    },
    get running() {
      return running;
    },
    get waiting() {
      return queue.length;
    },
  };
}
