import type { TransactionalRepositories, UnitOfWork } from '../../domain/ports/unit-of-work.js';
import { DrizzleActivityLog } from './activity-log.js';
import { DbSession, withConnection, type Database, type StoreState } from './database.js';
import { DrizzleIdempotencyStore } from './idempotency-store.js';
import { toDomainError } from './pg-errors.js';
import { DrizzlePostRepository } from './post-repository.js';
import { DrizzleRevisionRepository } from './revision-repository.js';

export function transactionalRepositories(session: DbSession): TransactionalRepositories {
  return {
    posts: new DrizzlePostRepository(session),
    revisions: new DrizzleRevisionRepository(session),
    activity: new DrizzleActivityLog(session),
    idempotency: new DrizzleIdempotencyStore(session),
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

  async #transaction<T>(work: (repos: TransactionalRepositories) => Promise<T>): Promise<T> {
    let thrownByWork: { error: unknown } | undefined;
    try {
      return await this.db.transaction(async (tx) => {
        try {
          return await work(transactionalRepositories(new DbSession(tx, true, this.state)));
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
