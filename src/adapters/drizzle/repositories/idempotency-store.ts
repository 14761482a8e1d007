import { checkedBatchLimit } from '../../../domain/paging.js';
import { and, eq, isNotNull, isNull, sql } from 'drizzle-orm';
import type { ClaimOutcome, IdempotencyClaim, IdempotencyStore, StoredResponse } from '../../../domain/ports/idempotency-store.js';
import { IdempotencyKeyInFlightError } from '../../../domain/errors.js';
import { type DbSession } from '../driver/database.js';
import { idempotencyKeys } from '../schema/schema.js';

/** How often `claim` retries when the key changed hands between its two statements. */
const CLAIM_ATTEMPTS = 5;
/** The wait suggested when the key kept changing hands over every attempt. */
const BUSY_RETRY_AFTER_MS = 1000;

function parseResponse(row: {
  responseStatus: number | null;
  responseHeaders: string | null;
  responseBody: string | null;
}): StoredResponse | null {
  if (row.responseStatus === null || row.responseHeaders === null || row.responseBody === null) {
    return null;
  }
  return {
    status: row.responseStatus,
    headers: JSON.parse(row.responseHeaders) as Record<string, string>,
    body: row.responseBody,
  };
}

export class DrizzleIdempotencyStore implements IdempotencyStore {
  constructor(private readonly session: DbSession) {}

  /**
   * One statement takes the key when it is free: absent, completed and expired, or held past its
   * lease by a request with the same fingerprint (`INSERT … ON CONFLICT DO UPDATE … WHERE`). Only when it did not is the holder read, to
   * tell in-flight, completed and mismatch apart.
   */
  async claim(claim: IdempotencyClaim): Promise<ClaimOutcome> {
    const now = claim.now;
    const t = idempotencyKeys;
    for (let attempt = 1; ; attempt += 1) {
      const outcome = await this.session.run(async (db): Promise<ClaimOutcome | null> => {
        const taken = await db
          .insert(t)
          .values({
            userId: claim.userId,
            key: claim.key,
            fingerprint: claim.fingerprint,
            state: 'in_flight',
            claimedAt: now,
            leaseUntil: new Date(now.getTime() + claim.leaseMs),
            expiresAt: claim.expiresAt,
            responseStatus: null,
            responseHeaders: null,
            responseBody: null,
          })
          .onConflictDoUpdate({
            target: [t.userId, t.key],
            set: {
              fingerprint: sql`excluded.fingerprint`,
              state: sql`excluded.state`,
              claimedAt: sql`excluded.claimed_at`,
              leaseUntil: sql`excluded.lease_until`,
              expiresAt: sql`excluded.expires_at`,
              responseStatus: null,
              responseHeaders: null,
              responseBody: null,
              // Kept on a takeover of an abandoned claim (same fingerprint), cleared otherwise.
              progress: sql`CASE WHEN ${t.state} = 'in_flight' THEN ${t.progress} END`,
            },
            setWhere: sql`(${t.state} = 'completed' AND ${t.expiresAt} <= ${now.toISOString()}::timestamptz)
              OR (${t.state} = 'in_flight' AND ${t.leaseUntil} <= ${now.toISOString()}::timestamptz
                  AND ${t.fingerprint} = excluded.fingerprint)`,
          })
          .returning({ progress: t.progress });
        if (taken.length > 0) return { outcome: 'claimed', progress: taken[0]!.progress };

        const held = await db
          .select()
          .from(t)
          .where(and(eq(t.userId, claim.userId), eq(t.key, claim.key)));
        const row = held[0];
        if (row === undefined) return null; // released meanwhile: try again
        if (row.fingerprint !== claim.fingerprint) return { outcome: 'mismatch' };
        const response = row.state === 'completed' ? parseResponse(row) : null;
        if (response !== null) return { outcome: 'completed', response };
        return { outcome: 'in_flight', retryAfterMs: row.leaseUntil.getTime() - now.getTime() };
      });
      if (outcome !== null) return outcome;
      // Other requests with this key keep claiming and releasing it: one of them is running.
      if (attempt >= CLAIM_ATTEMPTS) return { outcome: 'in_flight', retryAfterMs: BUSY_RETRY_AFTER_MS };
    }
  }

  /** Fenced by `claimed_at`: a claim that was taken over matches no row and stores nothing. */
  async complete(userId: string, key: string, claimedAt: Date, response: StoredResponse): Promise<void> {
    const t = idempotencyKeys;
    const completed = await this.session.run((db) =>
      db
        .update(t)
        .set({
          state: 'completed',
          responseStatus: response.status,
          responseHeaders: JSON.stringify(response.headers),
          responseBody: response.body,
        })
        .where(and(eq(t.userId, userId), eq(t.key, key), eq(t.state, 'in_flight'), eq(t.claimedAt, claimedAt)))
        .returning({ key: t.key }),
    );
    if (completed.length === 0) throw new IdempotencyKeyInFlightError();
  }

  /** Fenced by `claimed_at`, like `complete`. */
  async saveProgress(userId: string, key: string, claimedAt: Date, progress: string): Promise<void> {
    const t = idempotencyKeys;
    const saved = await this.session.run((db) =>
      db
        .update(t)
        .set({ progress })
        .where(and(eq(t.userId, userId), eq(t.key, key), eq(t.state, 'in_flight'), eq(t.claimedAt, claimedAt)))
        .returning({ key: t.key }),
    );
    if (saved.length === 0) throw new IdempotencyKeyInFlightError();
  }

  async release(userId: string, key: string, claimedAt: Date): Promise<void> {
    const t = idempotencyKeys;
    const held = and(eq(t.userId, userId), eq(t.key, key), eq(t.state, 'in_flight'), eq(t.claimedAt, claimedAt));
    await this.session.run(async (db) => {
      await db.delete(t).where(and(held, isNull(t.progress)));
      await db
        .update(t)
        .set({ leaseUntil: claimedAt })
        .where(and(held, isNotNull(t.progress)));
    });
  }

  /** A batch picked by the `expires_at` index, deleted by primary key. */
  async purgeExpired(now: Date, limit: number): Promise<number> {
    const t = idempotencyKeys;
    const batch = checkedBatchLimit(limit);
    const deleted = await this.session.run((db) =>
      db
        .delete(t)
        .where(
          sql`(${t.userId}, ${t.key}) IN (SELECT ${t.userId}, ${t.key} FROM ${t} WHERE ${t.expiresAt} <= ${now.toISOString()}::timestamptz LIMIT ${batch})`,
        )
        .returning({ key: t.key }),
    );
    return deleted.length;
  }

  async read(userId: string, key: string): Promise<StoredResponse | null> {
    const t = idempotencyKeys;
    const rows = await this.session.run((db) =>
      db
        .select({
          responseStatus: t.responseStatus,
          responseHeaders: t.responseHeaders,
          responseBody: t.responseBody,
        })
        .from(t)
        .where(and(eq(t.userId, userId), eq(t.key, key), eq(t.state, 'completed'))),
    );
    return rows[0] === undefined ? null : parseResponse(rows[0]);
  }
}
