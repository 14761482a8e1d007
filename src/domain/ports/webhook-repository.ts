import { cursorScope, type CursorField } from '../cursor.js';
import type { AttemptOutcome, ClaimedDelivery, DeliveryStatus, WebhookChanges, WebhookDelivery, WebhookSubscription } from '../webhooks.js';

/** The position of a delivery log (newest first): `[createdAtIso, id]`. */
export const DELIVERY_POSITION: readonly CursorField[] = ['instant', 'string'];

/** The scope of `WebhookRepository.deliveries`: one subscription's log, one status filter. */
export function deliveryCursorScope(subscriptionId: string, status: DeliveryStatus | undefined): string {
  return cursorScope({ list: 'webhook-deliveries', subscriptionId, status: status ?? null });
}

export interface DeliveryQuery {
  status?: DeliveryStatus;
  /** 1 to 100. */
  limit: number;
  cursor?: string | null;
}

/**
 * Webhook subscriptions, the outbox of their deliveries, and the workers' claims on them.
 * Auto-commit only (outside `unitOfWork`). Every adapter passes `describeWebhookRepositoryContract`.
 *
 * The outbox is filled by the post writes, never through this port: see `PostRepository`
 * ("Webhook outbox").
 *
 * Subscriptions
 * - `create(subscription, max?)` stores it as given; an id another holds throws `DuplicateIdError`.
 *   With `max`, it stores it only while fewer than `max` subscriptions exist, else throws
 *   `WebhookLimitReachedError(max)` and stores nothing; the count and the insert are one atomic
 *   step, so of concurrent creates, in one process or several, never more than `max` are stored.
 * - `get(id)` answers it, or null; `list()` answers every subscription, oldest first (by
 *   `createdAt`, ties by id); `count()` how many there are.
 * - `update(id, changes, at)` applies the changes (absent fields keep their value), sets
 *   `updatedAt = at` and answers the subscription as stored; a missing one throws
 *   `NotFoundError('webhook')`.
 * - `rotateSecret(id, secret, previousExpiresAt, at)` makes `secret` the subscription's secret
 *   and the one it replaces its `previousSecret` (until `previousExpiresAt`; one rotated out
 *   earlier is dropped), sets `updatedAt = at` and answers the subscription as stored, in one
 *   atomic step: of concurrent rotations, each keeps as previous the secret it replaced (the
 *   one the rotation applied before it set), never the same one twice. A missing one throws
 *   `NotFoundError('webhook')`.
 * - `delete(id)` removes it with every delivery of it; a missing one throws
 *   `NotFoundError('webhook')`.
 *
 * Delivery log
 * - `deliveries(subscriptionId, query)` answers its deliveries newest first (by `createdAt`, ties
 *   by id, both descending), only those of `query.status` when given, keyset-paginated like every
 *   list (`nextCursor` null on the last page; a cursor of another subscription or status, or no
 *   cursor at all, throws `InvalidCursorError`); none is `{ items: [], nextCursor: null }`.
 * - `getDelivery(subscriptionId, id)` answers it, or null (also when it is another's).
 *
 * Claims (delivery workers in every process sharing the store)
 * - `claim(now, leaseMs, limit, perSubscription)` takes up to `limit` deliveries and answers them
 *   with their event and subscription. A delivery is claimable when its subscription is enabled,
 *   it is the oldest pending delivery of its post to its subscription (in the order they were
 *   enqueued: a post's events go in the order of its changes, while other posts' deliveries are
 *   independent of it), it is due (`nextAttemptAt` at or before `now`; one never attempted,
 *   `attempts` 0, is due at once, whatever `now`) and no unexpired claim holds it. Of the
 *   claimable deliveries, a subscription that unexpired claims already hold `held` of gets at most
 *   `perSubscription - held`: at most `perSubscription` deliveries of one subscription are in
 *   flight at once. Taken first are each subscription's oldest, then its second oldest, and so on
 *   (by their rank in their subscription, ties by the order they were enqueued), so a `limit`
 *   smaller than the work shares it among subscriptions. Taking a delivery adds one to
 *   `attempts`, sets `lastAttemptAt = now` and holds it until `now + leaseMs` (`leaseUntil`).
 *   Of concurrent claims, in one process or several, each delivery is taken by one until its
 *   claim lapses (then any claim may take it again: its worker died), and together they never
 *   hold more than `perSubscription` of one subscription. Claims compare leases with the `now`
 *   each process gives, its own clock: processes sharing a store must keep their clocks within a
 *   few seconds of each other (NTP), well under the lease's margin over the timeout.
 * - `settle(claimed, outcome)` records the attempt when the claim still holds (no other claim
 *   took the delivery since): `responseStatus`, `error`, `latencyMs` as reported and the claim
 *   released; on success the delivery is `succeeded` (`nextAttemptAt` null); on a failure with
 *   `retryAt` it stays `pending`, due at `retryAt`; on a failure without, it is `failed`
 *   (`nextAttemptAt` null) and its subscription is disabled with `outcome.disableReason`. It
 *   answers whether it recorded anything: false, changing nothing, when the claim was lost.
 * - `redeliver(subscriptionId, id, now)` makes a delivery pending again from the start (status
 *   `pending`, `attempts` 0, due at `now`, no claim, its event kept; it goes after the other
 *   pending deliveries of its post to the subscription, last in their order, so it is claimed
 *   only once it is their oldest; the last attempt's `lastAttemptAt`, `responseStatus`, `error`
 *   and `latencyMs` stay until the next) and answers it. A delivery an unexpired claim holds at
 *   `now` is being delivered: it changes nothing and answers it as it is (so a delivery is never
 *   sent twice at once, nor beside another of its post to that subscription). A missing one, or another subscription's,
 *   throws `NotFoundError('delivery')`.
 * - `purge(before, limit)` deletes up to `limit` settled (succeeded or failed) deliveries created
 *   before `before`, and events no delivery refers to any more; it answers how many deliveries
 *   it deleted. Pending deliveries are never purged.
 */
export interface WebhookRepository {
  create(subscription: WebhookSubscription, max?: number): Promise<WebhookSubscription>;
  get(id: string): Promise<WebhookSubscription | null>;
  list(): Promise<WebhookSubscription[]>;
  count(): Promise<number>;
  update(id: string, changes: WebhookChanges, at: Date): Promise<WebhookSubscription>;
  rotateSecret(id: string, secret: string, previousExpiresAt: Date, at: Date): Promise<WebhookSubscription>;
  delete(id: string): Promise<void>;
  deliveries(subscriptionId: string, query: DeliveryQuery): Promise<{ items: WebhookDelivery[]; nextCursor: string | null }>;
  getDelivery(subscriptionId: string, id: string): Promise<WebhookDelivery | null>;
  claim(now: Date, leaseMs: number, limit: number, perSubscription: number): Promise<ClaimedDelivery[]>;
  settle(claimed: ClaimedDelivery, outcome: AttemptOutcome): Promise<boolean>;
  redeliver(subscriptionId: string, id: string, now: Date): Promise<WebhookDelivery>;
  purge(before: Date, limit: number): Promise<number>;
}
