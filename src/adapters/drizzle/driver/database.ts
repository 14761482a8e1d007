import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { UnavailableError } from '../../../domain/errors.js';
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
   * connection. Each auto-commit call holds one permit while it runs, each transaction a whole
   * connection's worth (`gate.exclusive`).
   */
  readonly gate?: ConnectionGate;
}

function assertOpen(state: StoreState): void {
  if (state.closed) {
    throw new UnavailableError(UNAVAILABLE_RETRY_AFTER_SECONDS, 'The store is closed.');
  }
}

/**
 * Runs `fn` holding permits of the store's gate, if it has one (a whole connection's worth when
 * `exclusive`; see `ConnectionGate.run`): waits at most the gate's acquire timeout, then throws
 * `UnavailableError` without having called `fn`.
 */
export function withConnection<T>(state: StoreState, fn: () => Promise<T>, exclusive = false): Promise<T> {
  // Not `async` (it runs on every statement), so a throw becomes a rejection by hand.
  try {
    assertOpen(state);
    const { gate } = state;
    if (gate === undefined) return fn();
    return gate.run(() => {
      assertOpen(state); // closed while waiting
      return fn();
    }, exclusive);
  } catch (error) {
    return Promise.reject(error as Error);
  }
}

/**
 * How the repositories reach the database: either auto-committing calls on the pool, or the
 * statements of one transaction.
 *
 * Inside a transaction, calls made together run together: postgres.js pipelines their statements
 * on the transaction's connection, so independent writes (a revision and an activity event) cost
 * one round trip. A savepoint opened by `inSavepoint` runs alone: it waits for the calls already
 * running, and calls made meanwhile wait for it, so that no other call's statements land inside
 * it. Outside a transaction, each call holds a permit of the store's gate (a transaction holds a
 * whole connection's worth of its own).
 */
export class DbSession {
  /** Calls of this transaction that have not settled yet. */
  readonly #running = new Set<Promise<unknown>>();
  /** Settles when the last savepoint opened has. */
  #savepoint: Promise<unknown> = Promise.resolve();

  constructor(
    readonly db: Database,
    readonly inTransaction: boolean,
    private readonly state: StoreState,
  ) {}

  /** Runs `fn`, mapping database failures to domain errors (`pg-errors.ts`). */
  run<T>(fn: (db: Database) => Promise<T>, ctx?: PgErrorContext): Promise<T> {
    if (!this.inTransaction) return withConnection(this.state, () => mapPgErrors(() => fn(this.db), ctx));
    return this.#track(
      this.#savepoint.then(() => {
        assertOpen(this.state);
        return mapPgErrors(() => fn(this.db), ctx);
      }),
    );
  }

  /**
   * Like `run`, for a write that may violate a unique constraint. Inside a transaction it runs in
   * a savepoint, so that the mapped error (say `SlugTakenError`) leaves the transaction usable and
   * the caller may go on, e.g. with another slug.
   */
  inSavepoint<T>(fn: (db: Database) => Promise<T>, ctx?: PgErrorContext): Promise<T> {
    if (!this.inTransaction) return this.run(fn, ctx);
    const result = Promise.allSettled([this.#savepoint, ...this.#running]).then(() => {
      assertOpen(this.state);
      return mapPgErrors(() => this.db.transaction((savepoint) => fn(savepoint)), ctx);
    });
    this.#savepoint = result.catch(() => undefined);
    return result;
  }

  /**
   * Runs `fn` in a transaction of its own, holding a whole connection's worth of the gate (a
   * savepoint, like `inSavepoint`, when this session is already a transaction).
   */
  transaction<T>(fn: (tx: Database) => Promise<T>, ctx?: PgErrorContext): Promise<T> {
    if (this.inTransaction) return this.inSavepoint(fn, ctx);
    return withConnection(this.state, () => mapPgErrors(() => this.db.transaction((tx) => fn(tx)), ctx), true);
  }

  #track<T>(call: Promise<T>): Promise<T> {
    this.#running.add(call);
    const forget = () => this.#running.delete(call);
    call.then(forget, forget);
    return call;
  }
}
