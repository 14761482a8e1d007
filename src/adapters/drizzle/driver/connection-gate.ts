import { UnavailableError } from '../../../domain/errors.js';
import { UNAVAILABLE_RETRY_AFTER_SECONDS } from './pg-errors.js';

/** Gives back a permit; calling it again does nothing. */
export type Release = () => void;

interface Waiter {
  weight: number;
  grant(release: Release): void;
  timer: NodeJS.Timeout;
  /** `performance.now()` when it began to wait. */
  since: number;
}

/** Told of every acquisition (how long it waited) and every timeout: the pool metrics. */
export interface GateObserver {
  acquired(waitedMs: number): void;
  timedOut(): void;
}

/**
 * A weighted counting semaphore in front of a connection pool: callers hold permits while they
 * use the pool, the others wait in FIFO order. A caller that gets its permits not within
 * `acquireTimeoutMs` fails with `UnavailableError` before anything was sent to the database, so
 * a request answered 503 is never executed later.
 *
 * postgres.js itself never refuses a query: with every connection busy it pipelines the query
 * behind another (up to 100 deep) or queues it without limit. The gate bounds that: each of the
 * `connections` stands for `pipelineDepth` permits. On a pool that answers, an auto-commit
 * statement takes one, so up to `pipelineDepth` of them share a connection's round trips (what
 * postgres.js does best); a transaction, which keeps its connection to itself, takes a whole
 * connection's worth (`exclusive`). With `pipelineDepth` 1 every caller has a connection of its
 * own.
 *
 * Until a call has succeeded, and again after one failed with `UnavailableError` (the database
 * unreachable, a connection lost, a statement timed out), every caller takes a whole connection:
 * postgres.js hands the statements queued behind a connection that is still connecting to its
 * next attempts one by one, so pipelined callers would each wait up to `pipelineDepth` connect
 * timeouts instead of one.
 */
export class ConnectionGate {
  /** Every permit: `connections × pipelineDepth`. */
  readonly permits: number;
  /** The weight of a caller that needs a connection to itself (a transaction). */
  readonly exclusive: number;
  #free: number;
  /** Whether the last call run through the gate succeeded (statements may be pipelined). */
  #answering = false;
  /** Insertion-ordered, so the first entry is the one waiting longest. */
  readonly #waiters = new Set<Waiter>();
  /** Set by the metrics when they are on. */
  observer: GateObserver | null = null;

  constructor(
    readonly connections: number,
    readonly acquireTimeoutMs: number,
    readonly pipelineDepth = 1,
  ) {
    if (!Number.isInteger(connections) || connections < 1) {
      throw new RangeError(`connections must be a positive integer, got ${connections}`);
    }
    if (!Number.isFinite(acquireTimeoutMs) || acquireTimeoutMs < 0) {
      throw new RangeError(`acquireTimeoutMs must be a non-negative number, got ${acquireTimeoutMs}`);
    }
    if (!Number.isInteger(pipelineDepth) || pipelineDepth < 1) {
      throw new RangeError(`pipelineDepth must be a positive integer, got ${pipelineDepth}`);
    }
    this.permits = connections * pipelineDepth;
    this.exclusive = pipelineDepth;
    this.#free = this.permits;
  }

  /** Permits not held by anyone. */
  get available(): number {
    return this.#free;
  }

  /** Whether statements are pipelined now: the last call run through the gate succeeded. */
  get pipelining(): boolean {
    return this.#answering && this.pipelineDepth > 1;
  }

  /** Callers waiting for permits. */
  get waiting(): number {
    return this.#waiters.size;
  }

  /** Connections' worth of permits held now (permits held ÷ pipeline depth). */
  get connectionsInUse(): number {
    return (this.permits - this.#free) / this.pipelineDepth;
  }

  /**
   * Resolves with the release of `weight` permits, at once when they are free and nobody waits,
   * else when holders have released enough to this caller (first come, first served: a heavy
   * caller is not overtaken by light ones). Rejects with `UnavailableError` after
   * `acquireTimeoutMs` without them.
   */
  acquire(weight = 1): Promise<Release> {
    if (!Number.isInteger(weight) || weight < 1 || weight > this.permits) {
      throw new RangeError(`weight must be an integer from 1 to ${this.permits}, got ${weight}`);
    }
    if (this.#free >= weight && this.#waiters.size === 0) {
      this.#free -= weight;
      this.observer?.acquired(0);
      return Promise.resolve(this.#release(weight));
    }
    if (this.acquireTimeoutMs === 0) return Promise.reject(this.#timedOut());
    return new Promise<Release>((resolve, reject) => {
      const waiter: Waiter = {
        weight,
        grant: resolve,
        since: this.observer === null ? 0 : performance.now(),
        timer: setTimeout(() => {
          this.#waiters.delete(waiter);
          reject(this.#timedOut());
          // A heavy waiter that gave up may have been holding back lighter ones behind it.
          this.#grantWaiters();
        }, this.acquireTimeoutMs),
      };
      this.#waiters.add(waiter);
    });
  }

  /**
   * Runs `fn` holding one permit, or a whole connection's worth when `exclusive` or while the
   * pool is not answering; released however `fn` ends. Its outcome says whether the pool is.
   * With the permits free and nobody waiting, `fn` starts at once (no turn of the microtask
   * queue, no release closure): the path of nearly every statement of a pool that keeps up.
   */
  run<T>(fn: () => Promise<T>, exclusive = false): Promise<T> {
    const weight = exclusive || !this.#answering ? this.exclusive : 1;
    if (this.#free >= weight && this.#waiters.size === 0) {
      this.#free -= weight;
      this.observer?.acquired(0);
      let running: Promise<T>;
      try {
        running = fn();
      } catch (error) {
        this.#settled(weight, answeringAfter(error));
        return Promise.reject(error as Error);
      }
      return running.then(
        (result) => {
          this.#settled(weight, true);
          return result;
        },
        (error: unknown) => {
          this.#settled(weight, answeringAfter(error));
          throw error;
        },
      );
    }
    return this.#runAfterWaiting(fn, weight);
  }

  async #runAfterWaiting<T>(fn: () => Promise<T>, weight: number): Promise<T> {
    const release = await this.acquire(weight);
    try {
      const result = await fn();
      this.#answering = true;
      return result;
    } catch (error) {
      if (error instanceof UnavailableError) this.#answering = false;
      throw error;
    } finally {
      release();
    }
  }

  /**
   * The end of a call that took its permits on the fast path: what it says of the pool (`null`:
   * nothing), then the permits back.
   */
  #settled(weight: number, answering: boolean | null): void {
    if (answering !== null) this.#answering = answering;
    this.#free += weight;
    this.#grantWaiters();
  }

  #release(weight: number): Release {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#free += weight;
      this.#grantWaiters();
    };
  }

  /** Hands free permits to the longest waiters, in order, while the first in line fits. */
  #grantWaiters(): void {
    for (const waiter of this.#waiters) {
      if (waiter.weight > this.#free) return;
      this.#waiters.delete(waiter);
      clearTimeout(waiter.timer);
      this.#free -= waiter.weight;
      this.observer?.acquired(performance.now() - waiter.since);
      waiter.grant(this.#release(waiter.weight));
    }
  }

  #timedOut(): UnavailableError {
    this.observer?.timedOut();
    return new UnavailableError(UNAVAILABLE_RETRY_AFTER_SECONDS, undefined, {
      cause: new Error(`no database connection was free within ${this.acquireTimeoutMs} ms`),
    });
  }
}

/** What a call's failure says of the pool: unreachable (`false`), or nothing (`null`: a bad statement, say). */
function answeringAfter(error: unknown): false | null {
  return error instanceof UnavailableError ? false : null;
}
