import { serve } from '@hono/node-server';
import { createApp } from './adapters/http/app.js';
import { loadContract } from './adapters/http/contract.js';
import { createHandlers } from './adapters/http/handlers/index.js';
import { openPglite } from './adapters/drizzle/connect-pglite.js';
import { openPostgres } from './adapters/drizzle/connect-postgres.js';
import { createDrizzleStore } from './adapters/drizzle/store.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { maskUrl } from './mask-url.js';
import { InvalidTokenError, type Store } from './domain/index.js';
import { createLogger, type Logger } from './log.js';

/** Opens the configured store: embedded PGlite (migrated on open) or a PostgreSQL pool (schema checked). */
export async function openStore(database: Config['database'], logger: Logger): Promise<Store> {
  if (database.kind === 'pglite') {
    logger.info('opening embedded PGlite', { dataDir: database.dataDir });
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
  return createDrizzleStore(connection.db, 'postgres', { close: () => connection.close() });
}

/** The composition root: config → store → contract → app → server. */
export async function start(env: Record<string, string | undefined> = process.env) {
  const config = loadConfig(env);
  const logger = createLogger(config.logLevel);
  const store = await openStore(config.database, logger);
  const contract = await loadContract();
  contract.warm();
  const app = createApp({
    contract,
    handlers: createHandlers({ store }),
    // Authentication arrives with the auth issue; until then no token is accepted.
    authenticate: async () => {
      throw new InvalidTokenError('no tokens are issued yet');
    },
    logger,
    bodyLimitBytes: config.bodyLimitBytes,
  });
  const server = serve({ fetch: app.fetch, hostname: config.host, port: config.port }, (info) => {
    const host = config.host === '0.0.0.0' || config.host === '127.0.0.1' ? 'localhost' : config.host;
    logger.info(`MarginCMS listening on http://${host}:${info.port}/api/v1`, { database: store.kind });
  });

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info('shutting down', { signal });
    const timer = setTimeout(() => {
      logger.error('shutdown timed out; exiting');
      process.exit(1);
    }, 10_000);
    timer.unref();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await store.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
  return { server, store, app };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  start().catch((error: unknown) => {
    if (error instanceof ConfigError) console.error(error.message);
    else console.error(`MarginCMS could not start: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  });
}
