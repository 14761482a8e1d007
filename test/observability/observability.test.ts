import { describe, expect, it } from 'vitest';
import { createMemoryStore } from '../../src/adapters/memory/store.js';
import { ConnectionCounts } from '../../src/adapters/drizzle/driver/connection-counts.js';
import { ConnectionGate } from '../../src/adapters/drizzle/driver/connection-gate.js';
import { accessLog } from '../../src/adapters/http/access-log.js';
import { Metrics, serveMetrics } from '../../src/adapters/metrics/prometheus.js';
import { loadConfig } from '../../src/config.js';
import { UnavailableError, type Post } from '../../src/domain/index.js';
import { createLogger } from '../../src/log.js';
import { ADMIN } from '../support/http.js';
import { expectProblem, instrumented, latch, setup } from '../http/helpers.js';

/** The value of one sample of the exposition text, 0 when the series is absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][\w:]*)(?:\{([^}]*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const have = (match[2] ?? '').split(',').filter(Boolean);
    if (wanted.every((w) => have.includes(w))) return Number(match[3]);
  }
  return 0;
}

describe('access log', () => {
  it('writes one JSON line per request with its id, route template, operation, status, duration and user, never the token', async () => {
    const lines: string[] = [];
    const logger = createLogger('info', (line) => lines.push(line));
    const t = await setup(async () => createMemoryStore(), { observers: [accessLog(logger)] });
    lines.length = 0; // the login of the set-up
    await t.create({ title: 'Logged' });
    await t.send('GET', '/posts?limit=0&q=secret');
    await t.send('GET', '/nowhere');
    await t.send('POST', '/auth/login', { body: { email: ADMIN.email, password: ADMIN.password }, anonymous: true });

    const entries = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(entries).toHaveLength(4);
    expect(entries[0]).toEqual({
      level: 'info',
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      message: 'request',
      requestId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      method: 'POST',
      route: '/api/v1/posts',
      operationId: 'createPost',
      status: 201,
      durationMs: expect.any(Number),
      userId: t.admin.id,
      // app.request has no socket; test/process/client-address.test.ts reads it on the built server.
      client: 'unknown',
    });
    expect(entries[1]).toMatchObject({ method: 'GET', route: '/api/v1/posts', operationId: 'listPosts', status: 422, userId: t.admin.id });
    expect(entries[2]).toMatchObject({ method: 'GET', route: null, operationId: null, status: 404, userId: null });
    expect(entries[3]).toMatchObject({ route: '/api/v1/auth/login', operationId: 'login', status: 200, userId: null });
    expect(new Set(entries.map((e) => e.requestId)).size).toBe(4);
    const all = lines.join('\n');
    expect(all).not.toContain(t.auth.authorization.replace('Bearer ', ''));
    expect(all).not.toContain(ADMIN.password);
    expect(all).not.toContain('secret');
  });

  it('is silent when the level is above info', async () => {
    const lines: string[] = [];
    const t = await setup(async () => createMemoryStore(), { observers: [accessLog(createLogger('warn', (l) => lines.push(l)))] });
    await t.create({ title: 'Quiet' });
    expect(lines).toEqual([]);
  });

  it('is on by default and switched off with ACCESS_LOG=false', () => {
    expect(loadConfig({}).accessLog).toBe(true);
    expect(loadConfig({ ACCESS_LOG: 'false' }).accessLog).toBe(false);
    expect(() => loadConfig({ ACCESS_LOG: 'yes' })).toThrow(/ACCESS_LOG must be true or false/);
  });
});

describe('metrics', () => {
  it('counts requests by operation and status, login throttles, idempotency replays and in-flight conflicts', async () => {
    const metrics = new Metrics({ processMetrics: false });
    let hold: { entered: () => void; gate: Promise<void> } | null = null;
    const t = await setup(async () => createMemoryStore(), {
      observers: [metrics.observeRequest],
      wrap: (store) =>
        instrumented(store, {
          around: async () => {
            const held = hold;
            if (!held) return;
            hold = null;
            held.entered();
            await held.gate;
          },
        }),
    });
    const before = await metrics.render();
    expect(sample(before, 'margin_http_requests_total', { operation: 'login', status: '200' })).toBe(1);

    for (let i = 0; i < 3; i += 1) await t.send('GET', '/healthz');
    await t.send('GET', '/nowhere');
    const body = { title: 'Once' };
    await t.create(body, { 'idempotency-key': 'k1' });
    const replay = await t.send('POST', '/posts', { body, headers: { 'idempotency-key': 'k1' } });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');

    const entered = latch();
    const gate = latch();
    hold = { entered: entered.resolve, gate: gate.promise };
    const slow = t.send('POST', '/posts', { body: { title: 'Slow' }, headers: { 'idempotency-key': 'k2' } });
    await entered.promise;
    await expectProblem(
      await t.send('POST', '/posts', { body: { title: 'Slow' }, headers: { 'idempotency-key': 'k2' } }),
      409,
      'idempotency-key-in-flight',
    );
    gate.resolve();
    expect((await slow).status).toBe(201);

    const max = loadConfig({}).auth.loginThrottle.maxFailures;
    for (let i = 0; i < max; i += 1) {
      await t.send('POST', '/auth/login', { body: { email: ADMIN.email, password: 'wrong password!!' }, anonymous: true });
    }
    await expectProblem(
      await t.send('POST', '/auth/login', { body: { email: ADMIN.email, password: 'wrong password!!' }, anonymous: true }),
      429,
      'too-many-attempts',
    );

    const text = await metrics.render();
    expect(sample(text, 'margin_http_requests_total', { operation: 'getHealth', method: 'GET', status: '200' })).toBe(3);
    expect(sample(text, 'margin_http_requests_total', { operation: 'none', method: 'GET', status: '404' })).toBe(1);
    expect(sample(text, 'margin_http_requests_total', { operation: 'createPost', status: '201' })).toBe(3);
    expect(sample(text, 'margin_http_requests_total', { operation: 'createPost', status: '409' })).toBe(1);
    expect(sample(text, 'margin_http_requests_total', { operation: 'login', status: '401' })).toBe(max);
    expect(sample(text, 'margin_http_request_duration_seconds_count', { operation: 'getHealth', status: '200' })).toBe(3);
    expect(sample(text, 'margin_login_throttled_total')).toBe(1);
    expect(sample(text, 'margin_idempotency_replays_total', { operation: 'createPost' })).toBe(1);
    expect(sample(text, 'margin_idempotency_in_flight_conflicts_total', { operation: 'createPost' })).toBe(1);
  });

  it('reports the pool: size, connections in use, waiters, acquisitions, timeouts and the wait', async () => {
    const gate = new ConnectionGate(2, 50, 1);
    const metrics = new Metrics({ pool: { gate, connections: new ConnectionCounts() }, processMetrics: false });
    const first = await gate.acquire();
    const second = await gate.acquire();
    const waiting = gate.acquire();
    let text = await metrics.render();
    expect(sample(text, 'margin_db_pool_size')).toBe(2);
    expect(sample(text, 'margin_db_pool_connections_in_use')).toBe(2);
    expect(sample(text, 'margin_db_pool_waiting')).toBe(1);
    expect(sample(text, 'margin_db_pool_acquired_total')).toBe(2);

    await new Promise((resolve) => setTimeout(resolve, 10));
    first();
    const third = await waiting;
    await expect(gate.acquire()).rejects.toBeInstanceOf(UnavailableError);
    second();
    third();
    text = await metrics.render();
    expect(sample(text, 'margin_db_pool_connections_in_use')).toBe(0);
    expect(sample(text, 'margin_db_pool_waiting')).toBe(0);
    expect(sample(text, 'margin_db_pool_acquired_total')).toBe(3);
    expect(sample(text, 'margin_db_pool_acquire_timeouts_total')).toBe(1);
    expect(sample(text, 'margin_db_pool_acquire_wait_seconds_count')).toBe(3);
    // The third waited about 10 ms; the first two not at all.
    expect(sample(text, 'margin_db_pool_acquire_wait_seconds_bucket', { le: '0.0005' })).toBe(2);
    expect(sample(text, 'margin_db_pool_acquire_wait_seconds_sum')).toBeGreaterThanOrEqual(0.009);
  });

  it('counts the rows housekeeping deleted, by kind', async () => {
    const metrics = new Metrics({ processMetrics: false });
    metrics.observeHousekeeping({
      idempotencyKeys: 3,
      loginAttempts: 2,
      refreshTokens: 0,
      refreshReplays: 1,
      rateLimitWindows: 5,
      orphanBlobs: 2,
      webhookDeliveries: 7,
      previewLinks: 1,
      ran: true,
    });
    metrics.observeHousekeeping({
      idempotencyKeys: 1,
      loginAttempts: 0,
      refreshTokens: 0,
      refreshReplays: 0,
      rateLimitWindows: 1,
      orphanBlobs: 0,
      webhookDeliveries: 2,
      previewLinks: 0,
      ran: true,
    });
    const text = await metrics.render();
    expect(sample(text, 'margin_housekeeping_deleted_rows_total', { kind: 'idempotency_keys' })).toBe(4);
    expect(sample(text, 'margin_housekeeping_deleted_rows_total', { kind: 'login_attempts' })).toBe(2);
    expect(sample(text, 'margin_housekeeping_deleted_rows_total', { kind: 'rate_limit_windows' })).toBe(6);
    expect(sample(text, 'margin_housekeeping_deleted_rows_total', { kind: 'orphan_blobs' })).toBe(2);
    expect(sample(text, 'margin_housekeeping_deleted_rows_total', { kind: 'webhook_deliveries' })).toBe(9);
    expect(sample(text, 'margin_housekeeping_deleted_rows_total', { kind: 'preview_links' })).toBe(1);
  });

  it('counts the scheduled posts this process published', async () => {
    const metrics = new Metrics({ processMetrics: false });
    expect(sample(await metrics.render(), 'margin_scheduled_posts_published_total')).toBe(0);
    const at = new Date('2026-12-01T09:00:00.000Z');
    const post = (id: string): Post => ({
      id,
      title: id,
      slug: id,
      excerpt: '',
      body: '',
      tags: [],
      status: 'published',
      version: 2,
      wordCount: 0,
      createdAt: at,
      updatedAt: at,
      publishedAt: at,
      publishAt: null,
      coverImage: null,
      seo: { title: null, description: null, canonicalUrl: null },
    });
    metrics.observeScheduledPublishing({ published: [post('a'), post('b')], ran: true });
    metrics.observeScheduledPublishing({ published: [], ran: false });
    metrics.observeScheduledPublishing({ published: [post('c')], ran: true });
    expect(sample(await metrics.render(), 'margin_scheduled_posts_published_total')).toBe(3);
  });

  it('serves GET /metrics in the Prometheus text format on its own listener, with process metrics, and nothing else there', async () => {
    const metrics = new Metrics();
    const server = await serveMetrics(metrics, { host: '127.0.0.1', port: 0 });
    try {
      const address = server.address() as { port: number };
      const base = `http://127.0.0.1:${address.port}`;
      const response = await fetch(`${base}/metrics`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
      const text = await response.text();
      expect(text).toContain('# TYPE margin_http_requests_total counter');
      expect(sample(text, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
      expect(sample(text, 'nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
      expect((await fetch(`${base}/api/v1/posts`)).status).toBe(404);
      expect((await fetch(`${base}/metrics`, { method: 'POST' })).status).toBe(404);
    } finally {
      server.close();
    }
  });

  it('is off unless METRICS_PORT is set, and listens on 127.0.0.1 by default', () => {
    expect(loadConfig({}).metrics).toBeNull();
    expect(loadConfig({ METRICS_PORT: '9464' }).metrics).toEqual({ host: '127.0.0.1', port: 9464 });
    expect(() => loadConfig({ METRICS_PORT: '8080' })).toThrow(/METRICS_PORT must differ from PORT/);
  });
});
