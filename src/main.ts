// First: V8 flags that must be set before anything allocates.
import './v8-tuning.js';
import type { Server } from 'node:http';
import { accessLog } from './adapters/http/access-log.js';
import type { RequestObserver } from './adapters/http/app.js';
import { loadContract } from './adapters/http/contract.js';
import { serveApp } from './adapters/http/node-server.js';
import { scheduleHousekeeping } from './app/housekeeping.js';
import { Readiness } from './app/readiness.js';
import { schedulePublishing } from './app/scheduled-publishing.js';
import { createZxcvbnPasswordPolicy } from './adapters/crypto/zxcvbn-password-policy.js';
import { ensureFirstAdmin, jwtSecretFor } from './bootstrap.js';
import { compose } from './composition.js';
import { ConfigError, loadConfig } from './config.js';
import { systemClock } from './domain/index.js';
import { createLogger } from './log.js';
import { openServerStore } from './open-store.js';

/** The composition root: config → store → services and app → server. */
export async function start(env: Record<string, string | undefined> = process.env) {
  const config = loadConfig(env);
  const logger = createLogger(config.logLevel);
  const jwtSecret = jwtSecretFor(config);
  const { store, pool, schemaProblem, checkSchema } = await openServerStore(config.database, logger);
  const contract = await loadContract();
  // prom-client is loaded only when metrics are on (METRICS_PORT): it costs every start otherwise.
  const prometheus = config.metrics ? await import('./adapters/metrics/prometheus.js') : null;
  const metrics = prometheus ? new prometheus.Metrics({ pool }) : null;
  const observers: RequestObserver[] = [];
  // Written at info: below that level the observer would cost every request and write nothing.
  if (config.accessLog && ['debug', 'info'].includes(config.logLevel)) observers.push(accessLog(logger));
  if (metrics) observers.push(metrics.observeRequest);
  const readiness = new Readiness({ store, clock: systemClock, schemaProblem, checkSchema });
  const { app, hasher, ids, housekeeping, posts, adminPath } = await compose({
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
    observers,
    readiness,
    content: config.content,
    imports: config.imports,
  });

  const metricsServer = prometheus && metrics && config.metrics ? await prometheus.serveMetrics(metrics, config.metrics) : null;
  if (metricsServer && config.metrics) logger.info(`metrics on http://${config.metrics.host}:${config.metrics.port}/metrics`);

  const admin = await ensureFirstAdmin(config, { store, hasher, passwords: createZxcvbnPasswordPolicy(), ids, clock: systemClock });
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
        adminPath ? `Sign in to the admin app at http://${host}:${config.port}${adminPath}, or log in with:` : 'Log in with:',
        `  curl -s -X POST ${base}/auth/login -H 'content-type: application/json' \\`,
        `       -d '{"email":"${admin.email}","password":"…"}'`,
        '',
      ].join('\n') + '\n',
    );
  }

  const server = serveApp(app.fetch, { hostname: config.host, port: config.port, timeouts: config.requestTimeouts }, () => {
    // Each operation's request validators compile on its first request (10–45 ms, once): compiling
    // all 19 at start costs 0.5 s of CPU and 40 MB of resident memory that most servers never use.
    logger.info(`MarginCMS listening on ${base}`, { database: store.kind });
  });

  const http = server as Server;
  const stopHousekeeping =
    config.housekeeping.intervalSeconds > 0
      ? scheduleHousekeeping(housekeeping, config.housekeeping.intervalSeconds * 1000, logger, (report) =>
          metrics?.observeHousekeeping(report),
        )
      : async () => undefined;
  const stopPublishing =
    config.publishIntervalSeconds > 0
      ? schedulePublishing(posts.scheduled, config.publishIntervalSeconds * 1000, logger, (report) =>
          metrics?.observeScheduledPublishing(report),
        )
      : async () => undefined;

  // Shutdown: readiness fails at once; on SIGTERM the server goes on serving for the configured
  // delay (load balancers notice the 503 and stop sending), then stops accepting connections,
  // closes idle keep-alive ones and waits for the requests in flight, up to the timeout.
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    readiness.startDraining();
    const delayMs = signal === 'SIGTERM' ? config.shutdown.delaySeconds * 1000 : 0;
    logger.info('shutting down: not ready from now on', { signal, delayMs });
    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
    const timer = setTimeout(() => {
      logger.error('shutdown timed out with requests in flight; cutting them', { timeoutSeconds: config.shutdown.timeoutSeconds });
      http.closeAllConnections();
      logger.flush();
      process.exit(1);
    }, config.shutdown.timeoutSeconds * 1000);
    timer.unref();
    // Keep-alive connections become idle as their last answers go out: close them as they do.
    const closeIdle = setInterval(() => http.closeIdleConnections(), 100);
    await new Promise<void>((resolve) => {
      http.close(() => resolve());
      http.closeIdleConnections();
    });
    clearInterval(closeIdle);
    metricsServer?.close();
    await Promise.all([stopHousekeeping(), stopPublishing()]);
    await store.close();
    logger.info('stopped');
    logger.flush();
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
