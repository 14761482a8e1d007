import type { RateLimitCounter } from '../domain/ports/rate-limit-counter.js';

/** What `SharedRateLimit.admit` decides: let the request through, or refuse it until `endsAt`. */
export type RateDecision = { admitted: true } | { admitted: false; endsAt: Date };

export interface SharedRateLimitOptions {
  counter: Pick<RateLimitCounter, 'hitMany'>;
  /** Requests a key may send per window (a positive integer). */
  limit: number;
  windowMs: number;
  now: () => Date;
  /** Told of a flush that failed, once until a flush succeeds again. */
  onFlushError: (error: unknown) => void;
  /** How often the counts made here are sent to the store (default 100 ms). */
  flushEveryMs?: number;
}

/** The share of the limit a process may count before it sends its count (and waits for the store). */
const FLUSH_SHARE = 1 / 20;

const ADMITTED: RateDecision = Object.freeze({ admitted: true });

/** What this process knows of a key's window. */
interface KeyState {
  /** The store's count at the last flush that answered, in the window ending at `endsAt`. */
  known: number;
  /** When that window ends (ms since the epoch); 0: not known (no flush has answered). */
  endsAt: number;
  /** Admitted here, not sent yet. */
  pending: number;
  /** Sent, the store's answer not back yet. */
  sending: number;
  flight: Promise<void> | null;
}

/**
 * A rate limit per key (e.g. a client address) in fixed windows, shared by every process on one
 * `RateLimitCounter` store without a store statement per request: each process counts its admitted
 * requests locally and sends their sum with `hitMany` every `flushEveryMs`, or at once when a key's
 * unsent count reaches `flushAt` (a twentieth of the limit, at least 1). A request is decided here,
 * from the store's count at the key's last flush plus what this process counted since; a refused
 * request is not counted.
 *
 * The accuracy this trades:
 * - One process alone never admits more than `limit` in a window: what it knows includes
 *   everything it admitted.
 * - N processes together admit at most `limit − 1 + N × flushAt` in a window (e.g. 600 a minute on
 *   two processes: at most 659), while the store answers: a process may admit up to `flushAt`
 *   requests the others have not heard of yet, and a request that finds `flushAt` unsent waits
 *   for the store's answer rather than count further.
 * - A flush that fails lets its requests through uncounted (the limit fails open, as a store that
 *   is away must not refuse readers); the failure is reported once until a flush succeeds.
 * - A window is the store's: it starts at the first flush of a key; counts not sent when it ends
 *   are dropped.
 *
 * The timer runs only while some key has a window here, never keeps the process alive, and stops
 * at `close()`, which sends what is unsent.
 */
export class SharedRateLimit {
  readonly #options: SharedRateLimitOptions;
  readonly #flushAt: number;
  readonly #keys = new Map<string, KeyState>();
  #timer: ReturnType<typeof setInterval> | null = null;
  #failing = false;
  #closed = false;

  constructor(options: SharedRateLimitOptions) {
    if (!Number.isSafeInteger(options.limit) || options.limit < 1)
      throw new RangeError(`limit must be a positive integer, got ${options.limit}`);
    this.#options = options;
    this.#flushAt = Math.max(1, Math.floor(options.limit * FLUSH_SHARE));
  }

  /** Unsent requests of a key at which they are sent at once, and past which a request waits. */
  get flushAt(): number {
    return this.#flushAt;
  }

  /**
   * Decides a request of `key` at `now`, synchronously unless the key has `flushAt` requests
   * unsent (then once the store has answered). Never rejects.
   */
  admit(key: string, now: Date): RateDecision | Promise<RateDecision> {
    const t = now.getTime();
    let state = this.#keys.get(key);
    if (state === undefined) {
      state = { known: 0, endsAt: 0, pending: 0, sending: 0, flight: null };
      this.#keys.set(key, state);
      this.#startTimer();
    } else if (state.endsAt !== 0 && state.endsAt <= t) {
      state.known = 0;
      state.endsAt = 0;
      state.pending = 0;
    }
    if (state.known + state.sending + state.pending >= this.#options.limit) {
      return { admitted: false, endsAt: new Date(state.endsAt === 0 ? t + this.#options.windowMs : state.endsAt) };
    }
    if (state.sending + state.pending >= this.#flushAt) return this.#flush(key, state).then(() => this.admit(key, now));
    state.pending += 1;
    if (state.sending + state.pending >= this.#flushAt) void this.#flush(key, state);
    return ADMITTED;
  }

  /** Stops the timer and sends what is unsent (a failure reported as any flush's). */
  async close(): Promise<void> {
    this.#closed = true;
    this.#stopTimer();
    await Promise.all([...this.#keys].map(([key, state]) => (state.pending > 0 ? this.#flush(key, state) : state.flight)));
  }

  /** Sends the key's unsent count, unless a flush of it is in flight (then waits for that one). Never rejects. */
  #flush(key: string, state: KeyState): Promise<void> {
    if (state.flight !== null) return state.flight;
    const n = state.pending;
    state.pending = 0;
    state.sending = n;
    const { counter, windowMs, now } = this.#options;
    state.flight = Promise.resolve()
      .then(() => counter.hitMany(key, n, now(), windowMs))
      .then(
        (window) => {
          this.#failing = false;
          const endsAt = window.endsAt.getTime();
          // Within one window the store's count only grows; a later window replaces the last.
          if (endsAt > state.endsAt) state.known = window.hits;
          else if (endsAt === state.endsAt) state.known = Math.max(state.known, window.hits);
          else return;
          state.endsAt = endsAt;
        },
        (error: unknown) => {
          if (this.#failing) return;
          this.#failing = true;
          // A throwing reporter must not turn a flush nobody awaits into an unhandled rejection.
          try {
            this.#options.onFlushError(error);
          } catch {
            // nothing more to tell: the limit fails open either way
          }
        },
      )
      .finally(() => {
        state.sending = 0;
        state.flight = null;
      });
    return state.flight;
  }

  /** One tick: sends every unsent count, forgets the keys whose window is over, stops when none is left. */
  #tick(): void {
    const t = this.#options.now().getTime();
    for (const [key, state] of this.#keys) {
      // Counts of a window that is over would start the next one in the store: dropped.
      if (state.endsAt !== 0 && state.endsAt <= t) state.pending = 0;
      if (state.pending > 0) void this.#flush(key, state);
      else if (state.flight === null && (state.endsAt === 0 || state.endsAt <= t)) this.#keys.delete(key);
    }
    if (this.#keys.size === 0) this.#stopTimer();
  }

  #startTimer(): void {
    if (this.#timer !== null || this.#closed) return;
    this.#timer = setInterval(() => this.#tick(), this.#options.flushEveryMs ?? 100);
    this.#timer.unref();
  }

  #stopTimer(): void {
    if (this.#timer === null) return;
    clearInterval(this.#timer);
    this.#timer = null;
  }
}
