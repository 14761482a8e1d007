import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, requirePostgres, testServerUrl, truncateAll, type TestDatabase } from '../../../test/support/databases.js';
import { openPostgres, type PostgresConnection } from './driver/connect-postgres.js';
import { postgresSettings } from '../../config.js';
import type { Store } from '../../domain/index.js';
import { storeOver } from '../../open-store.js';

// Interleavings that only a server with real concurrency (not PGlite, not memory) can produce.
const serverUrl = testServerUrl();
const available = await requirePostgres(serverUrl);

describe.skipIf(!available)('refresh tokens on PostgreSQL under concurrency', () => {
  let database: TestDatabase;
  let pg: PostgresConnection;
  beforeAll(async () => {
    database = await createTestDatabase(serverUrl);
    pg = await openPostgres({ ...postgresSettings(database.url), poolSize: 4, idleTimeoutSeconds: 10, statementTimeoutMs: 10_000 });
  });
  afterAll(async () => {
    await pg?.close();
    await database?.drop();
  });

  const revokeAlone = (store: Store, at: Date) => store.refreshTokens.revokeFamily('F', at);
  // As AuthService.refresh runs it on a reuse: inside the unit of work of the rotation attempt.
  const revokeInUnit = (store: Store, at: Date) => store.unitOfWork.run((repos) => repos.refreshTokens.revokeFamily('F', at));

  it.each([
    ['alone', revokeAlone],
    ['inside a unit of work, as a refresh that detects reuse runs it', revokeInUnit],
  ])('revokeFamily (%s) also revokes a successor that a concurrent rotation commits while it waits', async (_label, revoke) => {
    await truncateAll(pg.db);
    const store = storeOver(pg, async () => undefined);
    const at = new Date('2026-03-05T10:00:00.000Z');
    const base = {
      familyId: 'F',
      userId: 'U',
      createdAt: at,
      expiresAt: new Date('2026-04-01T00:00:00.000Z'),
      consumedAt: null,
      revokedAt: null,
      replay: null,
      sessionVersion: 0,
    };
    await store.refreshTokens.insert({ ...base, id: 'T1', tokenHash: 'h1' });

    let revoking: Promise<void> | undefined;
    // A rotation of T1 → T2 holds T1's row lock while revokeFamily starts and waits for it.
    await pg.sql.begin(async (tx) => {
      await tx`update refresh_tokens set consumed_at = ${at.toISOString()}, replay = 'sealed' where id = 'T1'`;
      await tx`insert into refresh_tokens (id, family_id, user_id, token_hash, created_at, expires_at)
               values ('T2', 'F', 'U', 'h2', ${at.toISOString()}, ${base.expiresAt.toISOString()})`;
      revoking = revoke(store, new Date(at.getTime() + 1));
      // Let the UPDATE reach the server and block on T1's lock before this transaction commits.
      for (let i = 0; i < 50; i++) {
        const waiting =
          await pg.sql`select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and datname = current_database()`;
        if ((waiting[0]?.n ?? 0) > 0) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    });
    await revoking;
    expect((await store.refreshTokens.find('h1'))?.revokedAt).not.toBeNull();
    expect((await store.refreshTokens.find('h2'))?.revokedAt).not.toBeNull();
  });
});
