import { openPostgres } from './adapters/drizzle/driver/connect-postgres.js';
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
    const connection = await openPglite({ dataDir: database.dataDir });
    return createDrizzleStore(connection.db, 'pglite', { close: () => connection.close() });
  }
  logger.info('connecting to PostgreSQL', { url: maskUrl(database.url), poolSize: database.poolSize });
  const connection = await openPostgres(database);
  try {
    await connection.checkSchema();
  } catch (error) {
    await connection.close();
    throw error;
  }
  return createDrizzleStore(connection.db, 'postgres', { close: () => connection.close(), gate: connection.gate });
}
