import type { ActivityLog } from './activity-log.js';
import type { IdempotencyStore } from './idempotency-store.js';
import type { LoginAttemptRepository } from './login-attempt-repository.js';
import type { PostRepository } from './post-repository.js';
import type { RateLimitCounter } from './rate-limit-counter.js';
import type { RefreshTokenRepository } from './refresh-token-repository.js';
import type { RevisionRepository } from './revision-repository.js';

/** The repositories a use case may write atomically. */
export interface TransactionalRepositories {
  posts: PostRepository;
  revisions: RevisionRepository;
  activity: ActivityLog;
  idempotency: IdempotencyStore;
  refreshTokens: RefreshTokenRepository;
  loginAttempts: LoginAttemptRepository;
  rateLimits: RateLimitCounter;
}

/** What `runExclusive` gives back: the work's result, or that another unit held the job. */
export type ExclusiveOutcome<T> = { ran: true; value: T } | { ran: false };

/**
 * Runs `work` in one transaction: every write made through the repositories it is given commits
 * together when `work` resolves, and none is visible to anyone when it throws (the error is
 * rethrown unchanged). Transactions are isolated from each other: concurrent units see either all
 * or none of another's writes.
 *
 * Inside `work`, a `SlugTakenError` stores nothing and leaves the unit usable: work may go on (with
 * another slug) and what it writes next commits with what it wrote before. Calls may be started
 * together without waiting for each other (a revision and its activity event); all of them commit
 * together, and if one fails the unit rolls back and rethrows a failure of theirs.
 */
export interface UnitOfWork {
  run<T>(work: (repos: TransactionalRepositories) => Promise<T>): Promise<T>;
  /**
   * Like `run`, holding the lock named `job` for the transaction: when another unit, in this
   * process or any other sharing the database, holds it, `work` is not called and the answer is
   * `{ ran: false }` at once (no waiting). The lock is released when the transaction ends. For
   * background jobs that N server processes must not all run at once.
   */
  runExclusive<T>(job: string, work: (repos: TransactionalRepositories) => Promise<T>): Promise<ExclusiveOutcome<T>>;
}
