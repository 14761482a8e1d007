import { sql } from 'drizzle-orm';
import type { ExclusiveOutcome, TransactionalRepositories, UnitOfWork } from '../../../domain/ports/unit-of-work.js';
import { DrizzleActivityLog } from './activity-log.js';
import { DbSession, withConnection, type Database, type StoreState } from '../driver/database.js';
import { DrizzleIdempotencyStore } from './idempotency-store.js';
import { DrizzleLoginAttemptRepository } from './login-attempt-repository.js';
import { toDomainError } from '../driver/pg-errors.js';
import { DrizzlePostRepository } from './post-repository.js';
import { DrizzleRateLimitCounter } from './rate-limit-counter.js';
import { DrizzleRefreshTokenRepository } from './refresh-token-repository.js';
import { DrizzleRevisionRepository } from './revision-repository.js';

export function transactionalRepositories(session: DbSession): TransactionalRepositories {
  return {
    posts: new DrizzlePostRepository(session),
    revisions: new DrizzleRevisionRepository(session),
    activity: new DrizzleActivityLog(session),
    idempotency: new DrizzleIdempotencyStore(session),
    refreshTokens: new DrizzleRefreshTokenRepository(session),
    loginAttempts: new DrizzleLoginAttemptRepository(session),
    rateLimits: new DrizzleRateLimitCounter(session),
  };
}

/**
 * `db.transaction(...)` (READ COMMITTED) with repositories bound to that transaction. What `work`
 * throws is rethrown unchanged after the rollback; a failure of BEGIN or COMMIT themselves is
 * mapped like any database failure (a lost connection becomes `UnavailableError`). The whole
 * transaction holds a whole connection's worth of the store's gate; the calls inside it take none.
 */
export class DrizzleUnitOfWork implements UnitOfWork {
  constructor(
    private readonly db: Database,
    private readonly state: StoreState,
  ) {}

  run<T>(work: (repos: TransactionalRepositories) => Promise<T>): Promise<T> {
    return withConnection(this.state, () => this.#transaction(work), true);
  }

  /** Jobs running in this process: PGlite has one connection, so a second unit would wait for it. */
  readonly #jobs = new Set<string>();

  /**
   * A transaction that first takes `pg_try_advisory_xact_lock` on the job's name (hashed to the
   * lock's 64-bit key, in a namespace of our own): PostgreSQL releases it at commit or rollback,
   * so no lock outlives its transaction, even when the process dies. A job already running in
   * this process is refused before a connection is asked for.
   */
  async runExclusive<T>(job: string, work: (repos: TransactionalRepositories) => Promise<T>): Promise<ExclusiveOutcome<T>> {
    if (this.#jobs.has(job)) return { ran: false };
    this.#jobs.add(job);
    try {
      return await this.#lockedTransaction(job, work);
    } finally {
      this.#jobs.delete(job);
    }
  }

  #lockedTransaction<T>(job: string, work: (repos: TransactionalRepositories) => Promise<T>): Promise<ExclusiveOutcome<T>> {
    return withConnection(
      this.state,
      () =>
        this.#transaction(async (repos, tx) => {
          const rows = await tx.execute<{ locked: boolean }>(
            sql`select pg_try_advisory_xact_lock(hashtextextended(${`margincms:job:${job}`}, 0)) as locked`,
          );
          const locked = (Array.isArray(rows) ? rows : (rows as { rows: { locked: boolean }[] }).rows)[0]?.locked === true;
          if (!locked) return { ran: false as const };
          return { ran: true as const, value: await work(repos) };
        }),
      true,
    );
  }

  async #transaction<T>(work: (repos: TransactionalRepositories, tx: Database) => Promise<T>): Promise<T> {
    let thrownByWork: { error: unknown } | undefined;
    try {
      return await this.db.transaction(async (tx) => {
        try {
          return await work(transactionalRepositories(new DbSession(tx, true, this.state)), tx);
        } catch (error) {
          thrownByWork = { error };
          throw error;
        }
      });
    } catch (error) {
      if (thrownByWork !== undefined && error === thrownByWork.error) throw error;
      throw toDomainError(error);
    }
  }
}
