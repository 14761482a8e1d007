import { decodeCursor, encodeCursor } from '../../domain/cursor.js';
import { DuplicateIdError, NotFoundError, WebhookLimitReachedError } from '../../domain/errors.js';
import { checkedBatchLimit, checkedPageLimit, hasCursor, pageOf } from '../../domain/paging.js';
import {
  DELIVERY_POSITION,
  deliveryCursorScope,
  type DeliveryQuery,
  type WebhookRepository,
} from '../../domain/ports/webhook-repository.js';
import { compareUtf8 } from '../../domain/text.js';
import type {
  AttemptOutcome,
  ClaimedDelivery,
  WebhookChanges,
  WebhookDelivery,
  WebhookEvent,
  WebhookSubscription,
} from '../../domain/webhooks.js';
import { copyDate, copyNullableDate, type MemoryData, type MemoryDatabase, type StoredDelivery } from './state.js';

function copySubscription(s: WebhookSubscription): WebhookSubscription {
  return {
    ...s,
    events: [...s.events],
    previousSecret: s.previousSecret === null ? null : { secret: s.previousSecret.secret, expiresAt: copyDate(s.previousSecret.expiresAt) },
    createdAt: copyDate(s.createdAt),
    updatedAt: copyDate(s.updatedAt),
  };
}

function copyDelivery(d: StoredDelivery): WebhookDelivery {
  return {
    id: d.id,
    subscriptionId: d.subscriptionId,
    eventId: d.eventId,
    eventType: d.eventType,
    postId: d.postId,
    status: d.status,
    attempts: d.attempts,
    nextAttemptAt: copyNullableDate(d.nextAttemptAt),
    lastAttemptAt: copyNullableDate(d.lastAttemptAt),
    responseStatus: d.responseStatus,
    error: d.error,
    latencyMs: d.latencyMs,
    createdAt: copyDate(d.createdAt),
  };
}

function copyEvent(e: WebhookEvent): WebhookEvent {
  return structuredClone(e);
}

/** Newest first: `createdAt` descending, ties by id descending (byte order). */
function newestFirst(a: { at: number; id: string }, b: { at: number; id: string }): number {
  return b.at - a.at || compareUtf8(b.id, a.id);
}

function subscriptionOf(data: MemoryData, id: string): WebhookSubscription {
  const found = data.webhooks.get(id);
  if (found === undefined) throw new NotFoundError('webhook', id);
  return found;
}

/** The key of a post's deliveries to one subscription: the ones that go in order. */
const laneOf = (d: StoredDelivery) => `${d.subscriptionId} ${d.postId}`;

/**
 * The deliveries a claim at `now` may take, in the order it takes them (`claim`'s rule): each
 * lane's oldest pending delivery when its subscription is enabled, it is due and unclaimed; of
 * them each subscription's first `perSubscription - held`, ranked within their subscription.
 */
function claimable(data: MemoryData, now: number, perSubscription: number): StoredDelivery[] {
  const pending = [...data.deliveries.values()].filter((d) => d.status === 'pending').sort((a, b) => a.seq - b.seq);
  const held = new Map<string, number>();
  for (const d of pending)
    if (d.leaseUntil !== null && d.leaseUntil > now) held.set(d.subscriptionId, (held.get(d.subscriptionId) ?? 0) + 1);
  const heads = new Set<string>();
  const rank = new Map<string, number>();
  const ranked: { d: StoredDelivery; rank: number }[] = [];
  for (const d of pending) {
    const lane = laneOf(d);
    const isHead = !heads.has(lane);
    heads.add(lane);
    const due = d.attempts === 0 || (d.nextAttemptAt !== null && d.nextAttemptAt.getTime() <= now);
    const free = d.leaseUntil === null || d.leaseUntil <= now;
    if (!isHead || !due || !free || data.webhooks.get(d.subscriptionId)?.enabled !== true) continue;
    const r = (rank.get(d.subscriptionId) ?? 0) + 1;
    rank.set(d.subscriptionId, r);
    if (r <= perSubscription - (held.get(d.subscriptionId) ?? 0)) ranked.push({ d, rank: r });
  }
  return ranked.sort((a, b) => a.rank - b.rank || a.d.seq - b.d.seq).map((k) => k.d);
}

/** What `settle` records on the delivery (and its subscription, giving up). */
function record(data: MemoryData, d: StoredDelivery, outcome: AttemptOutcome): void {
  d.responseStatus = outcome.responseStatus;
  d.error = outcome.error;
  d.latencyMs = outcome.latencyMs;
  d.leaseUntil = null;
  if (outcome.ok) {
    d.status = 'succeeded';
    d.nextAttemptAt = null;
  } else if (outcome.retryAt !== null) {
    d.nextAttemptAt = copyDate(outcome.retryAt);
  } else {
    d.status = 'failed';
    d.nextAttemptAt = null;
    const subscription = data.webhooks.get(d.subscriptionId);
    if (subscription !== undefined) {
      subscription.enabled = false;
      subscription.disabledReason = outcome.disableReason ?? null;
      subscription.updatedAt = copyDate(outcome.at);
    }
  }
}

/** Auto-commit only: each call is one synchronous step under the store's lock. */
export class MemoryWebhookRepository implements WebhookRepository {
  readonly #db: MemoryDatabase;

  constructor(db: MemoryDatabase) {
    this.#db = db;
  }

  #exec<T>(fn: (data: MemoryData) => T): Promise<T> {
    return this.#db.autoCommit.exec(fn);
  }

  create(subscription: WebhookSubscription, max?: number): Promise<WebhookSubscription> {
    return this.#exec((data) => {
      if (max !== undefined && data.webhooks.size >= max) throw new WebhookLimitReachedError(max);
      if (data.webhooks.has(subscription.id)) throw new DuplicateIdError(subscription.id);
      data.webhooks.set(subscription.id, copySubscription(subscription));
      return copySubscription(subscription);
    });
  }

  get(id: string): Promise<WebhookSubscription | null> {
    return this.#exec((data) => {
      const found = data.webhooks.get(id);
      return found === undefined ? null : copySubscription(found);
    });
  }

  list(): Promise<WebhookSubscription[]> {
    return this.#exec((data) =>
      [...data.webhooks.values()]
        .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || compareUtf8(a.id, b.id))
        .map(copySubscription),
    );
  }

  count(): Promise<number> {
    return this.#exec((data) => data.webhooks.size);
  }

  update(id: string, changes: WebhookChanges, at: Date): Promise<WebhookSubscription> {
    return this.#exec((data) => {
      const current = subscriptionOf(data, id);
      const next = copySubscription({
        ...current,
        ...(Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined)) as WebhookChanges),
        updatedAt: at,
      });
      data.webhooks.set(id, next);
      return copySubscription(next);
    });
  }

  rotateSecret(id: string, secret: string, previousExpiresAt: Date, at: Date): Promise<WebhookSubscription> {
    return this.#exec((data) => {
      const current = subscriptionOf(data, id);
      const next = copySubscription({
        ...current,
        secret,
        previousSecret: { secret: current.secret, expiresAt: previousExpiresAt },
        updatedAt: at,
      });
      data.webhooks.set(id, next);
      return copySubscription(next);
    });
  }

  delete(id: string): Promise<void> {
    return this.#exec((data) => {
      subscriptionOf(data, id);
      data.webhooks.delete(id);
      for (const [deliveryId, d] of data.deliveries) if (d.subscriptionId === id) data.deliveries.delete(deliveryId);
    });
  }

  deliveries(subscriptionId: string, query: DeliveryQuery): Promise<{ items: WebhookDelivery[]; nextCursor: string | null }> {
    return this.#exec((data) => {
      checkedPageLimit(query.limit);
      const scope = deliveryCursorScope(subscriptionId, query.status);
      let after: { at: number; id: string } | null = null;
      if (hasCursor(query.cursor)) {
        const [iso, id] = decodeCursor(query.cursor, scope, DELIVERY_POSITION) as [string, string];
        after = { at: Date.parse(iso), id };
      }
      const rest = [...data.deliveries.values()]
        .filter((d) => d.subscriptionId === subscriptionId && (query.status === undefined || d.status === query.status))
        .map((d) => ({ d, at: d.createdAt.getTime(), id: d.id }))
        .sort(newestFirst)
        .filter((k) => after === null || newestFirst(k, after) > 0);
      const page = pageOf(rest, query.limit, (last) => encodeCursor(scope, [last.d.createdAt.toISOString(), last.id]));
      return { items: page.items.map((k) => copyDelivery(k.d)), nextCursor: page.nextCursor };
    });
  }

  getDelivery(subscriptionId: string, id: string): Promise<WebhookDelivery | null> {
    return this.#exec((data) => {
      const found = data.deliveries.get(id);
      return found === undefined || found.subscriptionId !== subscriptionId ? null : copyDelivery(found);
    });
  }

  claim(now: Date, leaseMs: number, limit: number, perSubscription: number): Promise<ClaimedDelivery[]> {
    return this.#exec((data) => {
      checkedBatchLimit(limit);
      checkedBatchLimit(perSubscription);
      const at = now.getTime();
      return claimable(data, at, perSubscription)
        .slice(0, limit)
        .map((d) => {
          d.attempts += 1;
          d.lastAttemptAt = copyDate(now);
          d.leaseUntil = at + leaseMs;
          return {
            delivery: copyDelivery(d),
            event: copyEvent(data.webhookEvents.get(d.eventId)!),
            subscription: copySubscription(data.webhooks.get(d.subscriptionId)!),
            leaseUntil: new Date(d.leaseUntil),
          };
        });
    });
  }

  settle(claimed: ClaimedDelivery, outcome: AttemptOutcome): Promise<boolean> {
    return this.#exec((data) => {
      const d = data.deliveries.get(claimed.delivery.id);
      const held =
        d !== undefined &&
        d.status === 'pending' &&
        d.attempts === claimed.delivery.attempts &&
        d.leaseUntil === claimed.leaseUntil.getTime();
      if (!held) return false;
      record(data, d, outcome);
      return true;
    });
  }

  redeliver(subscriptionId: string, id: string, now: Date): Promise<WebhookDelivery> {
    return this.#exec((data) => {
      const d = data.deliveries.get(id);
      if (d === undefined || d.subscriptionId !== subscriptionId) throw new NotFoundError('delivery', id);
      // Held: its attempt is under way, and stays the only one of its post to the subscription.
      if (d.leaseUntil !== null && d.leaseUntil > now.getTime()) return copyDelivery(d);
      // Last in its post's order to the subscription; the last attempt's response, error and latency stay until the next attempt.
      data.deliverySeq += 1;
      d.seq = data.deliverySeq;
      d.status = 'pending';
      d.attempts = 0;
      d.nextAttemptAt = copyDate(now);
      d.leaseUntil = null;
      return copyDelivery(d);
    });
  }

  purge(before: Date, limit: number): Promise<number> {
    return this.#exec((data) => {
      const most = checkedBatchLimit(limit);
      const old = [...data.deliveries.values()]
        .filter((d) => d.status !== 'pending' && d.createdAt.getTime() < before.getTime())
        .sort((a, b) => a.seq - b.seq)
        .slice(0, most);
      for (const d of old) data.deliveries.delete(d.id);
      const referred = new Set([...data.deliveries.values()].map((d) => d.eventId));
      for (const id of data.webhookEvents.keys()) if (!referred.has(id)) data.webhookEvents.delete(id);
      return old.length;
    });
  }
}
