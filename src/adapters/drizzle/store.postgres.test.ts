import { Buffer } from 'node:buffer';
import { describe, expect, it } from 'vitest';
import { UnavailableError } from '../../domain/errors.js';
import { createTestDatabase, requirePostgres, testServerUrl, truncateAll } from '../../../test/support/databases.js';
import { usePostgres } from '../../../test/support/stores.js';
import { describeStoreContract } from '../contract/index.js';
import { minute, newPost, ulid } from '../contract/fixtures.js';
import { openPostgres, type PostgresOptions } from './driver/connect-postgres.js';
import { SchemaBehindError } from './schema/migrations.js';
import { describeDrizzleStoreCases } from './store-cases.js';
import { backfillSearch } from './schema/search-backfill.js';
import { postgresSettings } from '../../config.js';
import { storeOver } from '../../open-store.js';

// Fails under CI=true when the server is down; skipped with a message elsewhere.
const serverUrl = testServerUrl();
const available = await requirePostgres(serverUrl);

// The server's pool defaults (a URL is only needed to read them), with a larger statement timeout.
const { url: _url, ...serverPool } = postgresSettings(serverUrl);
const poolDefaults: Omit<PostgresOptions, 'url'> = { ...serverPool, poolSize: 10, idleTimeoutSeconds: 10, statementTimeoutMs: 10_000 };

describe.skipIf(!available)('PostgreSQL store', () => {
  // One database per run, migrated once; every test starts from empty tables. The store is wired
  // as main.ts wires it (through the pool's gate).
  const { make, connection, databaseUrl } = usePostgres({ poolSize: 10 });

  describeStoreContract('postgres', make);
  describeDrizzleStoreCases(
    'postgres',
    make,
    async (text) => [...(await connection().sql.unsafe<Record<string, unknown>[]>(text))],
    (batch) => backfillSearch(connection().db, batch),
  );

  describe('openPostgres', () => {
    it('sets the session time zone to UTC and the statement timeout', async () => {
      const rows = await connection().sql<{ tz: string; st: string }[]>`
        select current_setting('TimeZone') as tz, current_setting('statement_timeout') as st`;
      expect(rows[0]).toEqual({ tz: 'UTC', st: '10s' });
    });

    it('checkSchema passes on a migrated database', async () => {
      await expect(connection().checkSchema()).resolves.toBeUndefined();
    });

    it('checkSchema throws "database schema is behind" on a database never migrated', async () => {
      const empty = await createTestDatabase(serverUrl, { migrate: false });
      const conn = await openPostgres({ url: empty.url, ...poolDefaults });
      try {
        const error = await conn.checkSchema().catch((e: unknown) => e);
        expect(error).toBeInstanceOf(SchemaBehindError);
        expect((error as Error).message).toMatch(/^database schema is behind: run `make migrate`/);
      } finally {
        await conn.close();
        await empty.drop();
      }
    });

    it('maps a statement timeout (57014) to UnavailableError', async () => {
      await truncateAll(connection().db);
      const conn = await openPostgres({ url: databaseUrl(), ...poolDefaults, statementTimeoutMs: 100 });
      const store = storeOver(conn);
      try {
        const post = await store.posts.create({
          id: 'P1',
          title: 't',
          slug: 's',
          excerpt: '',
          body: '',
          tags: [],
          status: 'draft',
          wordCount: 0,
          createdAt: new Date(0),
          publishedAt: null,
          publishAt: null,
        });
        // Another transaction holds the row lock, so the update waits past the timeout.
        await connection().sql.begin(async (tx) => {
          await tx`select id from posts where id = ${post.id} for update`;
          const error = await store.posts.update(post.id, 1, { title: 'x' }, new Date(1)).catch((e: unknown) => e);
          expect(error).toBeInstanceOf(UnavailableError);
          expect((error as Error).message).not.toMatch(/statement|cancel/i);
        });
      } finally {
        await store.close();
      }
    });

    it('stores four 20 MiB blobs put at once, each statement well within a 2 s statement timeout', async () => {
      await truncateAll(connection().db);
      // One row per blob took over a second per 20 MiB statement alone, and timed out four at once.
      const conn = await openPostgres({ url: databaseUrl(), ...poolDefaults, statementTimeoutMs: 2_000 });
      const store = storeOver(conn);
      try {
        const blob = (seed: number) => {
          const bytes = new Uint8Array(20 * 1024 * 1024);
          for (let i = 0; i < bytes.length; i += 1) bytes[i] = (i * 31 + seed * 7 + (i >>> 20)) & 0xff;
          return bytes;
        };
        const all = [0, 1, 2, 3].map(blob);
        await Promise.all(all.map((bytes, i) => store.blobs.put(`media/m${i}/original.jpg`, bytes, 'image/jpeg')));
        for (const [i, bytes] of all.entries()) {
          const got = await store.blobs.get(`media/m${i}/original.jpg`);
          expect(Buffer.compare(Buffer.from(got!.bytes), Buffer.from(bytes)), `blob ${i}`).toBe(0);
        }
      } finally {
        await store.close();
      }
    }, 60_000);

    it("the readers' list keeps its generic plan on a connection: planned five times, then never again (bench/NOTES.md)", async () => {
      await truncateAll(connection().db);
      const conn = await openPostgres({ url: databaseUrl(), ...poolDefaults, poolSize: 1 });
      const store = storeOver(conn);
      try {
        for (let n = 1; n <= 3; n += 1) await store.posts.create(newPost(n, { status: 'published' }));
        const query = { sort: { key: 'publishedAt', direction: 'desc' } as const, limit: 2, status: ['published' as const] };
        for (let n = 0; n < 12; n += 1) {
          const page = await store.posts.listWithLastChange({ ...query, visibleAt: minute(60 + n) });
          expect([page.items.map((p) => p.id), page.total]).toEqual([[ulid(3), ulid(2)], 3]);
        }
        const plans = await conn.sql`select generic_plans::int as generic, custom_plans::int as custom
          from pg_prepared_statements where statement like 'select "id", %"published_at" <= $%'`;
        // PostgreSQL plans the first five executions for their values, then keeps the generic plan.
        expect([...plans]).toEqual([{ generic: 7, custom: 5 }]);
      } finally {
        await store.close();
      }
    });

    it('an unfiltered list is a prepared statement too: its limits stay parameters, so postgres.js does not send it unprepared (bench/NOTES.md)', async () => {
      await truncateAll(connection().db);
      const conn = await openPostgres({ url: databaseUrl(), ...poolDefaults, poolSize: 1 });
      const store = storeOver(conn);
      try {
        for (let n = 1; n <= 3; n += 1) await store.posts.create(newPost(n));
        for (let n = 0; n < 3; n += 1) {
          const page = await store.posts.list({ sort: { key: 'updatedAt', direction: 'desc' }, limit: 2 });
          expect([page.items.length, page.total]).toEqual([2, 3]);
        }
        const prepared = await conn.sql`select statement from pg_prepared_statements
          where statement like 'select "id", %order by "posts"."updated_at" DESC, "posts"."id" DESC limit $%'`;
        expect(prepared).toHaveLength(1);
      } finally {
        await store.close();
      }
    });

    it('ping throws UnavailableError when the server cannot be reached', async () => {
      const conn = await openPostgres({
        url: 'postgres://postgres@127.0.0.1:1/none',
        ...poolDefaults,
        connectTimeoutSeconds: 1,
      });
      const store = storeOver(conn);
      try {
        await expect(store.ping()).rejects.toBeInstanceOf(UnavailableError);
        await expect(store.posts.get('x')).rejects.toBeInstanceOf(UnavailableError);
      } finally {
        await store.close();
      }
    });
  });
});
