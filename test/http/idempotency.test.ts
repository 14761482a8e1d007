import { describe, expect, it } from 'vitest';
import type { TransactionalRepositories } from '../../src/domain/index.js';
import { FixedClock } from '../support/http.js';
import { describeOnEveryStore, type MakeStore } from '../support/stores.js';
import { expectInvalid, expectProblem, instrumented, latch, peek, setup, type ApiPost, type Setup } from './helpers.js';

const HOUR = 3_600_000;

/** Holds the first transaction that starts after `arm()` until `release()`. */
function holdNextTransaction() {
  let armed = false;
  let entered = latch();
  let gate = latch();
  return {
    around: async () => {
      if (!armed) return;
      armed = false;
      entered.resolve();
      await gate.promise;
    },
    arm() {
      armed = true;
      entered = latch();
      gate = latch();
      return { entered: entered.promise, release: () => gate.resolve() };
    },
  };
}

/**
 * A create with `key` that claims it and is then held inside its transaction, on a server whose
 * clock the test drives: the slow, or abandoned, first request of the lease tests.
 */
async function heldFirstCreate(make: MakeStore, key: string, body: unknown) {
  const clock = new FixedClock(new Date('2026-05-01T08:00:00.000Z'));
  const hold = holdNextTransaction();
  const t = await setup(make, { clock, wrap: (store) => instrumented(store, { around: hold.around }) });
  const { entered, release } = hold.arm();
  const first = t.send('POST', '/posts', { body, headers: { 'idempotency-key': key } });
  await entered;
  return { t, clock, first, release };
}

async function expectReplayOf(t: Setup, first: Response, key: string, body: unknown) {
  const firstBody = await first.text();
  const replay = await t.send('POST', '/posts', { body, headers: { 'idempotency-key': key } });
  expect(replay.status).toBe(201);
  expect(replay.headers.get('idempotent-replayed')).toBe('true');
  expect(replay.headers.get('etag')).toBe(first.headers.get('etag'));
  expect(replay.headers.get('location')).toBe(first.headers.get('location'));
  expect(await replay.text()).toBe(firstBody);
}

describeOnEveryStore('Idempotency-Key', (make) => {
  describe('createPost with an Idempotency-Key', () => {
    it('replays the stored status, ETag, Location and body with Idempotent-Replayed: true, creating nothing more', async () => {
      const t = await setup(make);
      const body = { title: 'Once', excerpt: 'only once', tags: ['a'] };
      const first = await t.send('POST', '/posts', { body, headers: { 'idempotency-key': 'key-1' } });
      expect(first.status).toBe(201);
      expect(first.headers.get('idempotent-replayed')).toBeNull();
      await expectReplayOf(t, first.clone(), 'key-1', body);
      // The same body with its members in another order is the same request.
      await expectReplayOf(t, first, 'key-1', { tags: ['a'], excerpt: 'only once', title: 'Once' });
      expect((await t.allPosts()).total).toBe(1);
      expect(await t.activity()).toHaveLength(1);
    });

    it('answers 422 idempotency-key-reused for the same key with another body or on another operation', async () => {
      const t = await setup(make);
      const post = await t.create({ title: 'Once' }, { 'idempotency-key': 'key-1' });
      const other = await t.send('POST', '/posts', { body: { title: 'Twice' }, headers: { 'idempotency-key': 'key-1' } });
      const problem = await expectProblem(other, 422, 'idempotency-key-reused');
      expect(problem.errors).toEqual([{ pointer: '/headers/idempotency-key', message: expect.any(String) }]);
      const bulk = await t.send('POST', '/posts/bulk', {
        body: { ids: [post.id], action: 'publish' },
        headers: { 'idempotency-key': 'key-1' },
      });
      await expectProblem(bulk, 422, 'idempotency-key-reused');
      expect(await t.getPost(post.id)).toEqual(post);
      expect((await t.allPosts()).total).toBe(1);
    });

    it('answers 409 with Retry-After while the first request with the key is still running', async () => {
      const hold = holdNextTransaction();
      const t = await setup(make, { wrap: (store) => instrumented(store, { around: hold.around }) });
      const body = { title: 'Slow' };
      const { entered, release } = hold.arm();
      const first = t.send('POST', '/posts', { body, headers: { 'idempotency-key': 'slow' } });
      await entered; // claimed, and its transaction is being held
      const second = await t.send('POST', '/posts', { body, headers: { 'idempotency-key': 'slow' } });
      await expectProblem(second, 409, 'idempotency-key-in-flight');
      expect(Number(second.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      await expectProblem(
        await t.send('POST', '/posts', { body: { title: 'Other' }, headers: { 'idempotency-key': 'slow' } }),
        422,
        'idempotency-key-reused',
      );
      release();
      const done = await first;
      expect(done.status, await peek(done)).toBe(201);
      await expectReplayOf(t, done, 'slow', body);
      expect((await t.allPosts()).total).toBe(1);
    });

    it('answers 409 with Retry-After: 1 while the key is in flight, never the lease left (30 s at first)', async () => {
      const body = { title: 'Slow' };
      const { t, clock, first, release } = await heldFirstCreate(make, 'slow', body);
      for (const advance of [0, 10_500, 19_000]) {
        clock.advance(advance);
        const again = await t.send('POST', '/posts', { body, headers: { 'idempotency-key': 'slow' } });
        await expectProblem(again, 409, 'idempotency-key-in-flight');
        expect(again.headers.get('retry-after')).toBe('1');
      }
      release();
      expect((await first).status).toBe(201);
    });

    it('answers a first request that outlived its lease with the answer of the retry that took the key over', async () => {
      const body = { title: 'Outlived' };
      const { t, clock, first, release } = await heldFirstCreate(make, 'lease', body);
      clock.advance(31_000);
      const retry = await t.send('POST', '/posts', { body, headers: { 'idempotency-key': 'lease' } });
      expect(retry.status, await peek(retry)).toBe(201);
      const retryBody = await retry.text();
      release();
      const late = await first;
      expect(late.status, await peek(late)).toBe(201);
      expect(late.headers.get('idempotent-replayed')).toBe('true');
      expect(await late.text()).toBe(retryBody);
      expect((await t.allPosts()).total).toBe(1);
      expect(await t.activity()).toHaveLength(1);
    });

    it('refuses another body the key of an abandoned request (422), and the abandoned request still completes', async () => {
      const { t, clock, first, release } = await heldFirstCreate(make, 'abandoned', { title: 'Mine' });
      clock.advance(31_000);
      const other = await t.send('POST', '/posts', { body: { title: 'Not mine' }, headers: { 'idempotency-key': 'abandoned' } });
      await expectProblem(other, 422, 'idempotency-key-reused');
      release();
      const done = await first;
      expect(done.status, await peek(done)).toBe(201);
      expect(((await done.json()) as ApiPost).title).toBe('Mine');
      expect((await t.allPosts()).total).toBe(1);
    });

    it('treats a key sent as a structured-field string ("abc") as the key abc', async () => {
      const t = await setup(make);
      const body = { title: 'Quoted' };
      const first = await t.send('POST', '/posts', { body, headers: { 'idempotency-key': '"9f1c-\\"q\\""' } });
      expect(first.status).toBe(201);
      const bare = await t.send('POST', '/posts', { body, headers: { 'idempotency-key': '9f1c-"q"' } });
      expect(bare.status).toBe(201);
      expect(bare.headers.get('idempotent-replayed')).toBe('true');
      const quotedAgain = await t.send('POST', '/posts', { body, headers: { 'idempotency-key': '"9f1c-\\"q\\""' } });
      expect(quotedAgain.headers.get('idempotent-replayed')).toBe('true');
      expect((await t.allPosts()).total).toBe(1);
    });

    it('scopes keys to the user: another user with the same key and body gets a post of its own', async () => {
      const t = await setup(make);
      const now = new Date();
      await t.store.users.upsert({
        id: t.ids.next(),
        email: 'grace@example.com',
        name: 'Grace Hopper',
        passwordHash: await t.hasher.hash('another good password'),
        createdAt: now,
        updatedAt: now,
      });
      const { data: tokens } = await t.client.POST('/auth/login', {
        body: { email: 'grace@example.com', password: 'another good password' },
      });
      const grace = { authorization: `Bearer ${tokens!.accessToken}` };
      const body = { title: 'Shared key' };
      const ada = await t.create(body, { 'idempotency-key': 'shared' });
      const response = await t.send('POST', '/posts', { body, headers: { ...grace, 'idempotency-key': 'shared' } });
      expect(response.status).toBe(201);
      expect(response.headers.get('idempotent-replayed')).toBeNull();
      const graces = (await response.json()) as ApiPost;
      expect(graces.id).not.toBe(ada.id);
      expect(graces.slug).toBe('shared-key-2');
      expect((await t.activity(graces.id))[0]!.actor).toEqual({ id: expect.any(String), name: 'Grace Hopper' });
      expect((await t.allPosts()).total).toBe(2);
    });

    it('releases the key when the request fails before its commit: the same key and body succeed later', async () => {
      const t = await setup(make);
      const holder = await t.create({ title: 'Holder', slug: 'wanted' });
      const body = { title: 'Wants the slug', slug: 'wanted' };
      const headers = { 'idempotency-key': 'retry-me' };
      await expectProblem(await t.send('POST', '/posts', { body, headers }), 409, 'slug-taken');
      // Not stored: the same request fails again the same way (neither replayed nor "in flight").
      await expectProblem(await t.send('POST', '/posts', { body, headers }), 409, 'slug-taken');
      const deleted = await t.send('DELETE', `/posts/${holder.id}`, { headers: { 'if-match': '"1"' } });
      expect(deleted.status).toBe(204);
      const created = await t.send('POST', '/posts', { body, headers });
      expect(created.status, await peek(created)).toBe(201);
      expect(created.headers.get('idempotent-replayed')).toBeNull();
      await expectReplayOf(t, created, 'retry-me', body);
    });

    it('commits the post, its revision, its event and the stored answer together: a failure storing the answer leaves nothing', async () => {
      let failComplete = true;
      const failing = (repos: TransactionalRepositories): TransactionalRepositories => ({
        ...repos,
        idempotency: {
          claim: (claim) => repos.idempotency.claim(claim),
          release: (userId, key, claimedAt) => repos.idempotency.release(userId, key, claimedAt),
          read: (userId, key) => repos.idempotency.read(userId, key),
          purgeExpired: (now, limit) => repos.idempotency.purgeExpired(now, limit),
          saveProgress: (userId, key, claimedAt, progress) => repos.idempotency.saveProgress(userId, key, claimedAt, progress),
          complete: async (userId, key, claimedAt, response) => {
            if (failComplete) throw new Error('the answer could not be stored');
            return repos.idempotency.complete(userId, key, claimedAt, response);
          },
        },
      });
      const t = await setup(make, { wrap: (store) => instrumented(store, { repos: failing }) });
      const body = { title: 'All or nothing' };
      const headers = { 'idempotency-key': 'atomic' };
      await expectProblem(await t.send('POST', '/posts', { body, headers }), 500, 'internal-error');
      expect((await t.allPosts()).total).toBe(0);
      expect(await t.activity()).toEqual([]);
      failComplete = false;
      const created = await t.send('POST', '/posts', { body, headers });
      expect(created.status).toBe(201);
      const post = (await created.clone().json()) as ApiPost;
      expect(post.slug).toBe('all-or-nothing');
      expect(await t.revisions(post.id)).toHaveLength(1);
      await expectReplayOf(t, created, 'atomic', body);
    });

    it('forgets a key 24 hours after it was first used', async () => {
      const clock = new FixedClock(new Date('2026-05-01T08:00:00.000Z'));
      const t = await setup(make, { clock });
      const headers = { 'idempotency-key': 'daily' };
      await t.create({ title: 'Monday' }, headers);
      clock.advance(24 * HOUR - 1000);
      await expectProblem(await t.send('POST', '/posts', { body: { title: 'Tuesday' }, headers }), 422, 'idempotency-key-reused');
      const kept = await t.send('POST', '/posts', { body: { title: 'Monday' }, headers });
      expect(kept.headers.get('idempotent-replayed')).toBe('true');
      clock.advance(2000);
      const fresh = await t.send('POST', '/posts', { body: { title: 'Tuesday' }, headers });
      expect(fresh.status).toBe(201);
      expect(fresh.headers.get('idempotent-replayed')).toBeNull();
      expect((await t.allPosts()).total).toBe(2);
    });

    it('answers 422 for a key over 255 characters or an empty one, and accepts one of 255', async () => {
      const t = await setup(make);
      await expectInvalid(
        await t.send('POST', '/posts', { body: { title: 'Long key' }, headers: { 'idempotency-key': 'k'.repeat(256) } }),
        '/headers/idempotency-key',
      );
      await expectInvalid(
        await t.send('POST', '/posts', { body: { title: 'Empty key' }, headers: { 'idempotency-key': '' } }),
        '/headers/idempotency-key',
      );
      expect((await t.allPosts()).total).toBe(0);
      await t.create({ title: 'Long key' }, { 'idempotency-key': 'k'.repeat(255) });
    });

    it('creates as usual without the header: the same body twice makes two posts', async () => {
      const t = await setup(make);
      const a = await t.create({ title: 'Twice' });
      const b = await t.create({ title: 'Twice' });
      expect([a.slug, b.slug]).toEqual(['twice', 'twice-2']);
    });
  });

  describe('bulkPosts with an Idempotency-Key', () => {
    it('replays the stored answer without applying the action again', async () => {
      const t = await setup(make);
      const post = await t.create({ title: 'Bulk once' });
      const body = { ids: [post.id], action: 'addTag', tag: 'once' };
      const headers = { 'idempotency-key': 'bulk-1' };
      const first = await t.send('POST', '/posts/bulk', { body, headers });
      expect(first.status).toBe(200);
      expect(first.headers.get('idempotent-replayed')).toBeNull();
      const firstBody = await first.text();
      expect(JSON.parse(firstBody)).toEqual({ action: 'addTag', succeeded: [{ id: post.id, version: 2 }], failed: [] });
      // Another change in between must not leak into the replay.
      await t.patch(post.id, 2, { tags: [] });
      const replay = await t.send('POST', '/posts/bulk', { body, headers });
      expect(replay.status).toBe(200);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(await replay.text()).toBe(firstBody);
      expect(await t.getPost(post.id)).toMatchObject({ version: 3, tags: [] });
      await expectProblem(await t.send('POST', '/posts/bulk', { body: { ...body, tag: 'other' }, headers }), 422, 'idempotency-key-reused');
    });

    it('goes on after a crash: a retry that takes the key over applies only the items not done, and every answer tells what happened', async () => {
      const clock = new FixedClock(new Date('2026-05-01T08:00:00.000Z'));
      // Holds the 3rd transaction after arming: the first bulk request stops before its 3rd item,
      // as if its process had died there.
      let count = -1;
      let stopped!: () => void;
      const atThird = new Promise<void>((resolve) => (stopped = resolve));
      let resume!: () => void;
      const resumed = new Promise<void>((resolve) => (resume = resolve));
      const around = async () => {
        if (count < 0) return;
        count += 1;
        if (count === 3) {
          stopped();
          await resumed;
        }
      };
      const t = await setup(make, { clock, wrap: (store) => instrumented(store, { around }) });
      const posts = [];
      for (const title of ['A', 'B', 'C', 'D']) posts.push(await t.create({ title }));
      const body = { ids: posts.map((p) => p.id), action: 'publish' };
      const headers = { 'idempotency-key': 'bulk-crash' };
      count = 0;
      const first = t.send('POST', '/posts/bulk', { body, headers });
      await atThird;
      clock.advance(31_000);
      const retry = await t.send('POST', '/posts/bulk', { body, headers });
      expect(retry.status, await peek(retry)).toBe(200);
      const answer = await retry.text();
      expect(JSON.parse(answer)).toEqual({ action: 'publish', succeeded: posts.map((p) => ({ id: p.id, version: 2 })), failed: [] });
      for (const post of posts) {
        expect(await t.revisions(post.id), post.title).toHaveLength(2);
        expect((await t.getPost(post.id)).status).toBe('published');
      }
      resume();
      const late = await first;
      expect(late.status, await peek(late)).toBe(200);
      expect(late.headers.get('idempotent-replayed')).toBe('true');
      expect(await late.text()).toBe(answer);
      for (const post of posts) expect(await t.revisions(post.id)).toHaveLength(2);
      const replay = await t.send('POST', '/posts/bulk', { body, headers });
      expect(await replay.text()).toBe(answer);
    });

    it('answers 409 with Retry-After while the first bulk request with the key is running', async () => {
      const hold = holdNextTransaction();
      const t = await setup(make, { wrap: (store) => instrumented(store, { around: hold.around }) });
      const post = await t.create({ title: 'Slow bulk' });
      const body = { ids: [post.id], action: 'publish' };
      const headers = { 'idempotency-key': 'bulk-slow' };
      const { entered, release } = hold.arm();
      const first = t.send('POST', '/posts/bulk', { body, headers });
      await entered;
      const second = await t.send('POST', '/posts/bulk', { body, headers });
      await expectProblem(second, 409, 'idempotency-key-in-flight');
      expect(Number(second.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      release();
      const done = await first;
      expect(await done.json()).toEqual({ action: 'publish', succeeded: [{ id: post.id, version: 2 }], failed: [] });
      expect((await t.send('POST', '/posts/bulk', { body, headers })).headers.get('idempotent-replayed')).toBe('true');
      expect(await t.revisions(post.id)).toHaveLength(2);
    });
  });
});
