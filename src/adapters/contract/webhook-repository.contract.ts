import { describe, expect, it } from 'vitest';
import { encodeCursor } from '../../domain/cursor.js';
import { DuplicateIdError, InvalidCursorError, NotFoundError, WebhookLimitReachedError } from '../../domain/errors.js';
import { deliveryCursorScope, type WebhookRepository } from '../../domain/ports/webhook-repository.js';
import type { AttemptOutcome, ClaimedDelivery } from '../../domain/webhooks.js';
import { type MakeStore, minute, newPost, rejectionOf, times, ulid, useStore } from './fixtures.js';
import { drain, newSubscription, subscriptionId, success } from './webhook-fixtures.js';

/** The instants of the claim rules: `T(s)` is `s` seconds after an arbitrary instant. */
const T = (seconds: number) => new Date(Date.UTC(2026, 5, 1, 12, 0, 0, 123) + seconds * 1000);
const LEASE = 30_000;
/** The claims' `perSubscription`, unless a test says otherwise. */
const PER = 2;

function failure(at: Date, retryAt: Date | null, extra: Partial<AttemptOutcome> = {}): AttemptOutcome {
  return { at, ok: false, responseStatus: 503, error: 'HTTP 503', latencyMs: 40, retryAt, ...extra };
}

export function describeWebhookRepositoryContract(make: MakeStore): void {
  describe('WebhookRepository', () => {
    const store = useStore(make);
    const hooks = (): WebhookRepository => store().webhooks;

    /** Publishes post `n` (one event to every listening subscription) with `updatedAt = minute(m)`. */
    async function publish(n: number, m = n % 60): Promise<void> {
      await store().posts.create(newPost(n, { status: 'published', createdAt: minute(m) }));
    }

    /** Deliveries of subscription `n` as the log lists them, all statuses. */
    async function log(n = 1) {
      return (await hooks().deliveries(subscriptionId(n), { limit: 100 })).items;
    }

    /** Edits published post `n` (its `version`-th write): one `post.updated` to every listening subscription. */
    async function edit(n: number, version: number, m: number): Promise<void> {
      await store().posts.update(ulid(n), version, { title: `Edited ${version}` }, minute(m));
    }

    async function claimOne(now: Date): Promise<ClaimedDelivery> {
      const claimed = await hooks().claim(now, LEASE, 1, PER);
      expect(claimed).toHaveLength(1);
      return claimed[0]!;
    }

    describe('subscriptions', () => {
      it('create stores a subscription as given; get answers it', async () => {
        const input = newSubscription(1, { previousSecret: { secret: 'whsec_old', expiresAt: minute(40) }, events: ['post.deleted'] });
        expect(await hooks().create(input)).toStrictEqual(input);
        expect(await hooks().get(subscriptionId(1))).toStrictEqual(input);
      });

      it('create with an id another holds throws DuplicateIdError', async () => {
        await hooks().create(newSubscription(1));
        expect(await rejectionOf(hooks().create(newSubscription(1, { url: 'https://other.example/' })))).toBeInstanceOf(DuplicateIdError);
        expect((await hooks().get(subscriptionId(1)))?.url).toBe('https://hooks.example/1');
      });

      it('create with max stores it while fewer than max exist, else throws WebhookLimitReachedError and stores nothing', async () => {
        await hooks().create(newSubscription(1), 2);
        await hooks().create(newSubscription(2), 2);
        const refused = await rejectionOf(hooks().create(newSubscription(3), 2));
        expect(refused).toBeInstanceOf(WebhookLimitReachedError);
        expect((refused as WebhookLimitReachedError).limit).toBe(2);
        expect((await hooks().list()).map((s) => s.id)).toEqual([subscriptionId(1), subscriptionId(2)]);
      });

      it('of concurrent creates with max, exactly max are stored and the others throw WebhookLimitReachedError', async () => {
        await hooks().create(newSubscription(1));
        const outcomes = await Promise.allSettled(Array.from({ length: 8 }, (_, i) => hooks().create(newSubscription(i + 2), 4)));
        const stored = outcomes.filter((o) => o.status === 'fulfilled');
        const refused = outcomes.flatMap((o) => (o.status === 'rejected' ? [o.reason as unknown] : []));
        expect(stored).toHaveLength(3);
        expect(refused).toHaveLength(5);
        for (const reason of refused) expect(reason).toBeInstanceOf(WebhookLimitReachedError);
        expect(await hooks().count()).toBe(4);
      });

      it('get answers null for a missing subscription', async () => {
        expect(await hooks().get(subscriptionId(1))).toBeNull();
      });

      it('list answers every subscription oldest first (createdAt, ties by id); count how many', async () => {
        await hooks().create(newSubscription(3, { createdAt: minute(5) }));
        await hooks().create(newSubscription(1, { createdAt: minute(9) }));
        await hooks().create(newSubscription(2, { createdAt: minute(5) }));
        expect((await hooks().list()).map((s) => s.id)).toEqual([subscriptionId(2), subscriptionId(3), subscriptionId(1)]);
        expect(await hooks().count()).toBe(3);
      });

      it('list is [] and count 0 without subscriptions', async () => {
        expect(await hooks().list()).toEqual([]);
        expect(await hooks().count()).toBe(0);
      });

      it('update applies the changes, keeps absent fields, sets updatedAt and answers the subscription as stored', async () => {
        await hooks().create(newSubscription(1));
        const previousSecret = { secret: newSubscription(1).secret, expiresAt: minute(50) };
        const updated = await hooks().update(
          subscriptionId(1),
          { events: ['post.updated'], enabled: false, disabledReason: 'HTTP 410', secret: 'whsec_new', previousSecret },
          minute(45),
        );
        const expected = {
          ...newSubscription(1),
          events: ['post.updated'],
          enabled: false,
          disabledReason: 'HTTP 410',
          secret: 'whsec_new',
          previousSecret,
          updatedAt: minute(45),
        };
        expect(updated).toStrictEqual(expected);
        expect(await hooks().get(subscriptionId(1))).toStrictEqual(expected);
        const cleared = await hooks().update(
          subscriptionId(1),
          { enabled: true, disabledReason: null, previousSecret: null, url: 'https://x.example/', description: '' },
          minute(46),
        );
        expect(cleared).toStrictEqual({
          ...expected,
          enabled: true,
          disabledReason: null,
          previousSecret: null,
          url: 'https://x.example/',
          description: '',
          updatedAt: minute(46),
        });
      });

      it('update of a missing subscription throws NotFoundError(webhook)', async () => {
        const error = await rejectionOf(hooks().update(subscriptionId(1), { enabled: false }, minute(1)));
        expect(error).toBeInstanceOf(NotFoundError);
        expect((error as NotFoundError).entity).toBe('webhook');
      });

      it('rotateSecret makes the new secret current and the one it replaces previous, sets updatedAt and answers it as stored', async () => {
        await hooks().create(newSubscription(1, { previousSecret: { secret: 'whsec_older', expiresAt: minute(20) } }));
        const rotated = await hooks().rotateSecret(subscriptionId(1), 'whsec_new', minute(50), minute(45));
        const expected = {
          ...newSubscription(1),
          secret: 'whsec_new',
          previousSecret: { secret: newSubscription(1).secret, expiresAt: minute(50) },
          updatedAt: minute(45),
        };
        expect(rotated).toStrictEqual(expected);
        expect(await hooks().get(subscriptionId(1))).toStrictEqual(expected);
      });

      it('of concurrent rotations, each keeps as previous the secret it replaced, never the same one twice', async () => {
        await hooks().create(newSubscription(1));
        const original = newSubscription(1).secret;
        const answers = await Promise.all(
          ['whsec_A', 'whsec_B'].map((secret) => hooks().rotateSecret(subscriptionId(1), secret, minute(50), minute(45))),
        );
        const [first, second] = answers[0]!.previousSecret!.secret === original ? answers : [answers[1]!, answers[0]!];
        expect(first!.previousSecret!.secret).toBe(original);
        expect(second!.previousSecret!.secret).toBe(first!.secret);
        const stored = await hooks().get(subscriptionId(1));
        expect([stored!.secret, stored!.previousSecret!.secret]).toEqual([second!.secret, first!.secret]);
      });

      it('rotateSecret of a missing subscription throws NotFoundError(webhook)', async () => {
        const error = await rejectionOf(hooks().rotateSecret(subscriptionId(1), 'whsec_new', minute(50), minute(45)));
        expect(error).toBeInstanceOf(NotFoundError);
        expect((error as NotFoundError).entity).toBe('webhook');
      });

      it('delete removes the subscription with every delivery of it; others keep theirs', async () => {
        await hooks().create(newSubscription(1));
        await hooks().create(newSubscription(2));
        await publish(1);
        const [delivery] = await log(1);
        await hooks().delete(subscriptionId(1));
        expect(await hooks().get(subscriptionId(1))).toBeNull();
        expect(await hooks().getDelivery(subscriptionId(1), delivery!.id)).toBeNull();
        expect(await log(1)).toEqual([]);
        expect(await log(2)).toHaveLength(1);
        expect((await drain(store())).map((c) => c.subscription.id)).toEqual([subscriptionId(2)]);
      });

      it('delete of a missing subscription throws NotFoundError(webhook)', async () => {
        const error = await rejectionOf(hooks().delete(subscriptionId(1)));
        expect(error).toBeInstanceOf(NotFoundError);
        expect((error as NotFoundError).entity).toBe('webhook');
      });
    });

    describe('delivery log', () => {
      it('deliveries answers newest first (createdAt, ties by id, both descending), page by page', async () => {
        await hooks().create(newSubscription(1));
        // Posts 1 and 3 published at the same minute: their deliveries tie on createdAt.
        for (const [n, m] of [
          [1, 10],
          [2, 30],
          [3, 10],
          [4, 20],
          [5, 5],
        ] as const) {
          await publish(n, m);
        }
        const all = await log();
        expect(all.map((d) => d.createdAt)).toEqual([minute(30), minute(20), minute(10), minute(10), minute(5)]);
        expect([all[0]!.postId, all[1]!.postId, all[4]!.postId]).toEqual([ulid(2), ulid(4), ulid(5)]);
        expect(
          all
            .slice(2, 4)
            .map((d) => d.postId)
            .sort(),
        ).toEqual([ulid(1), ulid(3)]);
        const tied = all.slice(2, 4).map((d) => d.id);
        expect(tied).toEqual([...tied].sort().reverse());
        const ids: string[] = [];
        let cursor: string | null = null;
        let pages = 0;
        do {
          const page: { items: { id: string }[]; nextCursor: string | null } = await hooks().deliveries(subscriptionId(1), {
            limit: 2,
            cursor,
          });
          ids.push(...page.items.map((d) => d.id));
          cursor = page.nextCursor;
          pages += 1;
        } while (cursor !== null && pages < 10);
        expect(pages).toBe(3);
        expect(ids).toEqual(all.map((d) => d.id));
      });

      it('deliveries with a status answers only those; none is { items: [], nextCursor: null }', async () => {
        await hooks().create(newSubscription(1));
        await publish(1, 10);
        await publish(2, 20);
        const first = await claimOne(T(0));
        await hooks().settle(first, success(T(1)));
        expect((await hooks().deliveries(subscriptionId(1), { status: 'succeeded', limit: 10 })).items.map((d) => d.postId)).toEqual([
          ulid(1),
        ]);
        expect((await hooks().deliveries(subscriptionId(1), { status: 'pending', limit: 10 })).items.map((d) => d.postId)).toEqual([
          ulid(2),
        ]);
        expect(await hooks().deliveries(subscriptionId(1), { status: 'failed', limit: 10 })).toEqual({ items: [], nextCursor: null });
        expect(await hooks().deliveries(subscriptionId(2), { limit: 10 })).toEqual({ items: [], nextCursor: null });
      });

      it('a cursor of another subscription or status, or no cursor at all, throws InvalidCursorError', async () => {
        await hooks().create(newSubscription(1));
        await publish(1, 10);
        await publish(2, 20);
        const { nextCursor } = await hooks().deliveries(subscriptionId(1), { limit: 1 });
        expect(nextCursor).not.toBeNull();
        const other = encodeCursor(deliveryCursorScope(subscriptionId(2), undefined), [minute(1).toISOString(), 'x']);
        for (const query of [
          { limit: 1, cursor: nextCursor, status: 'pending' as const },
          { limit: 1, cursor: other },
          { limit: 1, cursor: 'not-a-cursor' },
        ]) {
          expect(await rejectionOf(hooks().deliveries(subscriptionId(1), query))).toBeInstanceOf(InvalidCursorError);
        }
      });

      it("getDelivery answers a delivery, or null when it is missing or another subscription's", async () => {
        await hooks().create(newSubscription(1));
        await hooks().create(newSubscription(2));
        await publish(1);
        const [delivery] = await log(1);
        expect(await hooks().getDelivery(subscriptionId(1), delivery!.id)).toStrictEqual(delivery);
        expect(await hooks().getDelivery(subscriptionId(2), delivery!.id)).toBeNull();
        expect(await hooks().getDelivery(subscriptionId(1), 'dlv_00000000000000000000000000000000')).toBeNull();
      });
    });

    describe('claims', () => {
      it('claim takes a due delivery: attempts + 1, lastAttemptAt = now, held until now + leaseMs, with its event and subscription', async () => {
        await hooks().create(newSubscription(1));
        await publish(1);
        const [before] = await log();
        const claimed = await claimOne(T(0));
        expect(claimed.delivery).toStrictEqual({ ...before, attempts: 1, lastAttemptAt: T(0) });
        expect(claimed.leaseUntil).toStrictEqual(new Date(T(0).getTime() + LEASE));
        expect(claimed.subscription).toStrictEqual(newSubscription(1));
        expect(claimed.event).toStrictEqual({
          id: before!.eventId,
          type: 'post.published',
          postId: ulid(1),
          occurredAt: before!.createdAt,
          post: await store().posts.get(ulid(1)),
        });
        expect(await hooks().getDelivery(subscriptionId(1), before!.id)).toStrictEqual(claimed.delivery);
      });

      it('a never-attempted delivery is due at once, whatever now the claim is given', async () => {
        await hooks().create(newSubscription(1));
        await publish(1, 30);
        expect(await hooks().claim(new Date(0), LEASE, 10, PER)).toHaveLength(1);
      });

      it('a claimed delivery is not claimed again while the claim holds', async () => {
        await hooks().create(newSubscription(1));
        await publish(1);
        await claimOne(T(0));
        expect(await hooks().claim(T(29.999), LEASE, 10, PER)).toEqual([]);
      });

      it("a post's later delivery is not claimable while its earlier one to the subscription is pending: held, or waiting for a retry", async () => {
        await hooks().create(newSubscription(1));
        await publish(1, 10);
        await edit(1, 1, 20);
        const first = await claimOne(T(0));
        expect(first.event.type).toBe('post.published');
        expect(await hooks().claim(T(1), LEASE, 10, PER)).toEqual([]);
        expect(await hooks().settle(first, failure(T(1), T(60)))).toBe(true);
        expect(await hooks().claim(T(59), LEASE, 10, PER)).toEqual([]);
        const again = await claimOne(T(60));
        expect([again.event.type, again.delivery.attempts]).toEqual(['post.published', 2]);
        await hooks().settle(again, success(T(61)));
        expect((await claimOne(T(61))).event.type).toBe('post.updated');
      });

      it("another post's delivery is claimable while an earlier one of the subscription is pending: held, or waiting for a retry", async () => {
        await hooks().create(newSubscription(1));
        await publish(1, 10);
        await publish(2, 20);
        await publish(3, 30);
        const first = await claimOne(T(0));
        expect(first.event.postId).toBe(ulid(1));
        expect((await claimOne(T(1))).event.postId).toBe(ulid(2));
        expect(await hooks().settle(first, failure(T(2), T(60)))).toBe(true);
        expect((await claimOne(T(2))).event.postId).toBe(ulid(3));
      });

      it('at most perSubscription deliveries of a subscription are held at once; one settled, or whose claim lapsed, frees its place', async () => {
        await hooks().create(newSubscription(1));
        for (const n of [1, 2, 3, 4]) await publish(n, 10 + n);
        const held = await hooks().claim(T(0), LEASE, 10, 2);
        expect(held.map((c) => c.event.postId)).toEqual([ulid(1), ulid(2)]);
        expect(await hooks().claim(T(1), LEASE, 10, 2)).toEqual([]);
        await hooks().settle(held[0]!, success(T(2)));
        expect((await hooks().claim(T(2), LEASE, 10, 2)).map((c) => c.event.postId)).toEqual([ulid(3)]);
        expect(await hooks().claim(T(3), LEASE, 10, 3)).toHaveLength(1);
        // At T(32) the claim of post 4 (until T(33)) still holds: one place, for post 2 again. At T(33)
        // that one lapsed too: one place beside post 2's new claim, for the oldest, post 3.
        expect((await hooks().claim(T(32), LEASE, 10, 2)).map((c) => c.event.postId)).toEqual([ulid(2)]);
        expect((await hooks().claim(T(33), LEASE, 10, 2)).map((c) => c.event.postId)).toEqual([ulid(3)]);
      });

      it('a failed attempt with retryAt leaves the delivery pending, due at retryAt, with the attempt recorded', async () => {
        await hooks().create(newSubscription(1));
        await publish(1);
        const claimed = await claimOne(T(0));
        expect(
          await hooks().settle(claimed, failure(T(1), T(5), { responseStatus: null, error: 'timed out after 10 s', latencyMs: 10_000 })),
        ).toBe(true);
        expect(await hooks().getDelivery(subscriptionId(1), claimed.delivery.id)).toStrictEqual({
          ...claimed.delivery,
          status: 'pending',
          nextAttemptAt: T(5),
          responseStatus: null,
          error: 'timed out after 10 s',
          latencyMs: 10_000,
        });
        expect(await hooks().claim(T(4.999), LEASE, 10, PER)).toEqual([]);
        expect(await hooks().claim(T(5), LEASE, 10, PER)).toHaveLength(1);
      });

      it('a success settles the delivery: succeeded, nextAttemptAt null, the response recorded; never claimed again', async () => {
        await hooks().create(newSubscription(1));
        await publish(1);
        const claimed = await claimOne(T(0));
        expect(await hooks().settle(claimed, success(T(1)))).toBe(true);
        expect(await hooks().getDelivery(subscriptionId(1), claimed.delivery.id)).toStrictEqual({
          ...claimed.delivery,
          status: 'succeeded',
          nextAttemptAt: null,
          responseStatus: 204,
          error: null,
          latencyMs: 12,
        });
        expect(await hooks().claim(T(3600), LEASE, 10, PER)).toEqual([]);
      });

      it('giving up fails the delivery and disables its subscription with the reason', async () => {
        await hooks().create(newSubscription(1));
        await hooks().create(newSubscription(2));
        await publish(1, 10);
        await publish(2, 20);
        const [claimed] = (await hooks().claim(T(0), LEASE, 10, PER)).filter((c) => c.subscription.id === subscriptionId(1));
        const reason = 'Deliveries failed for 27 hours (last: HTTP 503).';
        expect(await hooks().settle(claimed!, failure(T(1), null, { disableReason: reason }))).toBe(true);
        expect(await hooks().getDelivery(subscriptionId(1), claimed!.delivery.id)).toMatchObject({ status: 'failed', nextAttemptAt: null });
        expect(await hooks().get(subscriptionId(1))).toStrictEqual({
          ...newSubscription(1),
          enabled: false,
          disabledReason: reason,
          updatedAt: T(1),
        });
        expect((await hooks().get(subscriptionId(2)))?.enabled).toBe(true);
      });

      it("a disabled subscription's deliveries are not claimed; enabled again, they are, in order", async () => {
        await hooks().create(newSubscription(1));
        await publish(1, 10);
        await publish(2, 20);
        await hooks().update(subscriptionId(1), { enabled: false }, minute(30));
        expect(await hooks().claim(T(0), LEASE, 10, PER)).toEqual([]);
        await hooks().update(subscriptionId(1), { enabled: true }, minute(31));
        expect((await claimOne(T(0))).event.postId).toBe(ulid(1));
      });

      it("claim takes up to limit deliveries, each subscription's oldest first, then its second oldest (ties in the order they were enqueued)", async () => {
        for (const n of [1, 2, 3]) await hooks().create(newSubscription(n, { events: ['post.published', 'post.updated'] }));
        await publish(1);
        await publish(2);
        await edit(1, 1, 40);
        const claimed = await hooks().claim(T(0), LEASE, 4, PER);
        expect(claimed.map((c) => [c.subscription.id, c.event.postId, c.event.type])).toEqual([
          [subscriptionId(1), ulid(1), 'post.published'],
          [subscriptionId(2), ulid(1), 'post.published'],
          [subscriptionId(3), ulid(1), 'post.published'],
          [subscriptionId(1), ulid(2), 'post.published'],
        ]);
        const rest = await hooks().claim(T(0), LEASE, 10, PER);
        expect(rest.map((c) => [c.subscription.id, c.event.postId, c.event.type])).toEqual([
          [subscriptionId(2), ulid(2), 'post.published'],
          [subscriptionId(3), ulid(2), 'post.published'],
        ]);
      });

      it('when a claim lapses another claim takes the delivery, and the first claim is lost: its settle answers false', async () => {
        await hooks().create(newSubscription(1));
        await publish(1);
        const first = await claimOne(T(0));
        const second = await claimOne(T(30));
        expect(second.delivery.attempts).toBe(2);
        expect(await hooks().settle(first, success(T(31)))).toBe(false);
        expect((await hooks().getDelivery(subscriptionId(1), first.delivery.id))?.status).toBe('pending');
        expect(await hooks().settle(second, success(T(31)))).toBe(true);
      });

      it('settle with a lost claim answers false and changes nothing: settled already, or redelivered since', async () => {
        await hooks().create(newSubscription(1));
        await publish(1);
        const claimed = await claimOne(T(0));
        expect(await hooks().settle(claimed, success(T(1)))).toBe(true);
        const settled = await hooks().getDelivery(subscriptionId(1), claimed.delivery.id);
        expect(await hooks().settle(claimed, failure(T(2), null, { disableReason: 'x' }))).toBe(false);
        expect(await hooks().getDelivery(subscriptionId(1), claimed.delivery.id)).toStrictEqual(settled);
        expect((await hooks().get(subscriptionId(1)))?.enabled).toBe(true);

        await hooks().redeliver(subscriptionId(1), claimed.delivery.id, T(3));
        const again = await claimOne(T(3));
        // Its claim lapsed (at T(33)): redelivered, the late settle is lost.
        const redelivered = await hooks().redeliver(subscriptionId(1), claimed.delivery.id, T(34));
        expect(await hooks().settle(again, failure(T(35), null, { disableReason: 'x' }))).toBe(false);
        expect(await hooks().getDelivery(subscriptionId(1), claimed.delivery.id)).toStrictEqual(redelivered);
        expect((await hooks().get(subscriptionId(1)))?.enabled).toBe(true);
      });

      it('of concurrent claims, each delivery is taken by one, and together they hold at most perSubscription of a subscription (5 claims at once)', async () => {
        for (const n of [1, 2, 3, 4, 5, 6, 7]) await hooks().create(newSubscription(n));
        for (const n of [1, 2, 3]) await publish(n);
        const batches = await Promise.all(times(5, () => hooks().claim(T(0), LEASE, 3, PER)));
        const claimed = [...batches.flat(), ...(await hooks().claim(T(0), LEASE, 100, PER))];
        const ids = claimed.map((c) => c.delivery.id);
        expect(new Set(ids).size).toBe(ids.length);
        const perSubscription = new Map<string, number>();
        for (const c of claimed) perSubscription.set(c.subscription.id, (perSubscription.get(c.subscription.id) ?? 0) + 1);
        expect([...perSubscription.values()]).toEqual(times(7, () => PER));
      });
    });

    describe('redeliver and purge', () => {
      it('redeliver makes a delivery pending from the start, after the other pending deliveries of its post to the subscription, its last attempt kept', async () => {
        await hooks().create(newSubscription(1));
        await publish(1, 10);
        const claimed = await claimOne(T(0));
        await hooks().settle(claimed, failure(T(1), null, { disableReason: 'gave up' }));
        await hooks().update(subscriptionId(1), { enabled: true, disabledReason: null }, minute(50));
        await edit(1, 1, 20);
        const redelivered = await hooks().redeliver(subscriptionId(1), claimed.delivery.id, T(10));
        expect(redelivered).toStrictEqual({
          ...claimed.delivery,
          status: 'pending',
          attempts: 0,
          nextAttemptAt: T(10),
          responseStatus: 503,
          error: 'HTTP 503',
          latencyMs: 40,
        });
        const before = await claimOne(T(10));
        expect(before.event.type).toBe('post.updated');
        expect(await hooks().claim(T(10), LEASE, 10, PER)).toEqual([]);
        await hooks().settle(before, success(T(11)));
        const next = await claimOne(T(11));
        expect([next.delivery.id, next.event.id, next.delivery.attempts]).toEqual([claimed.delivery.id, claimed.event.id, 1]);
        expect(await hooks().claim(T(11), LEASE, 10, PER)).toEqual([]);
      });

      it('redelivering while another delivery of its post to the subscription is held does not make two of them claimable', async () => {
        await hooks().create(newSubscription(1));
        await publish(1, 10);
        await edit(1, 1, 20);
        const first = await claimOne(T(0));
        await hooks().settle(first, success(T(1)));
        const second = await claimOne(T(2));
        expect(second.event.type).toBe('post.updated');
        await hooks().redeliver(subscriptionId(1), first.delivery.id, T(3));
        expect(await hooks().claim(T(3), LEASE, 10, PER)).toEqual([]);
        await hooks().settle(second, success(T(4)));
        expect((await claimOne(T(4))).delivery.id).toBe(first.delivery.id);
      });

      it('redeliver of a delivery an unexpired claim holds changes nothing and answers it as it is', async () => {
        await hooks().create(newSubscription(1));
        await publish(1, 10);
        await edit(1, 1, 20);
        const held = await claimOne(T(0));
        expect(await hooks().redeliver(subscriptionId(1), held.delivery.id, T(29))).toStrictEqual(held.delivery);
        expect(await hooks().getDelivery(subscriptionId(1), held.delivery.id)).toStrictEqual(held.delivery);
        expect(await hooks().claim(T(29), LEASE, 10, PER)).toEqual([]);
        expect(await hooks().settle(held, success(T(29)))).toBe(true);
        expect((await claimOne(T(29))).event.type).toBe('post.updated');
      });

      it("redeliver of a missing delivery, or another subscription's, throws NotFoundError(delivery)", async () => {
        await hooks().create(newSubscription(1));
        await hooks().create(newSubscription(2));
        await publish(1);
        const [delivery] = await log(1);
        for (const [sub, id] of [
          [subscriptionId(2), delivery!.id],
          [subscriptionId(1), 'dlv_00000000000000000000000000000000'],
        ] as const) {
          const error = await rejectionOf(hooks().redeliver(sub, id, T(0)));
          expect(error).toBeInstanceOf(NotFoundError);
          expect((error as NotFoundError).entity).toBe('delivery');
        }
      });

      it('purge deletes up to limit settled deliveries created before `before`, never a pending one, and answers how many', async () => {
        await hooks().create(newSubscription(1));
        await hooks().create(newSubscription(2));
        await publish(1, 10);
        await publish(2, 20);
        await publish(3, 30);
        // Subscription 1: posts 1 and 2 succeed, 3 stays pending. Subscription 2: post 1 fails.
        await hooks().update(subscriptionId(2), { enabled: false }, minute(50));
        for (let i = 0; i < 2; i += 1) await hooks().settle(await claimOne(T(i)), success(T(i)));
        await hooks().update(subscriptionId(1), { enabled: false }, minute(50));
        await hooks().update(subscriptionId(2), { enabled: true }, minute(50));
        await hooks().settle(await claimOne(T(5)), failure(T(5), null, { disableReason: 'x' }));
        expect(await hooks().purge(minute(40), 1)).toBe(1);
        expect(await hooks().purge(minute(10), 10)).toBe(0);
        expect(await hooks().purge(minute(40), 10)).toBe(2);
        expect((await log(1)).map((d) => [d.postId, d.status])).toEqual([[ulid(3), 'pending']]);
        expect((await log(2)).map((d) => [d.postId, d.status])).toEqual([
          [ulid(3), 'pending'],
          [ulid(2), 'pending'],
        ]);
        expect(await hooks().purge(minute(59), 10)).toBe(0);
      });
    });
  });
}
