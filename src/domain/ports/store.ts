import type { TransactionalRepositories, UnitOfWork } from './unit-of-work.js';
import type { UserRepository } from './user-repository.js';

/**
 * Everything the application persists, as one adapter provides it. The repositories used outside
 * `unitOfWork.run` auto-commit each call.
 */
export interface Store extends TransactionalRepositories {
  readonly kind: 'memory' | 'pglite' | 'postgres';
  users: UserRepository;
  unitOfWork: UnitOfWork;
  /** Resolves when the store answers a trivial query; throws `UnavailableError` otherwise. */
  ping(): Promise<void>;
  /** Releases connections; the store is unusable afterwards. */
  close(): Promise<void>;
}
