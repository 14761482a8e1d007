// First: V8 flags that must be set before anything allocates.
import './v8-tuning.js';
import { loadContract } from './adapters/http/contract.js';
import { serveApp } from './adapters/http/node-server.js';
import { scheduleHousekeeping } from './app/housekeeping.js';
import { ensureFirstAdmin, jwtSecretFor } from './bootstrap.js';
import { compose } from './composition.js';
import { ConfigError, loadConfig } from './config.js';
import { systemClock } from './domain/index.js';
import { createLogger } from './log.js';
import { openStore } from './open-store.js';

/** The composition root: config → store → services and app → server. */
export async function start(env: Record<string, string | undefined> = process.env) {
  const config = loadConfig(env);
  const logger = createLogger(config.logLevel);
  const jwtSecret = jwtSecretFor(config);
  const store = await openStore(config.database, logger);
  const contract = await loadContract();
  const { app, hasher, ids, housekeeping } = await compose({
    store,
    contract,
    logger,
    clock: systemClock,
    jwtSecret,
    auth: config.auth,
    bodyLimitBytes: config.bodyLimitBytes,
    corsOrigins: config.corsOrigins,
    trustProxy: config.trustProxy,
    idempotency: config.idempotency,
    housekeepingBatchSize: config.housekeeping.batchSize,
  });

  const admin = await ensureFirstAdmin(config, { store, hasher, ids, clock: systemClock });
  const host = config.host === '0.0.0.0' || config.host === '127.0.0.1' ? 'localhost' : config.host;
  const base = `http://${host}:${config.port}/api/v1`;
  if (admin) {
    // Printed once, on purpose, outside the log: the only place this password ever appears.
    const password = admin.generatedPassword ?? '(the ADMIN_PASSWORD you set)';
    process.stdout.write(
      [
        '',
        'First start: created the admin user.',
        `  email:    ${admin.email}`,
        `  password: ${password}`,
        admin.generatedPassword ? '  Save it now: it is not shown again (`make user` resets it).' : '',
        'Log in with:',
        `  curl -s -X POST ${base}/auth/login -H 'content-type: application/json' \\`,
        `       -d '{"email":"${admin.email}","password":"…"}'`,
        '',
      ].join('\n') + '\n',
    );
  }

  const server = serveApp(app.fetch, { hostname: config.host, port: config.port }, () => {
    // Each operation's request validators compile on its first request (10–45 ms, once): compiling
    // all 19 at start costs 0.5 s of CPU and 40 MB of resident memory that most servers never use.
    logger.info(`MarginCMS listening on ${base}`, { database: store.kind });
  });

  const stopHousekeeping =
    config.housekeeping.intervalSeconds > 0
      ? scheduleHousekeeping(housekeeping, config.housekeeping.intervalSeconds * 1000, logger)
      : async () => undefined;

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
    await stopHousekeeping();
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
