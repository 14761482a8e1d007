import { sql } from 'drizzle-orm';
import { checkedBatchLimit } from '../../../domain/paging.js';
import type { RateLimitCounter, RateWindow } from '../../../domain/ports/rate-limit-counter.js';
import { type DbSession } from '../driver/database.js';
import { rateLimitWindows } from '../schema/schema.js';

export class DrizzleRateLimitCounter implements RateLimitCounter {
  constructor(private readonly session: DbSession) {}

  hit(key: string, at: Date, windowMs: number): Promise<RateWindow> {
    return this.hitMany(key, 1, at, windowMs);
  }

  /**
   * One statement: an upsert whose conflict branch runs under the row's lock, so concurrent hits
   * on a key, from any process, are applied one after the other and each reads the count the
   * previous one left.
   */
  async hitMany(key: string, n: number, at: Date, windowMs: number): Promise<RateWindow> {
    if (!Number.isSafeInteger(windowMs) || windowMs < 1) throw new RangeError(`windowMs must be a positive integer, got ${windowMs}`);
    if (!Number.isSafeInteger(n) || n < 1) throw new RangeError(`n must be a positive integer, got ${n}`);
    const t = rateLimitWindows;
    const ended = sql`${t.endsAt} <= ${at.toISOString()}::timestamptz`;
    const rows = await this.session.run((db) =>
      db
        .insert(t)
        .values({ key, hits: n, endsAt: new Date(at.getTime() + windowMs) })
        .onConflictDoUpdate({
          target: t.key,
          set: {
            hits: sql`CASE WHEN ${ended} THEN excluded.hits ELSE ${t.hits} + excluded.hits END`,
            endsAt: sql`CASE WHEN ${ended} THEN excluded.ends_at ELSE ${t.endsAt} END`,
          },
        })
        .returning({ hits: t.hits, endsAt: t.endsAt }),
    );
    const row = rows[0]!;
    return { hits: row.hits, endsAt: new Date(row.endsAt) };
  }

  async purgeEnded(before: Date, limit: number): Promise<number> {
    const t = rateLimitWindows;
    const batch = checkedBatchLimit(limit);
    const deleted = await this.session.run((db) =>
      db
        .delete(t)
        .where(sql`${t.key} IN (SELECT ${t.key} FROM ${t} WHERE ${t.endsAt} <= ${before.toISOString()}::timestamptz LIMIT ${batch})`)
        .returning({ key: t.key }),
    );
    return deleted.length;
  }
}
