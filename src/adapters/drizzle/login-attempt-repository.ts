import { and, count, eq, gte, min, sql } from 'drizzle-orm';
import type { LoginAttemptRepository } from '../../domain/ports/login-attempt-repository.js';
import { checkedBatch, type DbSession } from './database.js';
import { loginAttempts } from './schema.js';

export class DrizzleLoginAttemptRepository implements LoginAttemptRepository {
  constructor(private readonly session: DbSession) {}

  async recordFailure(key: string, at: Date): Promise<void> {
    await this.session.run((db) => db.insert(loginAttempts).values({ key, attemptedAt: at }));
  }

  async failuresSince(key: string, since: Date): Promise<{ count: number; oldest: Date | null }> {
    const t = loginAttempts;
    const rows = await this.session.run((db) =>
      db
        .select({ count: count(), oldest: min(t.attemptedAt) })
        .from(t)
        .where(and(eq(t.key, key), gte(t.attemptedAt, since))),
    );
    const row = rows[0];
    return { count: Number(row?.count ?? 0), oldest: row?.oldest ? new Date(row.oldest) : null };
  }

  async purgeBefore(before: Date, limit: number): Promise<number> {
    const t = loginAttempts;
    const batch = checkedBatch(limit);
    const deleted = await this.session.run((db) =>
      db
        .delete(t)
        .where(sql`${t.id} IN (SELECT ${t.id} FROM ${t} WHERE ${t.attemptedAt} < ${before.toISOString()}::timestamptz LIMIT ${batch})`)
        .returning({ id: t.id }),
    );
    return deleted.length;
  }

  async clear(key: string): Promise<void> {
    await this.session.run((db) => db.delete(loginAttempts).where(eq(loginAttempts.key, key)));
  }
}
