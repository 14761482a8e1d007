import type { ExclusiveOutcome, TransactionalRepositories, UnitOfWork } from '../../domain/ports/unit-of-work.js';
import { MemoryActivityLog } from './activity-log.js';
import { MemoryIdempotencyStore } from './idempotency-store.js';
import { MemoryLoginAttemptRepository } from './login-attempt-repository.js';
import { MemoryPostRepository } from './post-repository.js';
import { withPostTriggers } from './post-triggers.js';
import { MemoryRateLimitCounter } from './rate-limit-counter.js';
import { MemoryRefreshTokenRepository } from './refresh-token-repository.js';
import { MemoryRevisionRepository } from './revision-repository.js';
import type { MemoryData, MemoryDatabase, Session } from './state.js';

export function transactionalRepositories(session: Session): TransactionalRepositories {
  return {
    // Its writes run the webhook outbox and the preview links' cascade (post-triggers.ts).
    posts: new MemoryPostRepository(withPostTriggers(session)),
    revisions: new MemoryRevisionRepository(session),
    activity: new MemoryActivityLog(session),
    idempotency: new MemoryIdempotencyStore(session),
    refreshTokens: new MemoryRefreshTokenRepository(session),
    loginAttempts: new MemoryLoginAttemptRepository(session),
    rateLimits: new MemoryRateLimitCounter(session),
  };
}

/**
 * Transactions hold the database lock from start to end and write to a copy of the data, which
 * replaces the committed data only when `work` resolves. The store's own repositories wait for
 * the lock, so calling them (instead of `repos`) inside `work` deadlocks.
 */
export class MemoryUnitOfWork implements UnitOfWork {
  readonly #db: MemoryDatabase;

  constructor(db: MemoryDatabase) {
    this.#db = db;
  }

  /** The job lock is a name in a set of this process: the memory store has no other process. */
  async runExclusive<T>(job: string, work: (repos: TransactionalRepositories) => Promise<T>): Promise<ExclusiveOutcome<T>> {
    if (this.#db.jobs.has(job)) return { ran: false };
    this.#db.jobs.add(job);
    try {
      return { ran: true, value: await this.run(work) };
    } finally {
      this.#db.jobs.delete(job);
    }
  }

  run<T>(work: (repos: TransactionalRepositories) => Promise<T>): Promise<T> {
    return this.#db.mutex.lock(async () => {
      this.#db.assertOpen();
      const draft: MemoryData = structuredClone(this.#db.data);
      let open = true;
      const session: Session = {
        exec: async (fn) => {
          if (!open) throw new Error('This transaction has already finished.');
          return fn(draft);
        },
      };
      try {
        const result = await work(transactionalRepositories(session));
        this.#db.data = draft;
        return result;
      } finally {
        open = false;
      }
    });
  }
}
