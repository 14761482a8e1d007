/**
 * Runs a block of tests on every store adapter: memory, embedded PGlite and PostgreSQL. Each test
 * gets an empty store; PGlite is opened once per file and PostgreSQL gets one database per file
 * (dropped at the end), both truncated between tests. Without a reachable PostgreSQL the
 * PostgreSQL block is skipped locally and fails under CI=true.
 */
import { afterAll, beforeAll, describe } from 'vitest';
import { openPglite, type PgliteConnection } from '../../src/adapters/drizzle/driver/connect-pglite.js';
import { openPostgres, type PostgresConnection } from '../../src/adapters/drizzle/driver/connect-postgres.js';
import { createDrizzleStore } from '../../src/adapters/drizzle/store.js';
import { createMemoryStore } from '../../src/adapters/memory/store.js';
import type { Store } from '../../src/domain/index.js';
import { createTestDatabase, requirePostgres, testServerUrl, truncateAll, type TestDatabase } from './databases.js';
import { postgresSettings } from '../../src/config.js';

export type StoreKind = 'memory' | 'pglite' | 'postgres';
/** Returns an empty store; closing it is the test's business (shared databases ignore close). */
export type MakeStore = () => Promise<Store>;

const serverUrl = testServerUrl();
const postgresAvailable = await requirePostgres(serverUrl);

export function describeOnEveryStore(title: string, body: (make: MakeStore, kind: StoreKind) => void): void {
  describe(`${title} [memory]`, () => {
    body(async () => createMemoryStore(), 'memory');
  });

  describe(`${title} [pglite]`, () => {
    let pglite: PgliteConnection;
    beforeAll(async () => {
      pglite = await openPglite({ dataDir: undefined });
    });
    afterAll(async () => {
      await pglite?.close();
    });
    body(async () => {
      await truncateAll(pglite.db);
      return createDrizzleStore(pglite.db, 'pglite', { close: async () => undefined });
    }, 'pglite');
  });

  describe.skipIf(!postgresAvailable)(`${title} [postgres]`, () => {
    let database: TestDatabase;
    let pg: PostgresConnection;
    beforeAll(async () => {
      database = await createTestDatabase(serverUrl);
      pg = await openPostgres({ ...postgresSettings(database.url), poolSize: 20, idleTimeoutSeconds: 10, statementTimeoutMs: 10_000 });
    });
    afterAll(async () => {
      await pg?.close();
      await database?.drop();
    });
    body(async () => {
      await truncateAll(pg.db);
      return createDrizzleStore(pg.db, 'postgres', { close: async () => undefined });
    }, 'postgres');
  });
}
