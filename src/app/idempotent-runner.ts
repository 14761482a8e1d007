import {
  IdempotencyKeyInFlightError,
  IdempotencyKeyReusedError,
  type Actor,
  type Clock,
  type IdempotencyStore,
  type Store,
  type StoredResponse,
  type TransactionalRepositories,
} from '../domain/index.js';

/**
 * An idempotent request: the key is claimed before any work; `render` turns the result into the
 * answer that is stored with it, in the same transaction as the write.
 */
export interface Idempotency<T> {
  key: string;
  fingerprint: string;
  render: (result: T) => StoredResponse;
}

/**
 * What an idempotent use case answers: the result of its work, or, when the key was used before
 * for the same request, the answer stored then (a replay).
 */
export type Idempotent<T> = { replayed: false; result: T } | { replayed: true; response: StoredResponse };

/**
 * The progress of work done in several transactions under one key: what an earlier holder of the
 * key saved (null if nothing), and `save`, which records progress with the step that made it.
 */
export interface StepProgress {
  saved: string | null;
  save(store: IdempotencyStore, progress: string): Promise<void>;
}

export interface IdempotencyTimes {
  /** How long a claimed key holds while its request runs. */
  leaseMs: number;
  /** How long a completed key's answer is kept. */
  ttlMs: number;
}

/** The Retry-After of a 409 for a key in flight: the shortest the header can say. */
const IN_FLIGHT_RETRY_AFTER_SECONDS = 1;

/**
 * Runs writes under an Idempotency-Key: claims the key atomically, replays a completed answer,
 * refuses a key in flight (409) or reused with a different request (422), and releases the key
 * when the work fails. Without a key, the work simply runs.
 */
export class IdempotentRunner {
  readonly #store: Store;
  readonly #clock: Clock;
  readonly #times: IdempotencyTimes;

  constructor(store: Store, clock: Clock, times: IdempotencyTimes) {
    this.#store = store;
    this.#clock = clock;
    this.#times = times;
  }

  /** `work` in one transaction; with a key, its answer is stored in that same transaction. */
  async inOneTransaction<T>(
    actor: Actor,
    idempotency: Idempotency<T> | undefined,
    work: (repos: TransactionalRepositories) => Promise<T>,
  ): Promise<Idempotent<T>> {
    if (!idempotency) return { replayed: false, result: await this.#store.unitOfWork.run(work) };
    const claim = await this.#claim(actor, idempotency);
    if (claim.replayed) return claim;
    const { claimedAt } = claim;
    try {
      return await this.#store.unitOfWork.run(async (repos) => {
        const result = await work(repos);
        // Fenced: if this claim's lease ran out and a retry took the key over, this throws and the
        // whole write rolls back, so the retry's answer is the only one.
        await repos.idempotency.complete(actor.id, idempotency.key, claimedAt, idempotency.render(result));
        return { replayed: false as const, result };
      });
    } catch (error) {
      await this.#store.idempotency.release(actor.id, idempotency.key, claimedAt);
      return this.#answeredByTakeover(actor, idempotency, error);
    }
  }

  /**
   * `work` in transactions of its own, each saving its progress with `progress.save` (undefined
   * without a key): a retry that takes the key over after a crash gets what was saved and goes on
   * from there. The answer is stored when the work is done.
   */
  async inSteps<T>(
    actor: Actor,
    idempotency: Idempotency<T> | undefined,
    work: (progress: StepProgress | undefined) => Promise<T>,
  ): Promise<Idempotent<T>> {
    if (!idempotency) return { replayed: false, result: await work(undefined) };
    const claim = await this.#claim(actor, idempotency);
    if (claim.replayed) return claim;
    const { claimedAt } = claim;
    const progress: StepProgress = {
      saved: claim.progress,
      save: (store, text) => store.saveProgress(actor.id, idempotency.key, claimedAt, text),
    };
    try {
      const result = await work(progress);
      await this.#store.idempotency.complete(actor.id, idempotency.key, claimedAt, idempotency.render(result));
      return { replayed: false, result };
    } catch (error) {
      await this.#store.idempotency.release(actor.id, idempotency.key, claimedAt);
      return this.#answeredByTakeover(actor, idempotency, error);
    }
  }

  /**
   * Claims the key, or answers from it: a replay, or the in-flight and reuse errors. A claim gives
   * its instant (its fence) and what an abandoned request it took over had saved.
   */
  async #claim<T>(
    actor: Actor,
    idempotency: Idempotency<T>,
  ): Promise<{ replayed: true; response: StoredResponse } | { replayed: false; claimedAt: Date; progress: string | null }> {
    const now = this.#clock.now();
    const claim = await this.#store.idempotency.claim({
      userId: actor.id,
      key: idempotency.key,
      fingerprint: idempotency.fingerprint,
      now,
      leaseMs: this.#times.leaseMs,
      expiresAt: new Date(now.getTime() + this.#times.ttlMs),
    });
    switch (claim.outcome) {
      case 'claimed':
        return { replayed: false, claimedAt: now, progress: claim.progress };
      case 'completed':
        return { replayed: true, response: claim.response };
      case 'in_flight':
        // Not the lease left (`claim.retryAfterMs`, up to the whole lease): that is how long a
        // holder that crashed keeps the key, while one that runs is usually done in milliseconds.
        throw new IdempotencyKeyInFlightError(IN_FLIGHT_RETRY_AFTER_SECONDS);
      case 'mismatch':
        throw new IdempotencyKeyReusedError();
    }
  }

  /**
   * After `complete` refused this request's claim (its lease ran out and a retry of the same
   * request took the key over), the retry's stored answer is this request's answer too; while the
   * retry still runs, 409 stands. Any other error is rethrown.
   */
  async #answeredByTakeover<T>(actor: Actor, idempotency: Idempotency<T>, error: unknown): Promise<Idempotent<T>> {
    if (!(error instanceof IdempotencyKeyInFlightError)) throw error;
    const stored = await this.#store.idempotency.read(actor.id, idempotency.key);
    if (stored === null) throw error;
    return { replayed: true, response: stored };
  }
}
