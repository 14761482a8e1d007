/**
 * The stores tests run on: memory, embedded PGlite and PostgreSQL, each wired as `main.ts` wires
 * it (`storeOver`: a PostgreSQL store goes through its pool's gate). PGlite is opened once per
 * file and PostgreSQL gets one database per file (dropped at the end); each `make()` empties it.
 * Without a reachable PostgreSQL the PostgreSQL block is skipped locally and fails under CI=true.
 */
import { afterAll, beforeAll, describe } from 'vitest';
import { openPglite, type PgliteConnection } from '../../src/adapters/drizzle/driver/connect-pglite.js';
import { openPostgres, type PostgresConnection } from '../../src/adapters/drizzle/driver/connect-postgres.js';
import type { MakeStore } from '../../src/adapters/contract/index.js';
import { createMemoryStore } from '../../src/adapters/memory/store.js';
import { postgresSettings } from '../../src/config.js';
import { storeOver } from '../../src/open-store.js';
import { createTestDatabase, requirePostgres, testServerUrl, truncateAll, type TestDatabase } from './databases.js';

export type { MakeStore };
export type StoreKind = 'memory' | 'pglite' | 'postgres';

const serverUrl = testServerUrl();
/** Whether PostgreSQL tests run here (under CI=true an unreachable server fails instead). */
const postgresAvailable = await requirePostgres(serverUrl);

/** A shared connection closes in afterAll, not when a test closes its store. */
const keepOpen = async () => undefined;

export interface StoreFactory<C> {
  /** An empty store over the shared connection. */
  make: MakeStore;
  /** The shared connection, for tests of the adapter itself. */
  connection(): C;
}

/** Empty stores over one connection that the block's hooks open and close. */
function sharedConnection<C extends PgliteConnection | PostgresConnection>(connection: () => C): StoreFactory<C> {
  return {
    connection,
    make: async () => {
      await truncateAll(connection().db);
      return storeOver(connection(), keepOpen);
    },
  };
}

/** Opens one in-memory PGlite for the enclosing block (beforeAll), closed after it. */
export function usePglite(): StoreFactory<PgliteConnection> {
  let pglite: PgliteConnection | undefined;
  beforeAll(async () => {
    pglite = await openPglite({ dataDir: undefined });
  });
  afterAll(async () => {
    await pglite?.close();
  });
  return sharedConnection(() => {
    if (!pglite) throw new Error('PGlite is only open inside the block that called usePglite()');
    return pglite;
  });
}

/** Creates a database for the enclosing block and a pool on it (beforeAll); both go after it. */
export function usePostgres(pool: { poolSize?: number } = {}): StoreFactory<PostgresConnection> & { databaseUrl(): string } {
  let database: TestDatabase | undefined;
  let pg: PostgresConnection | undefined;
  beforeAll(async () => {
    database = await createTestDatabase(serverUrl);
    pg = await openPostgres({
      ...postgresSettings(database.url),
      poolSize: pool.poolSize ?? 20,
      idleTimeoutSeconds: 10,
      statementTimeoutMs: 10_000,
    });
  });
  afterAll(async () => {
    await pg?.close();
    await database?.drop();
  });
  return {
    ...sharedConnection(() => {
      if (!pg) throw new Error('PostgreSQL is only open inside the block that called usePostgres()');
      return pg;
    }),
    databaseUrl: () => {
      if (!database) throw new Error('The database only exists inside the block that called usePostgres()');
      return database.url;
    },
  };
}

export function describeOnEveryStore(title: string, body: (make: MakeStore, kind: StoreKind) => void): void {
  describe(`${title} [memory]`, () => {
    body(async () => createMemoryStore(), 'memory');
  });
  describe(`${title} [pglite]`, () => {
    body(usePglite().make, 'pglite');
  });
  describe.skipIf(!postgresAvailable)(`${title} [postgres]`, () => {
    body(usePostgres().make, 'postgres');
  });
}
