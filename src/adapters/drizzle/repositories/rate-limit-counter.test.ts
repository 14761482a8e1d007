import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPglite, type PgliteConnection } from '../driver/connect-pglite.js';
import { DbSession, type Database } from '../driver/database.js';
import { DrizzleRateLimitCounter } from './rate-limit-counter.js';

// What the Content API pays per request for its rate limit (the contract suite holds the rules).
describe('DrizzleRateLimitCounter', () => {
  let pglite: PgliteConnection;
  beforeAll(async () => {
    pglite = await openPglite({ dataDir: undefined });
  });
  afterAll(async () => {
    await pglite.close();
  });

  it('counts a hit in one statement', async () => {
    let statements = 0;
    const counting = new Proxy(pglite.db, {
      get: (target, property, receiver) => {
        if (property === 'insert' || property === 'select' || property === 'update' || property === 'execute') statements += 1;
        return Reflect.get(target, property, receiver) as unknown;
      },
    }) as Database;
    const counter = new DrizzleRateLimitCounter(new DbSession(counting, false, { closed: false }));
    await counter.hit('content:127.0.0.1', new Date('2026-01-01T00:00:00.000Z'), 60_000);
    expect((await counter.hit('content:127.0.0.1', new Date('2026-01-01T00:00:01.000Z'), 60_000)).hits).toBe(2);
    expect(statements).toBe(2);
  });

  it('keeps its windows in an unlogged table: no WAL, so a hit does not wait for a flush to disk', async () => {
    const rows = await pglite.db.execute(sql`select relpersistence from pg_class where relname = 'rate_limit_windows'`);
    expect((rows as { rows: unknown[] }).rows).toEqual([{ relpersistence: 'u' }]);
  });
});
