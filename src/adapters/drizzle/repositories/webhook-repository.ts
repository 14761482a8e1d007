import { and, asc, count, desc, eq, inArray, sql, type SQL } from 'drizzle-orm';
import { decodeCursor, encodeCursor } from '../../../domain/cursor.js';
import { NotFoundError, WebhookLimitReachedError } from '../../../domain/errors.js';
import { checkedBatchLimit, checkedPageLimit, hasCursor, pageOf } from '../../../domain/paging.js';
import type { Post, PostStatus } from '../../../domain/post.js';
import {
  DELIVERY_POSITION,
  deliveryCursorScope,
  type DeliveryQuery,
  type WebhookRepository,
} from '../../../domain/ports/webhook-repository.js';
import type {
  AttemptOutcome,
  ClaimedDelivery,
  DeliveryStatus,
  WebhookChanges,
  WebhookDelivery,
  WebhookEvent,
  WebhookEventType,
  WebhookSubscription,
} from '../../../domain/webhooks.js';
import { type Database, type DbSession } from '../driver/database.js';
import { webhookDeliveries, webhookEvents, webhookSubscriptions } from '../schema/schema.js';
import { coverOf, seoOf } from './post-repository.js';

type SubscriptionRow = typeof webhookSubscriptions.$inferSelect;
type DeliveryRow = typeof webhookDeliveries.$inferSelect;
type EventRow = typeof webhookEvents.$inferSelect;

function toSubscription(row: SubscriptionRow): WebhookSubscription {
  return {
    id: row.id,
    url: row.url,
    events: row.events as WebhookEventType[],
    description: row.description,
    enabled: row.enabled,
    disabledReason: row.disabledReason,
    secret: row.secret,
    previousSecret:
      row.previousSecret === null || row.previousSecretExpiresAt === null
        ? null
        : { secret: row.previousSecret, expiresAt: row.previousSecretExpiresAt },
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

function subscriptionRow(s: WebhookSubscription): typeof webhookSubscriptions.$inferInsert {
  return {
    id: s.id,
    url: s.url,
    events: [...s.events],
    description: s.description,
    enabled: s.enabled,
    disabledReason: s.disabledReason,
    secret: s.secret,
    previousSecret: s.previousSecret?.secret ?? null,
    previousSecretExpiresAt: s.previousSecret?.expiresAt ?? null,
    createdAt: s.createdAt,
    updatedAt: s.updatedAt,
  };
}

/** The columns an update sets: the changes given, `updatedAt`, and nothing else. */
function changesRow(changes: WebhookChanges, at: Date): Partial<typeof webhookSubscriptions.$inferInsert> {
  return {
    ...(changes.url !== undefined ? { url: changes.url } : {}),
    ...(changes.events !== undefined ? { events: [...changes.events] } : {}),
    ...(changes.description !== undefined ? { description: changes.description } : {}),
    ...(changes.enabled !== undefined ? { enabled: changes.enabled } : {}),
    ...(changes.disabledReason !== undefined ? { disabledReason: changes.disabledReason } : {}),
    ...(changes.secret !== undefined ? { secret: changes.secret } : {}),
    ...(changes.previousSecret !== undefined
      ? { previousSecret: changes.previousSecret?.secret ?? null, previousSecretExpiresAt: changes.previousSecret?.expiresAt ?? null }
      : {}),
    updatedAt: at,
  };
}

function toDelivery(row: DeliveryRow): WebhookDelivery {
  return {
    id: row.id,
    subscriptionId: row.subscriptionId,
    eventId: row.eventId,
    eventType: row.eventType as WebhookEventType,
    postId: row.postId,
    status: row.status as DeliveryStatus,
    attempts: row.attempts,
    nextAttemptAt: row.nextAttemptAt,
    lastAttemptAt: row.lastAttemptAt,
    responseStatus: row.responseStatus,
    error: row.error,
    latencyMs: row.latencyMs,
    createdAt: row.createdAt,
  };
}

/** A timestamp of the posts row's JSON (`to_jsonb` writes ISO 8601 with an offset), or null. */
function instantOf(value: unknown): Date | null {
  return typeof value === 'string' ? new Date(value) : null;
}

/**
 * The post of an event: the `posts` row as the trigger `webhook_outbox` wrote it (`to_jsonb`, so
 * snake_case columns, timestamps as strings), as a domain `Post`.
 */
function postOfRowJson(json: unknown): Post {
  const row = json as Record<string, unknown>;
  const text = (key: string) => row[key] as string;
  const nullableText = (key: string) => (row[key] ?? null) as string | null;
  return {
    id: text('id'),
    title: text('title'),
    slug: text('slug'),
    excerpt: text('excerpt'),
    body: text('body'),
    tags: [...(row.tags as string[])],
    status: text('status') as PostStatus,
    version: row.version as number,
    wordCount: row.word_count as number,
    createdAt: instantOf(row.created_at)!,
    updatedAt: instantOf(row.updated_at)!,
    publishedAt: instantOf(row.published_at),
    publishAt: instantOf(row.publish_at),
    coverImage: coverOf({ coverMediaId: nullableText('cover_media_id'), coverAlt: nullableText('cover_alt') }),
    seo: seoOf({
      seoTitle: nullableText('seo_title'),
      seoDescription: nullableText('seo_description'),
      seoCanonicalUrl: nullableText('seo_canonical_url'),
    }),
  };
}

function toEvent(row: EventRow): WebhookEvent {
  return { id: row.id, type: row.type as WebhookEventType, postId: row.postId, occurredAt: row.occurredAt, post: postOfRowJson(row.post) };
}

const iso = (d: Date) => d.toISOString();

/**
 * The deliveries a claim at `now` may take, as `(id, seq)` in the order it takes them (`claim`'s
 * rule), read in the statement's snapshot: of each enabled subscription (of `among`, when given),
 * its first `perSubscription - held` pending deliveries in `seq` order (the `pending` index, so
 * the scan stops there) that are due, unclaimed and the oldest pending one of their post to it
 * (probed on the `pending_lane` index); ranked within their subscription, then by `seq`.
 */
function ranked(now: Date, perSubscription: number, limit: number, among?: readonly string[]): SQL {
  const at = sql`${iso(now)}::timestamptz`;
  const scope = among === undefined ? sql`` : sql`AND s.id = any(${sql.param(among)})`;
  return sql`SELECT y.id, y.seq FROM (
      SELECT x.id, x.seq, row_number() OVER (PARTITION BY s.id ORDER BY x.seq) AS rank
      FROM ${webhookSubscriptions} s
      CROSS JOIN LATERAL (
        SELECT q.id, q.seq FROM ${webhookDeliveries} q
        WHERE q.subscription_id = s.id AND q.status = 'pending'
          AND (q.attempts = 0 OR q.next_attempt_at <= ${at})
          AND (q.lease_until IS NULL OR q.lease_until <= ${at})
          AND NOT EXISTS (SELECT 1 FROM ${webhookDeliveries} e
            WHERE e.subscription_id = q.subscription_id AND e.post_id = q.post_id AND e.status = 'pending' AND e.seq < q.seq)
        ORDER BY q.seq
        LIMIT greatest(${perSubscription} - (SELECT count(*) FROM ${webhookDeliveries} h
          WHERE h.subscription_id = s.id AND h.status = 'pending' AND h.lease_until > ${at}), 0)
      ) x
      WHERE s.enabled ${scope}
    ) y
    ORDER BY y.rank, y.seq
    LIMIT ${limit}`;
}

/**
 * Locks (`FOR NO KEY UPDATE`, which leaves the outbox's inserts alone) the subscriptions a claim
 * would take deliveries of, skipping those another claim holds: past this, no other claim of any
 * process takes a delivery of them until this transaction ends.
 */
function lockSubscriptions(db: Database, now: Date, perSubscription: number, limit: number) {
  const s = webhookSubscriptions;
  return db
    .select({ id: s.id })
    .from(s)
    .where(
      and(
        eq(s.enabled, true),
        sql`${s.id} IN (SELECT d.subscription_id FROM ${webhookDeliveries} d WHERE (d.id, d.seq) IN (${ranked(now, perSubscription, limit)}))`,
      ),
    )
    .orderBy(asc(s.id))
    .for('no key update', { skipLocked: true });
}

/**
 * The ids of the deliveries a claim takes of the subscriptions it locked, locked themselves
 * (`FOR UPDATE SKIP LOCKED`). Its snapshot is taken after the subscriptions' locks were granted,
 * so it sees every claim committed before on them: the count of their held deliveries is exact.
 * The conditions on the delivery's row are in this WHERE, so that PostgreSQL rechecks them
 * (EvalPlanQual) on a row updated since the snapshot (a settle or a redelivery: a delivery
 * redelivered meanwhile has a new `seq`, last of its post, and fails the recheck of `(id, seq)`).
 */
function claimable(now: Date, perSubscription: number, limit: number, among: readonly string[]): SQL {
  const at = sql`${iso(now)}::timestamptz`;
  return sql`SELECT d.id FROM ${webhookDeliveries} d
    WHERE (d.id, d.seq) IN (${ranked(now, perSubscription, limit, among)})
      AND d.status = 'pending'
      AND (d.attempts = 0 OR d.next_attempt_at <= ${at})
      AND (d.lease_until IS NULL OR d.lease_until <= ${at})
    FOR UPDATE OF d SKIP LOCKED`;
}

/** `claim`'s second statement: the UPDATE of the deliveries taken, joined with their events and subscriptions. */
function claimStatement(db: Database, now: Date, leaseUntil: Date, claimed: SQL) {
  const c = db.$with('c').as(
    db
      .update(webhookDeliveries)
      .set({ attempts: sql`${webhookDeliveries.attempts} + 1`, lastAttemptAt: now, leaseUntil })
      .where(sql`${webhookDeliveries.id} IN (${claimed})`)
      .returning(),
  );
  return db
    .with(c)
    .select()
    .from(c)
    .innerJoin(webhookEvents, eq(webhookEvents.id, c.eventId))
    .innerJoin(webhookSubscriptions, eq(webhookSubscriptions.id, c.subscriptionId))
    .orderBy(asc(c.seq));
}

/** The claim `settle` needs still holding: pending, the same attempt, the same lease. */
function heldBy(claimed: ClaimedDelivery): SQL | undefined {
  const t = webhookDeliveries;
  return and(
    eq(t.id, claimed.delivery.id),
    eq(t.status, 'pending'),
    eq(t.attempts, claimed.delivery.attempts),
    eq(t.leaseUntil, claimed.leaseUntil),
  );
}

/** What `settle` writes on the delivery for `outcome`. */
function settledRow(outcome: AttemptOutcome): Partial<typeof webhookDeliveries.$inferInsert> {
  const status: DeliveryStatus = outcome.ok ? 'succeeded' : outcome.retryAt !== null ? 'pending' : 'failed';
  return {
    status,
    nextAttemptAt: status === 'pending' ? outcome.retryAt : null,
    leaseUntil: null,
    responseStatus: outcome.responseStatus,
    error: outcome.error,
    latencyMs: outcome.latencyMs,
  };
}

export class DrizzleWebhookRepository implements WebhookRepository {
  constructor(private readonly session: DbSession) {}

  async create(subscription: WebhookSubscription, max?: number): Promise<WebhookSubscription> {
    const insert = (db: Database) => db.insert(webhookSubscriptions).values(subscriptionRow(subscription)).returning();
    const ctx = { id: subscription.id };
    if (max === undefined) return toSubscription((await this.session.run(insert, ctx))[0]!);
    const rows = await this.session.transaction(async (tx) => {
      // One create at a time past this lock (in every process: it is the database's). The count is
      // the next statement, so under READ COMMITTED it sees every create committed before the lock
      // was granted; counted in the INSERT's own statement, two creates could both see max - 1.
      await tx.execute(sql`select pg_advisory_xact_lock(hashtext('margin-cms:webhook-subscriptions'))`);
      const [counted] = await tx.select({ n: count() }).from(webhookSubscriptions);
      if ((counted?.n ?? 0) >= max) throw new WebhookLimitReachedError(max);
      return insert(tx);
    }, ctx);
    return toSubscription(rows[0]!);
  }

  async get(id: string): Promise<WebhookSubscription | null> {
    const rows = await this.session.run((db) => db.select().from(webhookSubscriptions).where(eq(webhookSubscriptions.id, id)));
    return rows[0] === undefined ? null : toSubscription(rows[0]);
  }

  async list(): Promise<WebhookSubscription[]> {
    const rows = await this.session.run((db) =>
      db.select().from(webhookSubscriptions).orderBy(asc(webhookSubscriptions.createdAt), asc(webhookSubscriptions.id)),
    );
    return rows.map(toSubscription);
  }

  async count(): Promise<number> {
    const rows = await this.session.run((db) => db.select({ n: count() }).from(webhookSubscriptions));
    return rows[0]?.n ?? 0;
  }

  async update(id: string, changes: WebhookChanges, at: Date): Promise<WebhookSubscription> {
    const rows = await this.session.run((db) =>
      db.update(webhookSubscriptions).set(changesRow(changes, at)).where(eq(webhookSubscriptions.id, id)).returning(),
    );
    if (rows[0] === undefined) throw new NotFoundError('webhook', id);
    return toSubscription(rows[0]);
  }

  /** One UPDATE: its SET reads the row it writes (the one a concurrent rotation committed, after waiting for its lock). */
  async rotateSecret(id: string, secret: string, previousExpiresAt: Date, at: Date): Promise<WebhookSubscription> {
    const s = webhookSubscriptions;
    const rows = await this.session.run((db) =>
      db
        .update(s)
        .set({ previousSecret: sql`${s.secret}`, previousSecretExpiresAt: previousExpiresAt, secret, updatedAt: at })
        .where(eq(s.id, id))
        .returning(),
    );
    if (rows[0] === undefined) throw new NotFoundError('webhook', id);
    return toSubscription(rows[0]);
  }

  /** Its deliveries go with it (the foreign key cascades); their events stay until `purge`. */
  async delete(id: string): Promise<void> {
    const rows = await this.session.run((db) =>
      db.delete(webhookSubscriptions).where(eq(webhookSubscriptions.id, id)).returning({ id: webhookSubscriptions.id }),
    );
    if (rows.length === 0) throw new NotFoundError('webhook', id);
  }

  async deliveries(subscriptionId: string, query: DeliveryQuery): Promise<{ items: WebhookDelivery[]; nextCursor: string | null }> {
    const limit = checkedPageLimit(query.limit);
    const t = webhookDeliveries;
    const scope = deliveryCursorScope(subscriptionId, query.status);
    let after: SQL | undefined;
    if (hasCursor(query.cursor)) {
      const [at, id] = decodeCursor(query.cursor, scope, DELIVERY_POSITION) as [string, string];
      after = sql`(${t.createdAt}, ${t.id}) < (${at}::timestamptz, ${id})`;
    }
    const rows = await this.session.run((db) =>
      db
        .select()
        .from(t)
        .where(and(eq(t.subscriptionId, subscriptionId), query.status === undefined ? undefined : eq(t.status, query.status), after))
        .orderBy(desc(t.createdAt), desc(t.id))
        .limit(limit + 1),
    );
    return pageOf(rows.map(toDelivery), limit, (last) => encodeCursor(scope, [last.createdAt.toISOString(), last.id]));
  }

  async getDelivery(subscriptionId: string, id: string): Promise<WebhookDelivery | null> {
    const t = webhookDeliveries;
    const rows = await this.session.run((db) =>
      db
        .select()
        .from(t)
        .where(and(eq(t.id, id), eq(t.subscriptionId, subscriptionId))),
    );
    return rows[0] === undefined ? null : toDelivery(rows[0]);
  }

  /**
   * One transaction of two statements under READ COMMITTED: the subscriptions locked, then their
   * deliveries claimed with a snapshot that sees every claim committed on them before the locks.
   * Of concurrent claims, one that meets a subscription another holds leaves it to that one.
   */
  async claim(now: Date, leaseMs: number, limit: number, perSubscription: number): Promise<ClaimedDelivery[]> {
    checkedBatchLimit(limit);
    checkedBatchLimit(perSubscription);
    const leaseUntil = new Date(now.getTime() + leaseMs);
    const rows = await this.session.transaction(async (tx) => {
      const locked = await lockSubscriptions(tx, now, perSubscription, limit);
      if (locked.length === 0) return [];
      const among = locked.map((row) => row.id);
      return claimStatement(tx, now, leaseUntil, claimable(now, perSubscription, limit, among));
    });
    return rows.map((row) => ({
      delivery: toDelivery(row.c),
      event: toEvent(row.webhook_events),
      subscription: toSubscription(row.webhook_subscriptions),
      leaseUntil: row.c.leaseUntil ?? leaseUntil,
    }));
  }

  /**
   * One statement, guarded by the claim: the delivery's UPDATE and, when it gives up, the
   * subscription's (a CTE reading the delivery's RETURNING row, so nothing is disabled when the
   * claim was lost).
   */
  async settle(claimed: ClaimedDelivery, outcome: AttemptOutcome): Promise<boolean> {
    const d = webhookDeliveries;
    const s = webhookSubscriptions;
    const rows = await this.session.run((db) => {
      const settled = db
        .$with('settled')
        .as(db.update(d).set(settledRow(outcome)).where(heldBy(claimed)).returning({ subscriptionId: d.subscriptionId, status: d.status }));
      const disabled = db.$with('disabled').as(
        db
          .update(s)
          .set({ enabled: false, disabledReason: outcome.disableReason ?? null, updatedAt: outcome.at })
          .where(inArray(s.id, db.select({ id: settled.subscriptionId }).from(settled).where(eq(settled.status, 'failed'))))
          .returning({ id: s.id }),
      );
      return db.with(settled, disabled).select({ status: settled.status }).from(settled);
    });
    return rows.length > 0;
  }

  /**
   * A new `seq` from the table's sequence puts it last in its subscription's order; the UPDATE
   * leaves a delivery whose claim holds alone (rechecked on a row a concurrent claim took), and
   * then answers it as it is.
   */
  async redeliver(subscriptionId: string, id: string, now: Date): Promise<WebhookDelivery> {
    const t = webhookDeliveries;
    const at = sql`${iso(now)}::timestamptz`;
    const rows = await this.session.run((db) =>
      db
        .update(t)
        .set({
          seq: sql`nextval(pg_get_serial_sequence('webhook_deliveries', 'seq'))`,
          status: 'pending',
          attempts: 0,
          nextAttemptAt: now,
          leaseUntil: null,
        })
        .where(and(eq(t.id, id), eq(t.subscriptionId, subscriptionId), sql`(${t.leaseUntil} IS NULL OR ${t.leaseUntil} <= ${at})`))
        .returning(),
    );
    if (rows[0] !== undefined) return toDelivery(rows[0]);
    const held = await this.getDelivery(subscriptionId, id);
    if (held === null) throw new NotFoundError('delivery', id);
    return held;
  }

  /** Two statements: the deliveries, then the events none refers to (a statement sees no deletion of its own CTEs). */
  async purge(before: Date, limit: number): Promise<number> {
    const batch = checkedBatchLimit(limit);
    const d = webhookDeliveries;
    const e = webhookEvents;
    const deleted = await this.session.run((db) =>
      db
        .delete(d)
        .where(
          sql`${d.id} IN (SELECT x.id FROM ${d} x WHERE x.status <> 'pending' AND x.created_at < ${iso(before)}::timestamptz ORDER BY x.seq LIMIT ${batch})`,
        )
        .returning({ id: d.id }),
    );
    await this.session.run((db) => db.execute(sql`DELETE FROM ${e} WHERE NOT EXISTS (SELECT 1 FROM ${d} x WHERE x.event_id = ${e}.id)`));
    return deleted.length;
  }
}
