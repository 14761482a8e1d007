/**
 * postgres.js sends a write under 1 KB from a `setImmediate`. When the connection has closed
 * before a query is written to it (a reserved connection, or the `rollback` a failed transaction
 * sends on its connection after the server went away), the stock driver threw
 * `TypeError: Cannot read properties of null (reading 'write')` from that immediate, where nothing
 * can catch it, and the process died (porsager/postgres#1154, #1208). The patch in `patches/`
 * settles such a write's queries with a catchable CONNECTION_CLOSED instead. The connection is
 * reset by a TCP proxy, so the shared server is never touched.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import postgres from 'postgres';
import { UnavailableError } from '../../../domain/errors.js';
import type { Store } from '../../../domain/ports/store.js';
import { createTestDatabase, requirePostgres, testServerUrl, type TestDatabase } from '../../../../test/support/databases.js';
import { causeCodes } from '../../../../test/support/error-codes.js';
import { TcpProxy } from '../../../../test/support/tcp-proxy.js';
import { openPostgres } from './connect-postgres.js';
import { storeOver } from '../../../open-store.js';

const serverUrl = testServerUrl();
const available = await requirePostgres(serverUrl);

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** How `promise` ended within `ms`: its value, its error, or 'pending' (it never settled). */
async function settled<T>(promise: Promise<T>, ms = 3000): Promise<{ ok: true; value: T } | { ok: false; error: unknown } | 'pending'> {
  let timer: NodeJS.Timeout | undefined;
  const pending = new Promise<'pending'>((resolve) => (timer = setTimeout(() => resolve('pending'), ms)));
  try {
    return await Promise.race([
      promise.then(
        (value) => ({ ok: true as const, value }),
        (error: unknown) => ({ ok: false as const, error }),
      ),
      pending,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Waits until the proxy holds no connection: the client has seen every close. */
async function allClosed(proxy: TcpProxy): Promise<void> {
  for (let i = 0; i < 100 && proxy.openSockets > 0; i += 1) await sleep(10);
  await sleep(20);
}

describe.skipIf(!available)('postgres.js: a small write to a connection that has closed', () => {
  let database: TestDatabase;
  let proxy: TcpProxy;
  const cleanups: (() => Promise<unknown>)[] = [];

  beforeAll(async () => {
    database = await createTestDatabase(serverUrl, { migrate: true });
    const target = new URL(serverUrl);
    proxy = new TcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    await proxy.start();
  });
  afterEach(async () => {
    proxy.resetAfterClientChunks = null;
    for (const cleanup of cleanups.splice(0)) await cleanup().catch(() => undefined);
  });
  afterAll(async () => {
    await proxy?.stop();
    await database?.drop();
  });

  function viaProxy(): string {
    const url = new URL(database.url);
    url.hostname = '127.0.0.1';
    url.port = String(proxy.port);
    return url.toString();
  }

  it('rejects a query on a reserved connection reset by the server with CONNECTION_CLOSED instead of throwing where nothing can catch it', async () => {
    const sql = postgres(viaProxy(), { max: 1, connect_timeout: 2, onnotice: () => undefined });
    cleanups.push(() => sql.end({ timeout: 1 }));
    const reserved = await sql.reserve();
    await reserved`select 1`;

    proxy.reset();
    await allClosed(proxy);
    // A few bytes: buffered and flushed from an immediate, after the socket was set to null.
    const outcome = await settled(reserved`select 1 as again`.execute());

    expect(outcome).not.toBe('pending');
    expect(outcome !== 'pending' && outcome.ok).toBe(false);
    expect(outcome !== 'pending' && !outcome.ok && causeCodes(outcome.error)).toContain('CONNECTION_CLOSED');
  });

  it('keeps the connection of a transaction that failed that way in the pool: the next call is served', async () => {
    const sql = postgres(viaProxy(), { max: 1, connect_timeout: 2, onnotice: () => undefined });
    cleanups.push(() => sql.end({ timeout: 1 }));
    const transaction = sql.begin(async (tx) => {
      await tx`select 1`;
      proxy.reset();
      await allClosed(proxy);
      // A statement with parameters the connection has not prepared: it is described first, and
      // the stock driver moved the connection to its 'full' queue, where the pool never looks.
      await tx`select ${Math.random()}::float8 as fresh`;
    });

    const outcome = await settled(transaction);

    expect(outcome !== 'pending' && !outcome.ok && causeCodes(outcome.error)).toContain('CONNECTION_CLOSED');
    await sleep(50);
    expect(await settled(sql`select 2 as n`)).toEqual({ ok: true, value: [{ n: 2 }] });
  });

  it('fails a transaction whose connection is reset mid-way with UnavailableError, and its rollback settles too', async () => {
    const conn = await openPostgres({
      url: viaProxy(),
      poolSize: 1,
      acquireTimeoutMs: 2000,
      connectTimeoutSeconds: 2,
      idleTimeoutSeconds: 30,
      statementTimeoutMs: 5000,
    });
    const store: Store = storeOver(conn);
    cleanups.push(() => store.close());
    await store.posts.get('warm');

    let inner: Promise<unknown> = Promise.resolve();
    let bodyDone!: () => void;
    const body = new Promise<void>((resolve) => (bodyDone = resolve));
    const run = store.unitOfWork.run(async (repos) => {
      try {
        await repos.posts.get('first');
        proxy.reset();
        await allClosed(proxy);
        // Sent on the transaction's connection after it closed; its failure makes the driver
        // send `rollback` on the same closed connection.
        inner = repos.posts.get('second');
        await inner;
      } finally {
        bodyDone();
      }
    });
    const outcome = await settled(run);
    await body;

    expect(outcome).not.toBe('pending');
    expect(outcome !== 'pending' && !outcome.ok && outcome.error).toBeInstanceOf(UnavailableError);
    expect(
      await settled(
        inner.then(
          () => 'resolved',
          () => 'rejected',
        ),
      ),
    ).toEqual({ ok: true, value: 'rejected' });
    // The rollback is settled once the driver has tried to send it; then the pool serves again.
    await sleep(50);
    expect(await settled(store.posts.get('after'))).toEqual({ ok: true, value: null });
  });

  it('fails the first query with a connection error when the connection is lost while it fetches the array types, and leaves no rejection unhandled', async () => {
    // The driver reads the server's array types on each new connection before the first query;
    // the stock driver left that read's failure unhandled, which ends a Node process.
    proxy.resetAfterClientChunks = 1;
    const sql = postgres(viaProxy(), { max: 1, connect_timeout: 2, onnotice: () => undefined });
    cleanups.push(() => sql.end({ timeout: 1 }));
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    cleanups.push(async () => process.off('unhandledRejection', onUnhandled));

    const outcome = await settled(sql`select 1 as one`.execute());
    await sleep(50);

    expect(outcome !== 'pending' && outcome.ok).toBe(false);
    expect(unhandled).toEqual([]);
    proxy.resetAfterClientChunks = null;
    expect(await settled(sql`select 2 as n`)).toEqual({ ok: true, value: [{ n: 2 }] });
  });
});
