import { checkedBatchLimit } from '../../../domain/paging.js';
import { and, count, eq, gte, min, sql } from 'drizzle-orm';
import type { Admission, LoginAttemptRepository } from '../../../domain/ports/login-attempt-repository.js';
import { type DbSession } from '../driver/database.js';
import { loginAddresses, loginAttempts } from '../schema/schema.js';

export class DrizzleLoginAttemptRepository implements LoginAttemptRepository {
  constructor(private readonly session: DbSession) {}

  async recordFailure(key: string, at: Date): Promise<void> {
    await this.session.run((db) => db.insert(loginAttempts).values({ key, attemptedAt: at }));
  }

  /**
   * A transaction serialised per key by `pg_advisory_xact_lock`: the count that follows the lock
   * sees every failure that callers before it recorded (READ COMMITTED takes a snapshot per
   * statement), whichever process they ran in.
   */
  async admit(key: string, at: Date, since: Date, limit: number): Promise<Admission> {
    const t = loginAttempts;
    const most = checkedBatchLimit(limit);
    return this.session.transaction(async (tx): Promise<Admission> => {
      await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`margincms:login:${key}`}, 0))`);
      const rows = await tx
        .select({ count: count(), oldest: min(t.attemptedAt) })
        .from(t)
        .where(and(eq(t.key, key), gte(t.attemptedAt, since)));
      const row = rows[0];
      if (Number(row?.count ?? 0) >= most && row?.oldest) return { admitted: false, oldest: new Date(row.oldest) };
      const inserted = await tx.insert(t).values({ key, attemptedAt: at }).returning({ id: t.id });
      return { admitted: true, attemptId: String(inserted[0]!.id) };
    });
  }

  async forget(attemptId: string): Promise<void> {
    if (!/^[1-9][0-9]{0,15}$/.test(attemptId)) return;
    await this.session.run((db) => db.delete(loginAttempts).where(eq(loginAttempts.id, Number(attemptId))));
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
    const batch = checkedBatchLimit(limit);
    const deleted = await this.session.run((db) =>
      db
        .delete(t)
        .where(sql`${t.id} IN (SELECT ${t.id} FROM ${t} WHERE ${t.attemptedAt} < ${before.toISOString()}::timestamptz LIMIT ${batch})`)
        .returning({ id: t.id }),
    );
    return deleted.length;
  }

  async rememberAddress(account: string, address: string, at: Date): Promise<void> {
    await this.session.run((db) =>
      db
        .insert(loginAddresses)
        .values({ account, address, lastLoginAt: at })
        .onConflictDoUpdate({ target: [loginAddresses.account, loginAddresses.address], set: { lastLoginAt: at } }),
    );
  }

  async knownAddress(account: string, address: string): Promise<boolean> {
    const t = loginAddresses;
    const rows = await this.session.run((db) =>
      db
        .select({ one: sql<number>`1` })
        .from(t)
        .where(and(eq(t.account, account), eq(t.address, address)))
        .limit(1),
    );
    return rows.length > 0;
  }

  async clear(key: string): Promise<void> {
    await this.session.run((db) => db.delete(loginAttempts).where(eq(loginAttempts.key, key)));
  }
}
