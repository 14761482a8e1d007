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
  /** Checks the schema again (readiness, while it was behind). */
  checkSchema: SchemaCheck;
}

/**
 * Opens the configured store for the server: embedded PGlite (migrated on open) or a PostgreSQL
 * pool. A PostgreSQL schema behind this build does not stop the server: it starts not ready (a
 * 503 on /readyz and every operation that says only that), names the pending migrations in the
 * log, and becomes ready once `make migrate` has run. A schema ahead of it (a newer release's
 * migration this build lacks and must know, see `schema_requirements`) stops it with
 * `SchemaAheadError`; found later, while waiting for a migration, it keeps the server not ready.
 */
export async function openServerStore(database: Config['database'], logger: Logger): Promise<ServerStore> {
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
  // The pending migrations are for the operator: logged when what the check finds changes (not
  // at every check, which runs at most once a second while behind), never put in an answer.
  let logged: string | null = null;
  let ahead: SchemaAheadError | null = null;
  const checkSchema: SchemaCheck = async () => {
    let problem: string | null = null;
    ahead = null;
    try {
      await connection.checkSchema();
    } catch (error) {
      if (error instanceof SchemaBehindError) problem = schemaBehindDetail(error.pending);
      else if (error instanceof SchemaAheadError) [ahead, problem] = [error, error.message];
      else throw error;
    }
    if (problem !== logged) {
      if (problem === null) logger.info('ready: the database schema is current');
      else logger.warn(`not ready: the database schema is ${ahead === null ? 'behind' : 'ahead of this server'}`, { detail: problem });
      logged = problem;
    }
    return problem;
  };
  let schemaProblem: string | null;
  try {
    schemaProblem = await checkSchema();
    // Behind, the server waits for `make migrate`; ahead, no migration of this build will do.
    if (ahead !== null) throw ahead;
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
