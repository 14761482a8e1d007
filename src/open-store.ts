import type { PgliteConnection } from './adapters/drizzle/driver/connect-pglite.js';
import { openPostgres, type PostgresConnection } from './adapters/drizzle/driver/connect-postgres.js';
import { createDrizzleStore } from './adapters/drizzle/store.js';
import type { Config } from './config.js';
import type { Store } from './domain/index.js';
import type { Logger } from './log.js';
import { maskUrl } from './mask-url.js';

/** Opens the configured store: embedded PGlite (migrated on open) or a PostgreSQL pool (schema checked). */
export async function openStore(database: Config['database'], logger: Logger): Promise<Store> {
  if (database.kind === 'pglite') {
    logger.info('opening embedded PGlite', { dataDir: database.dataDir });
    // Loaded only here: a server on PostgreSQL never loads PGlite.
    const { openPglite } = await import('./adapters/drizzle/driver/connect-pglite.js');
    return storeOver(await openPglite({ dataDir: database.dataDir }));
  }
  logger.info('connecting to PostgreSQL', { url: maskUrl(database.url), poolSize: database.poolSize });
  const connection = await openPostgres(database);
  try {
    await connection.checkSchema();
  } catch (error) {
    await connection.close();
    throw error;
  }
  return storeOver(connection);
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
