import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { UnavailableError } from '../../domain/errors.js';
import type { ConnectionGate } from './connection-gate.js';
import { mapPgErrors, UNAVAILABLE_RETRY_AFTER_SECONDS, type PgErrorContext } from './pg-errors.js';

/** A Drizzle database or transaction, whichever driver (PGlite or postgres.js) is behind it. */
export type Database = PgDatabase<PgQueryResultHKT>;

/** The store kinds this adapter provides. */
export type DrizzleKind = 'pglite' | 'postgres';

/** Shared by every session of one store: once closed, every call throws `UnavailableError`. */
export interface StoreState {
  closed: boolean;
  /**
   * Bounds the wait for a pool connection (postgres.js); absent for PGlite, a single in-process
   * connection. Each auto-commit call and each transaction holds one permit while it runs.
   */
  readonly gate?: ConnectionGate;
}

export function assertOpen(state: StoreState): void {
  if (state.closed) {
    throw new UnavailableError(UNAVAILABLE_RETRY_AFTER_SECONDS, 'The store is closed.');
  }
}

/**
 * Runs `fn` holding one permit of the store's gate, if it has one: waits at most the gate's
 * acquire timeout, then throws `UnavailableError` without having called `fn`.
 */
export async function withConnection<T>(state: StoreState, fn: () => Promise<T>): Promise<T> {
  assertOpen(state);
  if (state.gate === undefined) return fn();
  return state.gate.run(async () => {
    assertOpen(state); // closed while waiting
    return fn();
  });
}

/**
 * How the repositories reach the database: either auto-committing calls on the pool, or the
 * statements of one transaction.
 *
 * Inside a transaction every repository call runs one at a time (a transaction is one connection
 * anyway), so that a savepoint opened by `guarded` never has another call's statements inside it.
 * Outside one, each call holds a permit of the store's gate (the transaction holds its own).
 */
export class DbSession {
  #tail: Promise<unknown> = Promise.resolve();

  constructor(
    readonly db: Database,
    readonly inTransaction: boolean,
    private readonly state: StoreState,
  ) {}

  /** Runs `fn`, mapping database failures to domain errors (`pg-errors.ts`). */
  run<T>(fn: (db: Database) => Promise<T>, ctx?: PgErrorContext): Promise<T> {
    if (!this.inTransaction) return withConnection(this.state, () => mapPgErrors(() => fn(this.db), ctx));
    return this.#serialized(() => {
      assertOpen(this.state);
      return mapPgErrors(() => fn(this.db), ctx);
    });
  }

  /**
   * Like `run`, for a write that may violate a unique constraint. Inside a transaction it runs in
   * a savepoint, so that the mapped error (say `SlugTakenError`) leaves the transaction usable and
   * the caller may go on, e.g. with another slug.
   */
  guarded<T>(fn: (db: Database) => Promise<T>, ctx?: PgErrorContext): Promise<T> {
    if (!this.inTransaction) return this.run(fn, ctx);
    return this.#serialized(() => {
      assertOpen(this.state);
      return mapPgErrors(() => this.db.transaction((savepoint) => fn(savepoint)), ctx);
    });
  }

  #serialized<T>(fn: () => Promise<T>): Promise<T> {
    const result = this.#tail.then(fn);
    this.#tail = result.catch(() => undefined);
    return result;
  }
}

/** Page sizes the ports allow: an integer from 1 to 100 (as the memory adapter checks it). */
export function checkedLimit(limit: number): number {
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) {
    throw new RangeError(`limit must be an integer from 1 to 100, got ${limit}`);
  }
  return limit;
}

/** A cursor argument: null or undefined starts at the first page; anything else is decoded. */
export function hasCursor(cursor: string | null | undefined): cursor is string {
  return cursor !== null && cursor !== undefined;
}
