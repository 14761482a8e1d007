// First: V8 flags that must be set before anything allocates.
import './v8-tuning.js';
import type { Server } from 'node:http';
import { accessLog } from './adapters/http/access-log.js';
import type { RequestObserver } from './adapters/http/app.js';
import { API_ROOT, loadContract } from './adapters/http/contract.js';
import { serveApp, type HttpBindings, type ServeFetch } from './adapters/http/node-server.js';
import type { Metrics } from './adapters/metrics/prometheus.js';
import { scheduleHousekeeping, type Housekeeping } from './app/housekeeping.js';
import { Readiness } from './app/readiness.js';
import { schedulePublishing, type ScheduledPublishing } from './app/scheduled-publishing.js';
import type { WebhookDeliveryWorker } from './app/webhook-delivery.js';
import { createZxcvbnPasswordPolicy } from './adapters/crypto/zxcvbn-password-policy.js';
import { announceFirstAdmin, ensureFirstAdmin, jwtSecretFor } from './bootstrap.js';
import { compose } from './composition.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { systemClock } from './domain/index.js';
import { createLogger, type Logger } from './log.js';
import { openServerStore } from './open-store.js';
import { stopOnSignals } from './shutdown.js';
import { listenError, StartupError } from './startup-error.js';

/**
 * The composition root: config → store → services and app → server. Nothing is created (no first
 * admin) before the server listens: a port in use changes nothing.
 */
async function start(env: Record<string, string | undefined> = process.env, options: { envFile?: string | null } = {}) {
  const config = loadConfig(env);
  const logger = createLogger(config.logLevel);
  if (options.envFile) logger.info('read settings from .env (the environment wins over it)', { path: options.envFile });
  // A later schema check that finds the database migrated past this server stops it, as at start.
  let stopFatally: ((reason: string) => void) | null = null;
  const { store, pool, schemaProblem, checkSchema } = await openServerStore(config.database, logger, {
    onAhead: (error) => stopFatally?.(error.message),
  });
  const contract = await loadContract();
  // prom-client is loaded only when metrics are on (METRICS_PORT): it costs every start otherwise.
  const prometheus = config.metrics ? await import('./adapters/metrics/prometheus.js') : null;
  const metrics = prometheus ? new prometheus.Metrics({ pool }) : null;
  const readiness = new Readiness({ store, clock: systemClock, schemaProblem, checkSchema });
  const { app, hasher, ids, housekeeping, posts, adminPath, contentRateLimit, webhookDelivery } = await compose({
    store,
    contract,
    logger,
    clock: systemClock,
    jwtSecret: jwtSecretFor(config),
    config,
    observers: observersOf(config, logger, metrics),
    readiness,
  });

  // Each operation's request validators compile on its first request, not at start: compiling
  // them all costs CPU and resident memory that most servers never use.
  // The port is taken before the first admin is created (a port in use changes nothing), but
  // requests wait until that admin exists: a client that gets a first answer can log in with it.
  const bootstrap = gateUntilOpen(app.fetch);
  const listening = await listenOn(bootstrap.fetch, config).catch(async (error: unknown) => {
    await store.close();
    throw error;
  });
  const metricsServer =
    prometheus && metrics && config.metrics
      ? await prometheus.serveMetrics(metrics, config.metrics).catch(async (error: unknown) => {
          listening.close();
          await store.close();
          throw listenError(error, { ...config.metrics!, hostVariable: 'METRICS_HOST', portVariable: 'METRICS_PORT' });
        })
      : null;
  const origin = originOf(config.host, listening);
  logger.info(`MarginCMS listening on ${origin}${API_ROOT}`, { database: store.kind });
  if (metricsServer && config.metrics) logger.info(`metrics on http://${config.metrics.host}:${config.metrics.port}/metrics`);

  const admin = await ensureFirstAdmin(config, { store, hasher, passwords: createZxcvbnPasswordPolicy(), ids, clock: systemClock });
  bootstrap.open();
  if (admin) announceFirstAdmin(admin, { origin, apiRoot: API_ROOT, adminPath }, { logger, out: process.stdout });
  // The start-up lines are written out now, not up to a flush interval later: whoever started the
  // server reads them as soon as it answers.
  logger.flush();

  const stopWatchingSchema = readiness.watchSchema();
  const stopJobs = scheduleJobs(config, { housekeeping, publishing: posts.scheduled, webhookDelivery, logger, metrics });
  stopFatally = stopOnSignals({
    server: listening,
    readiness,
    logger,
    shutdown: config.shutdown,
    release: async () => {
      stopWatchingSchema();
      metricsServer?.close();
      await stopJobs();
      await contentRateLimit?.close();
      await store.close();
    },
  });
  return { server: listening, store, app };
}

/** Starts the server; when it cannot, says why on standard error (in words to act on) and exits 1. */
export async function run(envFile: string | null): Promise<void> {
  try {
    await start(process.env, { envFile });
  } catch (error) {
    if (error instanceof ConfigError) console.error(error.message);
    else if (error instanceof StartupError) console.error(`MarginCMS could not start: ${error.message}`);
    else console.error(`MarginCMS could not start: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}

/**
 * `fetch`, whose requests wait until `open()` is called; after that, `fetch` itself at no cost.
 * The connection info the Node adapter passes beside each request goes through with it: without
 * it the app cannot tell one client's address from another's.
 */
export function gateUntilOpen(fetch: ServeFetch) {
  let isOpen = false;
  let opened!: () => void;
  const whenOpen = new Promise<void>((resolve) => (opened = resolve));
  return {
    fetch: (request: Request, bindings: HttpBindings): Response | Promise<Response> =>
      isOpen ? fetch(request, bindings) : whenOpen.then(() => fetch(request, bindings)),
    open(): void {
      isOpen = true;
      opened();
    },
  };
}

/** Serves `fetch` on HOST:PORT once it listens; a port in use (or not allowed) rejects with a `StartupError`. */
/**
 * Where a person reaches the server: `localhost` for the usual local addresses, and the port the
 * server was given, not the one asked (PORT=0 asks for any free port).
 */
export function originOf(host: string, listening: Pick<Server, 'address'>): string {
  const address = listening.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return `http://${host === '0.0.0.0' || host === '127.0.0.1' ? 'localhost' : host}:${port}`;
}

function listenOn(fetch: ServeFetch, config: Config): Promise<Server> {
  const server = serveApp(fetch, { hostname: config.host, port: config.port, timeouts: config.requestTimeouts }) as Server;
  return new Promise((resolve, reject) => {
    const fail = (error: unknown) =>
      reject(listenError(error, { host: config.host, port: config.port, hostVariable: 'HOST', portVariable: 'PORT' }));
    server.once('error', fail);
    server.once('listening', () => {
      server.off('error', fail);
      resolve(server);
    });
  });
}

/** Who is told of every answered request: the access log and the metrics, when they are on. */
function observersOf(config: Config, logger: Logger, metrics: Pick<Metrics, 'observeRequest'> | null): RequestObserver[] {
  const observers: RequestObserver[] = [];
  // Written at info: below that level the observer would cost every request and write nothing.
  if (config.accessLog && ['debug', 'info'].includes(config.logLevel)) observers.push(accessLog(logger));
  if (metrics) observers.push(metrics.observeRequest);
  return observers;
}

interface Jobs {
  housekeeping: Pick<Housekeeping, 'runOnce'>;
  publishing: Pick<ScheduledPublishing, 'runOnce'>;
  webhookDelivery: Pick<WebhookDeliveryWorker, 'start'>;
  logger: Logger;
  metrics: Pick<Metrics, 'observeHousekeeping' | 'observeScheduledPublishing'> | null;
}

/**
 * Starts housekeeping, scheduled publishing and webhook delivery at their intervals (0: off);
 * returns what stops them (webhook deliveries in flight settled first).
 */
function scheduleJobs(config: Pick<Config, 'housekeeping' | 'publishIntervalSeconds' | 'webhooks'>, jobs: Jobs): () => Promise<void> {
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
  const stopDelivering = config.webhooks.pollMs > 0 ? jobs.webhookDelivery.start(config.webhooks.pollMs) : async () => undefined;
  return async () => {
    await Promise.all([stopHousekeeping(), stopPublishing(), stopDelivering()]);
  };
}
