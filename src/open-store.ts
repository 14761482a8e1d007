import type { PgliteConnection } from './adapters/drizzle/driver/connect-pglite.js';
import type { ConnectionCounts } from './adapters/drizzle/driver/connection-counts.js';
import type { ConnectionGate } from './adapters/drizzle/driver/connection-gate.js';
import { openPostgres, type PostgresConnection } from './adapters/drizzle/driver/connect-postgres.js';
import { SchemaAheadError, SchemaBehindError } from './adapters/drizzle/schema/migrations.js';
import { createDrizzleStore } from './adapters/drizzle/store.js';
import type { SchemaCheck } from './app/readiness.js';
import type { Config } from './config.js';
import type { Store } from './domain/index.js';
import type { Logger } from './log.js';
import { maskUrl } from './mask-url.js';
import { unreachableDatabaseError } from './startup-error.js';

/** A store as the server runs it, with what readiness and metrics need to know of it. */
export interface ServerStore {
  store: Store;
  /** The PostgreSQL pool's gate and connections (metrics read them); null on embedded PGlite. */
  pool: { gate: ConnectionGate; connections: ConnectionCounts } | null;
  /** What the schema check at start found: null when current. */
  schemaProblem: string | null;
  /** Checks the schema again (readiness: while it is behind, and now and then while current). */
  checkSchema: SchemaCheck;
}

/**
 * Opens the configured store for the server: embedded PGlite (migrated on open) or a PostgreSQL
 * pool. A PostgreSQL schema behind this build does not stop the server: it starts not ready (a
 * 503 on /readyz and every operation that says only that), names the pending migrations in the
 * log, and becomes ready once `make migrate` has run. A schema ahead of it (a newer release's
 * migration this build lacks and must know, see `schema_requirements`) stops it at start with
 * `SchemaAheadError`; found by a later check, it is not ready and `onAhead` is told (the server
 * stops, as it would at start).
 */
export async function openServerStore(
  database: Config['database'],
  logger: Logger,
  options: { onAhead?: (error: SchemaAheadError) => void } = {},
): Promise<ServerStore> {
  if (database.kind === 'pglite') {
    logger.info('opening embedded PGlite', { dataDir: database.dataDir });
    // Loaded only here: a server on PostgreSQL never loads PGlite.
    const { openPglite } = await import('./adapters/drizzle/driver/connect-pglite.js');
    return {
      store: storeOver(await openPglite({ dataDir: database.dataDir })),
      pool: null,
      schemaProblem: null,
      checkSchema: async () => null,
    };
  }
  logger.info('connecting to PostgreSQL', { url: maskUrl(database.url), poolSize: database.poolSize });
  const connection = await openPostgres(database);
  const inspect = async (): Promise<{ problem: string | null; ahead: SchemaAheadError | null }> => {
    try {
      await connection.checkSchema();
      return { problem: null, ahead: null };
    } catch (error) {
      if (error instanceof SchemaBehindError) return { problem: schemaBehindDetail(error.pending), ahead: null };
      if (error instanceof SchemaAheadError) return { problem: error.message, ahead: error };
      throw error;
    }
  };
  // The pending migrations are for the operator: logged when what the check finds changes (not
  // at every check, which runs at most once a second while behind), never put in an answer.
  let logged: string | null = null;
  const report = (problem: string | null, ahead: SchemaAheadError | null): string | null => {
    if (problem !== logged) {
      if (problem === null) logger.info('ready: the database schema is current');
      else logger.warn(`not ready: the database schema is ${ahead === null ? 'behind' : 'ahead of this server'}`, { detail: problem });
      logged = problem;
    }
    return problem;
  };
  const checkSchema: SchemaCheck = async () => {
    const { problem, ahead } = await inspect();
    report(problem, ahead);
    if (ahead !== null) options.onAhead?.(ahead);
    return problem;
  };
  let schemaProblem: string | null;
  try {
    // Behind, the server starts and waits for `make migrate`; ahead, no migration of this build will do.
    const first = await inspect();
    if (first.ahead !== null) throw first.ahead;
    schemaProblem = report(first.problem, null);
  } catch (error) {
    await connection.close();
    throw unreachableDatabaseError(error, database.url) ?? error;
  }
  return { store: storeOver(connection), pool: { gate: connection.gate, connections: connection.connections }, schemaProblem, checkSchema };
}

/** Opens the configured store for a command (purge, create-user): a schema behind this build is an error. */
export async function openStore(database: Config['database'], logger: Logger): Promise<Store> {
  const opened = await openServerStore(database, logger);
  if (opened.schemaProblem !== null) {
    await opened.store.close();
    throw new Error(opened.schemaProblem);
  }
  return opened.store;
}

function schemaBehindDetail(pending: readonly string[]): string {
  const count = pending.length === 1 ? '1 migration is pending' : `${pending.length} migrations are pending`;
  return `The database schema is behind this server: ${count} (${pending.join(', ')}); run \`make migrate\`.`;
}

/**
 * The store over an open connection, wired as the server runs it: a PostgreSQL store takes its
 * calls through the pool's gate. Closing the store closes the connection, unless a caller that
 * shares the connection (tests) passes its own `close`.
 */
export function storeOver(connection: PgliteConnection | PostgresConnection, close: () => Promise<void> = () => connection.close()): Store {
  return connection.kind === 'postgres'
    ? createDrizzleStore(connection.db, 'postgres', { close, gate: connection.gate })
    : createDrizzleStore(connection.db, 'pglite', { close });
}
