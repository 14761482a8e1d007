import { UnavailableError } from '../../domain/errors.js';
import { UNAVAILABLE_RETRY_AFTER_SECONDS } from './pg-errors.js';

/** Gives back a permit; calling it again does nothing. */
export type Release = () => void;

interface Waiter {
  grant(release: Release): void;
  timer: NodeJS.Timeout;
}

/**
 * A counting semaphore in front of a connection pool: at most `permits` callers use the pool at
 * once, the others wait in FIFO order. A caller that gets no permit within `acquireTimeoutMs`
 * fails with `UnavailableError` before anything was sent to the database, so a request answered
 * 503 is never executed later.
 *
 * postgres.js itself never refuses a query: with every connection busy it pipelines the query
 * behind another or queues it without limit. The gate keeps that from happening by holding one
 * permit per connection.
 */
export class ConnectionGate {
  #free: number;
  /** Insertion-ordered, so the first entry is the one waiting longest. */
  readonly #waiters = new Set<Waiter>();

  constructor(
    readonly permits: number,
    readonly acquireTimeoutMs: number,
  ) {
    if (!Number.isInteger(permits) || permits < 1) {
      throw new RangeError(`permits must be a positive integer, got ${permits}`);
    }
    if (!Number.isFinite(acquireTimeoutMs) || acquireTimeoutMs < 0) {
      throw new RangeError(`acquireTimeoutMs must be a non-negative number, got ${acquireTimeoutMs}`);
    }
    this.#free = permits;
  }

  /** Permits not held by anyone. */
  get available(): number {
    return this.#free;
  }

  /** Callers waiting for a permit. */
  get waiting(): number {
    return this.#waiters.size;
  }

  /**
   * Resolves with the release of one permit, at once when one is free, else when a holder
   * releases it to this caller (first come, first served). Rejects with `UnavailableError`
   * after `acquireTimeoutMs` without a permit.
   */
  acquire(): Promise<Release> {
    if (this.#free > 0 && this.#waiters.size === 0) {
      this.#free -= 1;
      return Promise.resolve(this.#release());
    }
    if (this.acquireTimeoutMs === 0) return Promise.reject(this.#timedOut());
    return new Promise<Release>((resolve, reject) => {
      const waiter: Waiter = {
        grant: resolve,
        timer: setTimeout(() => {
          this.#waiters.delete(waiter);
          reject(this.#timedOut());
        }, this.acquireTimeoutMs),
      };
      this.#waiters.add(waiter);
    });
  }

  /** Runs `fn` holding one permit, released however `fn` ends. */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    const release = await this.acquire();
    try {
      return await fn();
    } finally {
      release();
    }
  }

  #release(): Release {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#waiters.values().next();
      if (next.done) {
        this.#free += 1;
        return;
      }
      // Handed straight to the longest waiter: the permit is never free for a newcomer to take.
      this.#waiters.delete(next.value);
      clearTimeout(next.value.timer);
      next.value.grant(this.#release());
    };
  }

  #timedOut(): UnavailableError {
    return new UnavailableError(UNAVAILABLE_RETRY_AFTER_SECONDS, undefined, {
      cause: new Error(`no database connection was free within ${this.acquireTimeoutMs} ms`),
    });
  }
}
