// First: V8 flags that must be set before anything allocates.
import './v8-tuning.js';
import type { Server } from 'node:http';
import { accessLog } from './adapters/http/access-log.js';
import type { RequestObserver } from './adapters/http/app.js';
import { API_ROOT, loadContract } from './adapters/http/contract.js';
import { serveApp } from './adapters/http/node-server.js';
import type { Metrics } from './adapters/metrics/prometheus.js';
import { scheduleHousekeeping, type Housekeeping } from './app/housekeeping.js';
import { Readiness } from './app/readiness.js';
import { schedulePublishing, type ScheduledPublishing } from './app/scheduled-publishing.js';
import { createZxcvbnPasswordPolicy } from './adapters/crypto/zxcvbn-password-policy.js';
import { ensureFirstAdmin, jwtSecretFor, type FirstAdmin } from './bootstrap.js';
import { compose } from './composition.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { systemClock } from './domain/index.js';
import { createLogger, type Logger } from './log.js';
import { openServerStore } from './open-store.js';
import { stopOnSignals } from './shutdown.js';

/** The composition root: config → store → services and app → server. */
export async function start(env: Record<string, string | undefined> = process.env) {
  const config = loadConfig(env);
  const logger = createLogger(config.logLevel);
  const { store, pool, schemaProblem, checkSchema } = await openServerStore(config.database, logger);
  const contract = await loadContract();
  // prom-client is loaded only when metrics are on (METRICS_PORT): it costs every start otherwise.
  const prometheus = config.metrics ? await import('./adapters/metrics/prometheus.js') : null;
  const metrics = prometheus ? new prometheus.Metrics({ pool }) : null;
  const readiness = new Readiness({ store, clock: systemClock, schemaProblem, checkSchema });
  const { app, hasher, ids, housekeeping, posts, adminPath } = await compose({
    store,
    contract,
    logger,
    clock: systemClock,
    jwtSecret: jwtSecretFor(config),
    config,
    observers: observersOf(config, logger, metrics),
    readiness,
  });

  const metricsServer = prometheus && metrics && config.metrics ? await prometheus.serveMetrics(metrics, config.metrics) : null;
  if (metricsServer && config.metrics) logger.info(`metrics on http://${config.metrics.host}:${config.metrics.port}/metrics`);

  const admin = await ensureFirstAdmin(config, { store, hasher, passwords: createZxcvbnPasswordPolicy(), ids, clock: systemClock });
  const host = config.host === '0.0.0.0' || config.host === '127.0.0.1' ? 'localhost' : config.host;
  const origin = `http://${host}:${config.port}`;
  if (admin) announceFirstAdmin(admin, origin, adminPath);

  const server = serveApp(app.fetch, { hostname: config.host, port: config.port, timeouts: config.requestTimeouts }, () => {
    // Each operation's request validators compile on its first request, not at start: compiling
    // them all costs CPU and resident memory that most servers never use.
    logger.info(`MarginCMS listening on ${origin}${API_ROOT}`, { database: store.kind });
  });
  const stopJobs = scheduleJobs(config, { housekeeping, publishing: posts.scheduled, logger, metrics });
  stopOnSignals({
    server: server as Server,
    readiness,
    logger,
    shutdown: config.shutdown,
    release: async () => {
      metricsServer?.close();
      await stopJobs();
      await store.close();
    },
  });
  return { server, store, app };
}

/** Who is told of every answered request: the access log and the metrics, when they are on. */
function observersOf(config: Config, logger: Logger, metrics: Pick<Metrics, 'observeRequest'> | null): RequestObserver[] {
  const observers: RequestObserver[] = [];
  // Written at info: below that level the observer would cost every request and write nothing.
  if (config.accessLog && ['debug', 'info'].includes(config.logLevel)) observers.push(accessLog(logger));
  if (metrics) observers.push(metrics.observeRequest);
  return observers;
}

/** Prints the first admin's sign-in once, on purpose outside the log: the only place a generated password ever appears. */
function announceFirstAdmin(admin: FirstAdmin, origin: string, adminPath: string | null): void {
  const password = admin.generatedPassword ?? '(the ADMIN_PASSWORD you set)';
  process.stdout.write(
    [
      '',
      'First start: created the admin user.',
      `  email:    ${admin.email}`,
      `  password: ${password}`,
      admin.generatedPassword ? '  Save it now: it is not shown again (`make user` resets it).' : '',
      adminPath ? `Sign in to the admin app at ${origin}${adminPath}, or log in with:` : 'Log in with:',
      `  curl -s -X POST ${origin}${API_ROOT}/auth/login -H 'content-type: application/json' \\`,
      `       -d '{"email":"${admin.email}","password":"…"}'`,
      '',
    ].join('\n') + '\n',
  );
}

interface Jobs {
  housekeeping: Pick<Housekeeping, 'runOnce'>;
  publishing: Pick<ScheduledPublishing, 'runOnce'>;
  logger: Logger;
  metrics: Pick<Metrics, 'observeHousekeeping' | 'observeScheduledPublishing'> | null;
}

/** Starts housekeeping and scheduled publishing at their intervals (0: off); returns what stops both. */
function scheduleJobs(config: Pick<Config, 'housekeeping' | 'publishIntervalSeconds'>, jobs: Jobs): () => Promise<void> {
  const { logger, metrics } = jobs;
  const stopHousekeeping =
    config.housekeeping.intervalSeconds > 0
      ? scheduleHousekeeping(jobs.housekeeping, config.housekeeping.intervalSeconds * 1000, logger, (report) =>
          metrics?.observeHousekeeping(report),
        )
      : async () => undefined;
  const stopPublishing =
    config.publishIntervalSeconds > 0
      ? schedulePublishing(jobs.publishing, config.publishIntervalSeconds * 1000, logger, (report) =>
          metrics?.observeScheduledPublishing(report),
        )
      : async () => undefined;
  return async () => {
    await Promise.all([stopHousekeeping(), stopPublishing()]);
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  start().catch((error: unknown) => {
    if (error instanceof ConfigError) console.error(error.message);
    else console.error(`MarginCMS could not start: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  });
}
