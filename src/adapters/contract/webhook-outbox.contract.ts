import { describe, expect, it } from 'vitest';
import { SlugTakenError, VersionConflictError } from '../../domain/errors.js';
import type { Post } from '../../domain/post.js';
import type { WebhookEventType } from '../../domain/webhooks.js';
import { ADA, type MakeStore, minute, newPost, rejectionOf, ulid, useStore } from './fixtures.js';
import { drain, eventsOf, newSubscription, subscriptionId } from './webhook-fixtures.js';

const ID = /^msg_[0-9a-f]{32}$/;
const DELIVERY_ID = /^dlv_[0-9a-f]{32}$/;

/** A recorded write's history: event `n`, at `minute(m)`. */
function record(n: number, m: number) {
  return { actor: ADA, eventId: ulid(8000 + n), occurredAt: minute(m) };
}

/** The type and post of each event, for comparing sequences. */
function summary(events: { type: WebhookEventType; post: Post }[]): [WebhookEventType, string, number][] {
  return events.map((e) => [e.type, e.post.id, e.post.version]);
}

/** The `PostRepository` rule "Webhook outbox": what the post writes leave for the webhooks. */
export function describeWebhookOutboxContract(make: MakeStore): void {
  describe('PostRepository: webhook outbox', () => {
    const store = useStore(make);
    const listen = (n = 1, overrides = {}) => store().webhooks.create(newSubscription(n, overrides));
    const pending = async (n = 1) => (await store().webhooks.deliveries(subscriptionId(n), { limit: 100 })).items;

    it('a draft created or edited writes nothing', async () => {
      await listen();
      await store().posts.create(newPost(1));
      await store().posts.update(ulid(1), 1, { title: 'Edited' }, minute(10));
      await store().posts.createRecorded(newPost(2), record(1, 11));
      expect(await pending()).toEqual([]);
    });

    it('publishing writes post.published with the post as stored, at its updatedAt, and one pending delivery due at once', async () => {
      await listen();
      const post = await store().posts.create(
        newPost(1, {
          status: 'published',
          tags: ['b', 'a'],
          coverImage: { mediaId: 'abcdefghijklmnopqrstuvwxyz', alt: 'A "quoted" <alt>' },
          seo: { title: 'SEO', description: null, canonicalUrl: 'https://example.com/x?a=1&b=2' },
          excerpt: 'Été',
          body: '# Hi\n\nthere',
        }),
      );
      const [delivery] = await pending();
      expect(delivery).toStrictEqual({
        id: expect.stringMatching(DELIVERY_ID) as string,
        subscriptionId: subscriptionId(1),
        eventId: expect.stringMatching(ID) as string,
        eventType: 'post.published',
        postId: post.id,
        status: 'pending',
        attempts: 0,
        nextAttemptAt: post.updatedAt,
        lastAttemptAt: null,
        responseStatus: null,
        error: null,
        latencyMs: null,
        createdAt: post.updatedAt,
      });
      const [event] = await eventsOf(store(), subscriptionId(1));
      expect(event).toStrictEqual({ id: delivery!.eventId, type: 'post.published', postId: post.id, occurredAt: post.updatedAt, post });
    });

    it('a draft published by update writes post.published with the post after the change', async () => {
      await listen();
      await store().posts.create(newPost(1));
      const published = await store().posts.update(ulid(1), 1, { status: 'published', publishedAt: minute(20) }, minute(21));
      const events = await eventsOf(store(), subscriptionId(1));
      expect(events.map((e) => [e.type, e.occurredAt, e.post])).toStrictEqual([['post.published', minute(21), published]]);
    });

    it('an edit of a published post writes post.updated', async () => {
      await listen();
      await store().posts.create(newPost(1, { status: 'published' }));
      const edited = await store().posts.update(ulid(1), 1, { title: 'Edited' }, minute(30));
      const events = await eventsOf(store(), subscriptionId(1));
      expect(events.map((e) => e.type)).toEqual(['post.published', 'post.updated']);
      expect(events[1]!.post).toStrictEqual(edited);
    });

    it('unpublishing or archiving a published post writes post.unpublished; republishing post.published', async () => {
      await listen();
      await store().posts.create(newPost(1, { status: 'published' }));
      await store().posts.create(newPost(2, { status: 'published' }));
      await store().posts.update(ulid(1), 1, { status: 'draft' }, minute(30));
      await store().posts.update(ulid(2), 1, { status: 'archived' }, minute(31));
      await store().posts.update(ulid(2), 2, { status: 'published' }, minute(32));
      await store().posts.update(ulid(1), 2, { title: 'A draft again' }, minute(33));
      expect(summary(await eventsOf(store(), subscriptionId(1)))).toEqual([
        ['post.published', ulid(1), 1],
        ['post.published', ulid(2), 1],
        ['post.unpublished', ulid(1), 2],
        ['post.unpublished', ulid(2), 2],
        ['post.published', ulid(2), 3],
      ]);
    });

    it('a deletion writes post.deleted with the post as it was, at the moment of the deletion', async () => {
      await listen();
      const draft = await store().posts.create(newPost(1));
      const published = await store().posts.create(newPost(2, { status: 'published' }));
      const before = Date.now();
      await store().posts.delete(ulid(1), 1);
      await store().posts.deleteRecorded(ulid(2), 1, record(1, 40));
      const after = Date.now();
      const events = await eventsOf(store(), subscriptionId(1));
      expect(events.map((e) => [e.type, e.post])).toStrictEqual([
        ['post.published', published],
        ['post.deleted', draft],
        ['post.deleted', published],
      ]);
      // Clocks of the test and of a database server on another host may differ a little.
      for (const e of events.slice(1)) {
        expect(e.occurredAt.getTime()).toBeGreaterThanOrEqual(before - 5_000);
        expect(e.occurredAt.getTime()).toBeLessThanOrEqual(after + 5_000);
      }
    });

    it('the recorded writes write the outbox as the plain ones do', async () => {
      await listen();
      const created = await store().posts.createRecorded(newPost(1, { status: 'published' }), record(1, 10));
      const updated = await store().posts.updateRecorded(created, { title: 'New' }, { ...record(2, 11), type: 'updated' });
      const unpublished = await store().posts.updateRecorded(updated, { status: 'draft' }, { ...record(3, 12), type: 'unpublished' });
      await store().posts.deleteRecorded(ulid(1), 3, record(4, 13));
      const events = await eventsOf(store(), subscriptionId(1));
      expect(events.map((e) => [e.type, e.post])).toStrictEqual([
        ['post.published', created],
        ['post.updated', updated],
        ['post.unpublished', unpublished],
        ['post.deleted', unpublished],
      ]);
    });

    it('publishDue writes post.published for each post it publishes, at now', async () => {
      await listen();
      await store().posts.create(newPost(1, { publishAt: minute(20) }));
      await store().posts.create(newPost(2, { publishAt: minute(10) }));
      await store().posts.create(newPost(3, { publishAt: minute(50) }));
      const published = await store().posts.publishDue(minute(30), 10);
      // One write of several posts: the order of their events among themselves is not the rule's.
      const events = (await eventsOf(store(), subscriptionId(1))).sort((a, b) => (a.postId < b.postId ? -1 : 1));
      expect(published.map((p) => p.id)).toEqual([ulid(2), ulid(1)]);
      expect(events.map((e) => [e.type, e.occurredAt, e.post])).toStrictEqual(
        [published[1], published[0]].map((p) => ['post.published', minute(30), p]),
      );
    });

    it('nothing is written when no subscription listens: none, a disabled one, one not listing the type', async () => {
      await store().posts.create(newPost(1, { status: 'published' }));
      await listen(1, { enabled: false, disabledReason: 'HTTP 410' });
      await listen(2, { events: ['post.deleted'] });
      await store().posts.update(ulid(1), 1, { title: 'Edited' }, minute(30));
      expect(await pending(1)).toEqual([]);
      expect(await pending(2)).toEqual([]);
      expect(await drain(store())).toEqual([]);
    });

    it('one delivery of one event per enabled subscription listening to its type', async () => {
      await listen(3);
      await listen(1, { events: ['post.published'] });
      await listen(2, { events: ['post.updated'] });
      await listen(4, { enabled: false });
      await store().posts.create(newPost(1, { status: 'published' }));
      const [one] = await pending(1);
      const [three] = await pending(3);
      expect(await pending(2)).toEqual([]);
      expect(await pending(4)).toEqual([]);
      expect(one!.eventId).toBe(three!.eventId);
      expect(one!.id).not.toBe(three!.id);
      const claimed = await drain(store());
      expect(claimed.map((c) => c.subscription.id).sort()).toEqual([subscriptionId(1), subscriptionId(3)]);
    });

    it('the subscriptions are those at the moment of the write: one created later gets no earlier event', async () => {
      await listen(1);
      await store().posts.create(newPost(1, { status: 'published' }));
      await listen(2);
      await store().posts.update(ulid(1), 1, { title: 'Edited' }, minute(30));
      expect((await pending(1)).map((d) => d.eventType).sort()).toEqual(['post.published', 'post.updated']);
      expect((await pending(2)).map((d) => d.eventType)).toEqual(['post.updated']);
    });

    it('a write that fails leaves no event and no delivery: a taken slug, a version conflict', async () => {
      await listen();
      await store().posts.create(newPost(1, { status: 'published' }));
      await drain(store());
      expect(await rejectionOf(store().posts.create(newPost(2, { status: 'published', slug: 'post-1' })))).toBeInstanceOf(SlugTakenError);
      expect(await rejectionOf(store().posts.update(ulid(1), 7, { title: 'x' }, minute(30)))).toBeInstanceOf(VersionConflictError);
      expect(await rejectionOf(store().posts.delete(ulid(1), 7))).toBeInstanceOf(VersionConflictError);
      expect(
        await rejectionOf(store().posts.createRecorded(newPost(3, { status: 'published', slug: 'post-1' }), record(1, 1))),
      ).toBeInstanceOf(SlugTakenError);
      expect(await drain(store())).toEqual([]);
    });

    it('a unit of work that throws leaves no event and no delivery of its writes', async () => {
      await listen();
      const failure = new Error('boom');
      const thrown = await rejectionOf(
        store().unitOfWork.run(async (repos) => {
          await repos.posts.create(newPost(1, { status: 'published' }));
          await repos.posts.update(ulid(1), 1, { title: 'Edited' }, minute(30));
          throw failure;
        }),
      );
      expect(thrown).toBe(failure);
      expect(await pending()).toEqual([]);
      expect(await drain(store())).toEqual([]);
    });

    it('a unit of work that commits leaves the events of its writes, in their order', async () => {
      await listen();
      await store().unitOfWork.run(async (repos) => {
        await repos.posts.create(newPost(1, { status: 'published' }));
        await repos.posts.update(ulid(1), 1, { title: 'Edited' }, minute(30));
      });
      expect(summary(await eventsOf(store(), subscriptionId(1)))).toEqual([
        ['post.published', ulid(1), 1],
        ['post.updated', ulid(1), 2],
      ]);
    });

    it("deliveries of one subscription are ordered as the writes that made them, whatever the posts' times", async () => {
      await listen();
      await store().posts.create(newPost(2, { status: 'published', createdAt: minute(50) }));
      await store().posts.create(newPost(1, { status: 'published', createdAt: minute(5) }));
      await store().posts.update(ulid(2), 1, { title: 'B' }, minute(1));
      await store().posts.delete(ulid(1), 1);
      await store().posts.update(ulid(2), 2, { status: 'archived' }, minute(2));
      expect(summary(await eventsOf(store(), subscriptionId(1)))).toEqual([
        ['post.published', ulid(2), 1],
        ['post.published', ulid(1), 1],
        ['post.updated', ulid(2), 2],
        ['post.deleted', ulid(1), 1],
        ['post.unpublished', ulid(2), 3],
      ]);
    });
  });
}
