import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { usePglite } from '../../../test/support/stores.js';
import { describeStoreContract } from '../contract/index.js';
import { openPglite } from './driver/connect-pglite.js';
import { readJournal } from './schema/migrations.js';
import { MAPPED_UNIQUE_CONSTRAINTS } from './driver/pg-errors.js';
import { createDrizzleStore } from './store.js';
import { backfillSearch } from './schema/search-backfill.js';
import { describeDrizzleStoreCases } from './store-cases.js';

// One in-memory PGlite for the whole file, migrated once; every test starts from empty tables.
const { make, connection } = usePglite();

describeStoreContract('pglite', make);
describeDrizzleStoreCases(
  'pglite',
  make,
  async (text) => (await connection().client.query<Record<string, unknown>>(text)).rows,
  (batch) => backfillSearch(connection().db, batch),
);

describe('openPglite', () => {
  it('persists under dataDir: a reopened database keeps its rows and is not migrated twice', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'margin-pglite-'));
    try {
      const first = await openPglite({ dataDir: dir });
      const store = createDrizzleStore(first.db, 'pglite', { close: () => first.close() });
      await store.users.upsert({
        id: 'U1',
        email: 'Ada@Example.com',
        name: 'Ada',
        passwordHash: 'h',
        createdAt: new Date(0),
        updatedAt: new Date(0),
      });
      await store.close(); // closes the PGlite and releases the folder's lock
      const second = await openPglite({ dataDir: dir });
      try {
        expect((await createDrizzleStore(second.db, 'pglite').users.getByEmail('ada@example.com'))?.id).toBe('U1');
        const applied = await second.client.query('select * from drizzle.__drizzle_migrations');
        expect(applied.rows).toHaveLength(readJournal().length);
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('searches q with a GIN index on the search column, and has no trigram index left', async () => {
    const idx = await connection().client.query<{ indexname: string; indexdef: string }>(
      `select indexname, indexdef from pg_indexes where tablename = 'posts' and indexdef like '%gin%' order by indexname`,
    );
    expect(idx.rows.map((row) => row.indexname)).toEqual(['posts_search_idx', 'posts_tags_idx']);
    expect(idx.rows[0]?.indexdef).toContain('USING gin (search)');
  });

  it('builds a PostgreSQL store only with its pool gate, as storeOver does (a type error otherwise, checked by tsc)', () => {
    // @ts-expect-error a PostgreSQL store without its pool's gate
    const gateless = () => createDrizzleStore(connection().db, 'postgres', { close: async () => {} });
    expect(gateless).toBeTypeOf('function');
  });
});

describe('migrated schema', () => {
  it('holds every unique constraint that pg-errors maps, as a unique constraint', async () => {
    const rows = await connection().client.query<{ conname: string }>(
      `select conname from pg_constraint where contype in ('p', 'u') order by conname`,
    );
    const names = rows.rows.map((r) => r.conname);
    for (const name of MAPPED_UNIQUE_CONSTRAINTS) expect(names).toContain(name);
  });

  it('sorts titles, ids and slugs with COLLATE "C"', async () => {
    const rows = await connection().client.query<{ attname: string; collname: string }>(
      `select a.attname, c.collname from pg_attribute a join pg_collation c on c.oid = a.attcollation
        where a.attrelid = 'posts'::regclass and a.attname in ('id', 'title', 'slug') order by a.attname`,
    );
    expect(rows.rows).toEqual([
      { attname: 'id', collname: 'C' },
      { attname: 'slug', collname: 'C' },
      { attname: 'title', collname: 'C' },
    ]);
  });
});
