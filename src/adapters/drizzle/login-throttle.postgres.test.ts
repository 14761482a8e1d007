import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, requirePostgres, testServerUrl, type TestDatabase } from '../../../test/support/databases.js';
import type { Store } from '../../domain/ports/store.js';
import { openPostgres, type PostgresConnection } from './connect-postgres.js';
import { createDrizzleStore } from './store.js';

// Two pools on one database stand for two server processes sharing a login throttle.
const serverUrl = testServerUrl();
const available = await requirePostgres(serverUrl);

describe.skipIf(!available)('login throttle across two pools on one PostgreSQL', () => {
  let database: TestDatabase;
  let pools: PostgresConnection[] = [];
  let stores: Store[] = [];
  beforeAll(async () => {
    database = await createTestDatabase(serverUrl);
    pools = await Promise.all(
      [1, 2].map(() => openPostgres({ url: database.url, poolSize: 4, connectTimeoutSeconds: 5, idleTimeoutSeconds: 10, statementTimeoutMs: 10_000 })),
    );
    stores = pools.map((pg) => createDrizzleStore(pg.db, 'postgres', { close: async () => undefined, gate: pg.gate }));
  });
  afterAll(async () => {
    await Promise.all(pools.map((pg) => pg.close()));
    await database?.drop();
  });

  it('admits exactly the limit of a burst split over two processes, and counts every admitted attempt once', async () => {
    const at = new Date('2026-06-01T12:00:00.000Z');
    const since = new Date(at.getTime() - 900_000);
    for (let round = 0; round < 5; round++) {
      const key = `address:192.0.2.${round}`;
      const outcomes = await Promise.all(
        Array.from({ length: 24 }, (_, i) => stores[i % 2]!.loginAttempts.admit(key, new Date(at.getTime() + i), since, 5)),
      );
      expect(outcomes.filter((o) => o.admitted), `round ${round}`).toHaveLength(5);
      expect((await stores[0]!.loginAttempts.failuresSince(key, since)).count).toBe(5);
    }
  });
});
