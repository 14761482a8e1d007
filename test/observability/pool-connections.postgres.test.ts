/**
 * The pool metrics against a real PostgreSQL: the connections gauge counts the connections open
 * (as PostgreSQL's own pg_stat_activity sees them), and opens and closes are counted.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tls from 'node:tls';
import postgres from 'postgres';
import { afterEach, describe, expect, it } from 'vitest';
import { openPostgres, type PostgresConnection } from '../../src/adapters/drizzle/driver/connect-postgres.js';
import { Metrics } from '../../src/adapters/metrics/prometheus.js';
import { postgresSettings } from '../../src/config.js';
import { createTestDatabase, requirePostgres, testServerUrl, type TestDatabase } from '../support/databases.js';
import { freePort } from '../support/ports.js';

// Fails under CI=true when the server is down; skipped with a message elsewhere.
const serverUrl = testServerUrl();
const available = await requirePostgres(serverUrl);

/** The value of one unlabelled sample of the exposition text; NaN when the series is absent. */
function sample(text: string, name: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line === undefined ? Number.NaN : Number(line.slice(name.length + 1));
}

async function pool(metrics: Metrics) {
  const text = await metrics.render();
  return {
    open: sample(text, 'margin_db_pool_connections'),
    opened: sample(text, 'margin_db_pool_connections_opened_total'),
    closed: sample(text, 'margin_db_pool_connections_closed_total'),
    size: sample(text, 'margin_db_pool_size'),
  };
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setUp(poolSize: number) {
  const db: TestDatabase = await createTestDatabase(serverUrl, { migrate: false });
  cleanups.push(() => db.drop());
  const connection: PostgresConnection = await openPostgres({ ...postgresSettings(db.url), poolSize });
  cleanups.push(() => connection.close());
  // Another client (not the pool's), to see and end the pool's backends as PostgreSQL sees them.
  const admin = postgres(db.url, { max: 1, onnotice: () => undefined, connection: { application_name: 'margin-test-admin' } });
  cleanups.push(() => admin.end({ timeout: 5 }));
  const backends = async () => {
    const rows = await admin<{ n: number }[]>`
      select count(*)::int as n from pg_stat_activity where datname = current_database() and application_name = 'margin-cms'`;
    return rows[0]!.n;
  };
  const terminateAll = () =>
    admin`select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and application_name = 'margin-cms'`;
  return { connection, backends, terminateAll };
}

/** A self-signed certificate for localhost, made by the openssl command (as PostgreSQL's own tests do). */
function selfSigned(): { key: Buffer; cert: Buffer } {
  const dir = mkdtempSync(join(tmpdir(), 'margin-tls-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      {
        stdio: 'ignore',
      },
    );
    return { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * PostgreSQL over TLS in front of the test server (which has ssl off): it answers the client's
 * SSLRequest with 'S', speaks TLS on the same socket and forwards what arrives decrypted to the
 * server in clear. Counts the TLS sessions it forwarded.
 */
async function tlsFront(target: URL) {
  const { key, cert } = selfSigned();
  let sessions = 0;
  const forward = (secure: tls.TLSSocket) => {
    sessions += 1;
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    secure.pipe(upstream).pipe(secure);
    secure.on('error', () => upstream.destroy());
    secure.on('close', () => upstream.destroy());
    upstream.on('error', () => secure.destroy());
  };
  const server = net.createServer((client) => {
    client.once('data', () => {
      client.write('S');
      const secure = new tls.TLSSocket(client, { isServer: true, key, cert });
      secure.on('secure', () => forward(secure));
      secure.on('error', () => client.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { port: (server.address() as net.AddressInfo).port, sessions: () => sessions };
}

describe.skipIf(!available)('pool connection metrics', () => {
  it('margin_db_pool_connections counts the connections open: 0 before the first query, N after N parallel queries, as many as PostgreSQL sees', async () => {
    const { connection, backends } = await setUp(5);
    const metrics = new Metrics({ pool: { gate: connection.gate, connections: connection.connections }, processMetrics: false });

    expect(await pool(metrics)).toEqual({ open: 0, opened: 0, closed: 0, size: 5 });
    expect(await backends()).toBe(0);

    // Three statements at once on an idle pool: postgres.js opens a connection for each.
    await Promise.all([1, 2, 3].map(() => connection.sql`select pg_sleep(0.2)`));
    expect(await pool(metrics)).toEqual({ open: 3, opened: 3, closed: 0, size: 5 });
    expect(await backends()).toBe(3);
  });

  it('counts a connection closed when PostgreSQL ends it, and the one the pool opens after, so that opened - closed is the connections open', async () => {
    const { connection, backends, terminateAll } = await setUp(5);
    await Promise.all([1, 2].map(() => connection.sql`select pg_sleep(0.1)`));
    // Made after the pool connected (as the server's are, after its schema check): it counts what came before.
    const metrics = new Metrics({ pool: { gate: connection.gate, connections: connection.connections }, processMetrics: false });
    expect(await pool(metrics)).toMatchObject({ open: 2, opened: 2, closed: 0 });

    await terminateAll();
    await expect.poll(async () => (await pool(metrics)).open, { timeout: 3000 }).toBe(0);
    expect(await pool(metrics)).toMatchObject({ open: 0, opened: 2, closed: 2 });

    await connection.sql`select 1`;
    expect(await pool(metrics)).toMatchObject({ open: 1, opened: 3, closed: 2 });
    expect(await backends()).toBe(1);

    await connection.close();
    expect(await pool(metrics)).toMatchObject({ open: 0, opened: 3, closed: 3 });
    expect(await backends()).toBe(0);
  });

  it('connects through the next host when one refuses, counting only the connections made', async () => {
    const db: TestDatabase = await createTestDatabase(serverUrl, { migrate: false });
    cleanups.push(() => db.drop());
    const refusing = await freePort();
    const url = new URL(db.url);
    // postgres.js reads a list of hosts from the URL itself (`host:port,host:port`).
    const twoHosts = `${url.protocol}//${url.username}${url.password ? `:${url.password}` : ''}@127.0.0.1:${refusing},${url.hostname}:${url.port || 5432}${url.pathname}`;
    const connection = await openPostgres({ ...postgresSettings(db.url), url: twoHosts, poolSize: 4 });
    cleanups.push(() => connection.close());
    const metrics = new Metrics({ pool: { gate: connection.gate, connections: connection.connections }, processMetrics: false });

    const rows = await Promise.all([1, 2, 3].map(() => connection.sql<{ one: number }[]>`select pg_sleep(0.1), 1 as one`));
    expect(rows.map((r) => r[0]?.one)).toEqual([1, 1, 1]);
    expect(await pool(metrics)).toMatchObject({ open: 3, opened: 3, closed: 0 });
  });

  it('counts the connections of a pool that speaks TLS to PostgreSQL (sslmode=require)', async () => {
    const db: TestDatabase = await createTestDatabase(serverUrl, { migrate: false });
    cleanups.push(() => db.drop());
    const front = await tlsFront(new URL(db.url));
    const url = new URL(db.url);
    url.hostname = '127.0.0.1';
    url.port = String(front.port);
    url.search = '?sslmode=require';
    const connection = await openPostgres({ ...postgresSettings(db.url), url: url.href, poolSize: 4 });
    cleanups.push(() => connection.close());
    const metrics = new Metrics({ pool: { gate: connection.gate, connections: connection.connections }, processMetrics: false });

    const rows = await Promise.all([1, 2].map(() => connection.sql<{ one: number }[]>`select pg_sleep(0.1), 1 as one`));
    expect(rows.map((r) => r[0]?.one)).toEqual([1, 1]);
    expect(front.sessions(), 'every connection went through TLS').toBe(2);
    expect(await pool(metrics)).toMatchObject({ open: 2, opened: 2, closed: 0 });
    await connection.close();
    expect(await pool(metrics)).toMatchObject({ open: 0, opened: 2, closed: 2 });
  });
});
