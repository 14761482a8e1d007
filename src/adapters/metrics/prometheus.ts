import { createServer, type Server } from 'node:http';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { PurgeReport } from '../../app/housekeeping.js';
import type { PublishReport } from '../../app/scheduled-publishing.js';

/*
 * What this adapter reads of the others, declared here rather than imported from them (adapters
 * do not import each other, docs/ARCHITECTURE.md): the composition root hands it the Drizzle
 * pool's gate and connection counts and the HTTP app's request events, and the type checker holds
 * those to these shapes there.
 */

/** What the metrics read of the PostgreSQL pool: its gate, and the connections it opened. */
export interface PoolView {
  readonly gate: {
    /** The connections the pool may open (DB_POOL_SIZE). */
    readonly connections: number;
    readonly connectionsInUse: number;
    readonly waiting: number;
    observer: { acquired(waitedMs: number): void; timedOut(): void } | null;
  };
  readonly connections: {
    readonly open: number;
    readonly opened: number;
    readonly closed: number;
    observer: { opened(): void; closed(): void } | null;
  };
}

/** What the metrics read of one answered request (the HTTP adapter's `RequestEvent`). */
interface ObservedRequest {
  method: string;
  /** Null when no operation matched. */
  operationId: string | null;
  status: number;
  durationMs: number;
  /** The problem type slug of an error answer (`too-many-attempts`, …). */
  problem: string | null;
  /** Whether an Idempotency-Key replayed a stored answer. */
  replayed: boolean;
}

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
const WAIT_BUCKETS = [0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5];

/**
 * The server's Prometheus metrics (prom-client, in a registry of their own): requests by
 * operation and status, with their latency; the PostgreSQL pool (connections open, opened and
 * closed, its size, connections in use, callers waiting, acquisitions, acquire timeouts, the wait); login throttles; idempotency replays and
 * in-flight conflicts; rows housekeeping deleted; scheduled posts published; and Node's process
 * metrics.
 */
export class Metrics {
  readonly registry = new Registry();
  readonly #requests: Counter<'operation' | 'method' | 'status'>;
  readonly #latency: Histogram<'operation' | 'method' | 'status'>;
  readonly #loginThrottled: Counter;
  readonly #replays: Counter<'operation'>;
  readonly #inFlight: Counter<'operation'>;
  readonly #housekeeping: Counter<'kind'>;
  readonly #scheduledPublished: Counter;
  /** Label children by `operation method status`, so a request costs one map lookup. */
  readonly #children = new Map<string, { count: Counter.Internal; latency: Histogram.Internal<string> }>();

  constructor(options: { pool?: PoolView | null; processMetrics?: boolean } = {}) {
    const registers = [this.registry];
    this.#requests = new Counter({
      name: 'margin_http_requests_total',
      help: 'Requests answered, by operationId ("none" outside any operation), method and status.',
      labelNames: ['operation', 'method', 'status'],
      registers,
    });
    this.#latency = new Histogram({
      name: 'margin_http_request_duration_seconds',
      help: 'Time from the request reaching the app to its answer being made.',
      labelNames: ['operation', 'method', 'status'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.#loginThrottled = new Counter({
      name: 'margin_login_throttled_total',
      help: 'Logins refused with 429 because of too many recent failures.',
      registers,
    });
    this.#replays = new Counter({
      name: 'margin_idempotency_replays_total',
      help: 'Requests answered by replaying the stored answer of their Idempotency-Key.',
      labelNames: ['operation'],
      registers,
    });
    this.#inFlight = new Counter({
      name: 'margin_idempotency_in_flight_conflicts_total',
      help: 'Requests refused with 409 because the first request with their Idempotency-Key was still running.',
      labelNames: ['operation'],
      registers,
    });
    this.#housekeeping = new Counter({
      name: 'margin_housekeeping_deleted_rows_total',
      help: 'Rows housekeeping deleted, by kind.',
      labelNames: ['kind'],
      registers,
    });
    this.#scheduledPublished = new Counter({
      name: 'margin_scheduled_posts_published_total',
      help: 'Scheduled drafts this process published when they came due.',
      registers,
    });
    if (options.pool) this.#observePool(options.pool);
    if (options.processMetrics ?? true) collectDefaultMetrics({ register: this.registry });
  }

  /** A request observer for the app. */
  readonly observeRequest = (event: ObservedRequest): void => {
    const operation = event.operationId ?? 'none';
    const key = `${operation} ${event.method} ${event.status}`;
    let child = this.#children.get(key);
    if (child === undefined) {
      const labels = { operation, method: event.method, status: String(event.status) };
      child = { count: this.#requests.labels(labels), latency: this.#latency.labels(labels) };
      this.#children.set(key, child);
    }
    child.count.inc();
    child.latency.observe(event.durationMs / 1000);
    if (event.problem === 'too-many-attempts' && event.operationId === 'login') this.#loginThrottled.inc();
    if (event.replayed) this.#replays.inc({ operation });
    if (event.problem === 'idempotency-key-in-flight') this.#inFlight.inc({ operation });
  };

  observeHousekeeping(report: PurgeReport): void {
    this.#housekeeping.inc({ kind: 'idempotency_keys' }, report.idempotencyKeys);
    this.#housekeeping.inc({ kind: 'login_attempts' }, report.loginAttempts);
    this.#housekeeping.inc({ kind: 'refresh_tokens' }, report.refreshTokens);
    this.#housekeeping.inc({ kind: 'refresh_replays' }, report.refreshReplays);
    this.#housekeeping.inc({ kind: 'rate_limit_windows' }, report.rateLimitWindows);
    this.#housekeeping.inc({ kind: 'orphan_blobs' }, report.orphanBlobs);
    this.#housekeeping.inc({ kind: 'webhook_deliveries' }, report.webhookDeliveries);
    this.#housekeeping.inc({ kind: 'preview_links' }, report.previewLinks);
  }

  observeScheduledPublishing(report: PublishReport): void {
    this.#scheduledPublished.inc(report.published.length);
  }

  /** The exposition text (`text/plain; version=0.0.4`). */
  render(): Promise<string> {
    return this.registry.metrics();
  }

  #observePool({ gate, connections }: PoolView): void {
    const registers = [this.registry];
    new Gauge({
      name: 'margin_db_pool_connections',
      help: 'PostgreSQL connections open now (connected sockets of the pool, query cancellations included).',
      registers,
      collect() {
        this.set(connections.open);
      },
    });
    const opened = new Counter({
      name: 'margin_db_pool_connections_opened_total',
      help: 'PostgreSQL connections the pool opened (TCP connection made).',
      registers,
    });
    const closed = new Counter({
      name: 'margin_db_pool_connections_closed_total',
      help: 'PostgreSQL connections of the pool that closed (idle or lifetime timeout, lost, ended).',
      registers,
    });
    // The pool may have connected before the metrics were made (the schema check at start).
    opened.inc(connections.opened);
    closed.inc(connections.closed);
    connections.observer = { opened: () => opened.inc(), closed: () => closed.inc() };
    new Gauge({
      name: 'margin_db_pool_size',
      help: 'PostgreSQL connections the pool may open (DB_POOL_SIZE).',
      registers,
      collect() {
        this.set(gate.connections);
      },
    });
    new Gauge({
      name: 'margin_db_pool_connections_in_use',
      help: 'Connections in use: permits held divided by DB_PIPELINE_DEPTH (a transaction holds a whole connection).',
      registers,
      collect() {
        this.set(gate.connectionsInUse);
      },
    });
    new Gauge({
      name: 'margin_db_pool_waiting',
      help: 'Callers waiting for a pool connection now.',
      registers,
      collect() {
        this.set(gate.waiting);
      },
    });
    const acquired = new Counter({
      name: 'margin_db_pool_acquired_total',
      help: 'Pool acquisitions granted (each database call or transaction takes one).',
      registers,
    });
    const timeouts = new Counter({
      name: 'margin_db_pool_acquire_timeouts_total',
      help: 'Callers that got no connection within DB_ACQUIRE_TIMEOUT_MS (answered 503).',
      registers,
    });
    const wait = new Histogram({
      name: 'margin_db_pool_acquire_wait_seconds',
      help: 'Time callers waited for a pool connection.',
      buckets: WAIT_BUCKETS,
      registers,
    });
    gate.observer = {
      acquired: (waitedMs) => {
        acquired.inc();
        wait.observe(waitedMs / 1000);
      },
      timedOut: () => timeouts.inc(),
    };
  }
}

/**
 * Serves `GET /metrics` on its own listener (METRICS_PORT), apart from the API, so that it is
 * never public by accident: bind it to a private interface or keep the default 127.0.0.1.
 */
export function serveMetrics(metrics: Metrics, options: { host: string; port: number }): Promise<Server> {
  const server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    if (path !== '/metrics' || (request.method !== 'GET' && request.method !== 'HEAD')) {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Only GET /metrics is served here.\n');
      return;
    }
    metrics.render().then(
      (text) => {
        response.writeHead(200, { 'content-type': metrics.registry.contentType, 'cache-control': 'no-store' });
        response.end(request.method === 'HEAD' ? undefined : text);
      },
      (error: unknown) => {
        response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end(`metrics failed: ${String(error)}\n`);
      },
    );
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}
