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
import { describeDrizzleStoreCases } from './store-cases.js';

// One in-memory PGlite for the whole file, migrated once; every test starts from empty tables.
const { make, connection } = usePglite();

describeStoreContract('pglite', make);
describeDrizzleStoreCases('pglite', make, async (text) => (await connection().client.query<Record<string, unknown>>(text)).rows);

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

  it('loads pg_trgm and uses the trigram index for q', async () => {
    const ext = await connection().client.query<{ extname: string }>(`select extname from pg_extension where extname = 'pg_trgm'`);
    expect(ext.rows).toEqual([{ extname: 'pg_trgm' }]);
    const idx = await connection().client.query<{ indexdef: string }>(
      `select indexdef from pg_indexes where indexname = 'posts_search_text_trgm_idx'`,
    );
    expect(idx.rows[0]?.indexdef).toContain('gin_trgm_ops');
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
