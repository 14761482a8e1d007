import { describe, expect, it } from 'vitest';
import { SlugTakenError, VersionConflictError } from '../../domain/errors.js';
import type { StoredResponse } from '../../domain/ports/idempotency-store.js';
import type { Store } from '../../domain/ports/store.js';
import type { TransactionalRepositories } from '../../domain/ports/unit-of-work.js';
import { ADA, type MakeStore, minute, newPost, rejectionOf, revisionOf, settle, times, ulid, useStore } from './fixtures.js';

const USER = ulid(5000);
const RESPONSE: StoredResponse = { status: 201, headers: { etag: 'W/"1"' }, body: '{"ok":true}' };

function gate(): { wait: Promise<void>; open: () => void } {
  let open: () => void = () => undefined;
  const wait = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { wait, open };
}

class WorkFailed extends Error {}

/** Everything a typical write leaves behind: a post, its revision, an activity event, the stored answer. */
async function writeAll(repos: TransactionalRepositories, n: number): Promise<void> {
  const post = await repos.posts.create(newPost(n, { tags: ['uow'] }));
  await repos.revisions.append(revisionOf(post));
  await repos.activity.append({
    id: ulid(n + 100),
    type: 'created',
    postId: post.id,
    postTitle: post.title,
    postVersion: 1,
    actor: { ...ADA },
    occurredAt: minute(n),
  });
  await repos.idempotency.complete(USER, `key-${n}`, CLAIMED_AT, RESPONSE);
}

/** What `writeAll(n)` left visible, seen from outside any transaction. */
async function visible(store: Store, n: number): Promise<Record<string, boolean>> {
  return {
    post: (await store.posts.get(ulid(n))) !== null,
    revision: (await store.revisions.get(ulid(n), 1)) !== null,
    activity: (await store.activity.list({ limit: 10, postId: ulid(n) })).items.length > 0,
    idempotency: (await store.idempotency.read(USER, `key-${n}`)) !== null,
  };
}

const CLAIMED_AT = minute(0);
const ALL = { post: true, revision: true, activity: true, idempotency: true };
const NONE = { post: false, revision: false, activity: false, idempotency: false };

function claim(store: Store, n: number) {
  return store.idempotency.claim({
    userId: USER,
    key: `key-${n}`,
    fingerprint: 'fp',
    now: CLAIMED_AT,
    leaseMs: 60_000,
    expiresAt: minute(59),
  });
}

export function describeUnitOfWorkContract(make: MakeStore): void {
  describe('UnitOfWork', () => {
    const store = useStore(make);

    it('every write made through the repositories it is given commits together when work resolves', async () => {
      await claim(store(), 1);
      await store().posts.create(newPost(2, { title: 'Before' }));
      await store().unitOfWork.run(async (repos) => {
        await writeAll(repos, 1);
        await repos.posts.update(ulid(2), 1, { title: 'After' }, minute(30));
      });
      expect(await visible(store(), 1)).toEqual(ALL);
      expect(await store().idempotency.read(USER, 'key-1')).toStrictEqual(RESPONSE);
      expect((await store().posts.get(ulid(2)))?.title).toBe('After');
    });

    it('run resolves with what work resolves', async () => {
      expect(await store().unitOfWork.run(async () => ({ answer: 42 }))).toStrictEqual({ answer: 42 });
    });

    it('work sees its own writes before they commit', async () => {
      await claim(store(), 1);
      await store().unitOfWork.run(async (repos) => {
        await writeAll(repos, 1);
        expect((await repos.posts.get(ulid(1)))?.tags).toEqual(['uow']);
        expect((await repos.posts.list({ sort: { key: 'title', direction: 'asc' }, limit: 10 })).total).toBe(1);
        expect(await repos.revisions.get(ulid(1), 1)).not.toBeNull();
        expect((await repos.activity.list({ limit: 10 })).items).toHaveLength(1);
        expect(await repos.idempotency.read(USER, 'key-1')).toStrictEqual(RESPONSE);
      });
    });

    it('when work throws, none of its writes is visible and the error is rethrown unchanged', async () => {
      await claim(store(), 1);
      await store().posts.create(newPost(2, { title: 'Before', slug: 'before' }));
      await store().posts.create(newPost(3, { title: 'Doomed' }));
      const before = { p2: await store().posts.get(ulid(2)), p3: await store().posts.get(ulid(3)) };
      const failure = new WorkFailed('boom');
      const error = await rejectionOf(
        store().unitOfWork.run(async (repos) => {
          await writeAll(repos, 1);
          await repos.posts.update(ulid(2), 1, { title: 'After', slug: 'after' }, minute(30));
          await repos.posts.delete(ulid(3), 1);
          throw failure;
        }),
      );
      expect(error).toBe(failure);
      expect(await visible(store(), 1)).toEqual(NONE);
      expect(await store().posts.get(ulid(2))).toStrictEqual(before.p2);
      expect(await store().posts.get(ulid(3))).toStrictEqual(before.p3);
      expect(await store().posts.getBySlug('after')).toBeNull();
      expect((await store().posts.list({ sort: { key: 'title', direction: 'asc' }, limit: 10 })).total).toBe(2);
      expect(await store().posts.tagCounts()).toStrictEqual([]);
      expect(await store().activity.countPerDay(minute(0), 1)).toStrictEqual([{ date: '2026-03-04', count: 0 }]);
      // The claim made before the transaction is still held: the rolled-back complete is gone.
      expect((await claim(store(), 1)).outcome).toBe('in_flight');
    });

    it('when a repository throws inside work, the earlier writes roll back and that error is rethrown', async () => {
      await store().posts.create(newPost(1, { slug: 'taken' }));
      const error = await rejectionOf(
        store().unitOfWork.run(async (repos) => {
          await repos.posts.create(newPost(2));
          await repos.posts.create(newPost(3, { slug: 'taken' }));
        }),
      );
      expect(error).toBeInstanceOf(SlugTakenError);
      expect(await store().posts.get(ulid(2))).toBeNull();
      expect(await store().posts.get(ulid(3))).toBeNull();
    });

    it('a SlugTakenError inside work leaves the unit usable: later writes commit with the earlier ones', async () => {
      await store().posts.create(newPost(1, { slug: 'taken' }));
      await claim(store(), 2);
      await store().unitOfWork.run(async (repos) => {
        await repos.posts.create(newPost(3, { slug: 'first' }));
        expect(await rejectionOf(repos.posts.create(newPost(4, { slug: 'taken' })))).toBeInstanceOf(SlugTakenError);
        await writeAll(repos, 2);
      });
      expect(await visible(store(), 2)).toEqual(ALL);
      expect((await store().posts.get(ulid(3)))?.slug).toBe('first');
      expect(await store().posts.get(ulid(4))).toBeNull();
      expect((await store().posts.getBySlug('taken'))?.id).toBe(ulid(1));
    });

    it('writes started together inside work, without waiting for each other, all commit together', async () => {
      await claim(store(), 1);
      await store().unitOfWork.run(async (repos) => {
        const post = await repos.posts.create(newPost(1, { tags: ['uow'] }));
        await Promise.all([
          repos.revisions.append(revisionOf(post)),
          repos.activity.append({
            id: ulid(101),
            type: 'created',
            postId: post.id,
            postTitle: post.title,
            postVersion: 1,
            actor: { ...ADA },
            occurredAt: minute(1),
          }),
          repos.idempotency.complete(USER, 'key-1', CLAIMED_AT, RESPONSE),
          repos.posts.create(newPost(2)),
        ]);
      });
      expect(await visible(store(), 1)).toEqual(ALL);
      expect(await store().posts.get(ulid(2))).not.toBeNull();
    });

    it('when one of the writes started together fails, that error is rethrown and none of them is kept', async () => {
      await store().posts.create(newPost(1, { slug: 'taken' }));
      const error = await rejectionOf(
        store().unitOfWork.run(async (repos) => {
          const post = await repos.posts.create(newPost(2));
          await Promise.all([
            repos.revisions.append(revisionOf(post)),
            repos.revisions.append(revisionOf(post)),
            repos.posts.create(newPost(3)),
          ]);
        }),
      );
      // The second append of the same revision is the failure (history is never rewritten).
      expect(error).toBeInstanceOf(VersionConflictError);
      expect(await store().posts.get(ulid(2))).toBeNull();
      expect(await store().posts.get(ulid(3))).toBeNull();
      expect(await store().revisions.get(ulid(2), 1)).toBeNull();
    });

    it('none of the writes of a unit that will throw is visible to anyone while it runs', async () => {
      const written = gate();
      const release = gate();
      const unit = store().unitOfWork.run(async (repos) => {
        await repos.posts.create(newPost(1));
        written.open();
        await release.wait;
        throw new WorkFailed('late failure');
      });
      await written.wait;
      const outside = store().posts.get(ulid(1));
      const other = store().unitOfWork.run((repos) => repos.posts.get(ulid(1)));
      await settle();
      release.open();
      expect(await rejectionOf(unit)).toBeInstanceOf(WorkFailed);
      expect(await outside).toBeNull();
      expect(await other).toBeNull();
    });

    it('transactions are isolated: concurrent units see either all or none of another’s writes', async () => {
      const written = gate();
      const release = gate();
      const unit = store().unitOfWork.run(async (repos) => {
        await repos.posts.create(newPost(1));
        written.open();
        await release.wait;
        await repos.posts.create(newPost(2));
      });
      await written.wait;
      const count = (repos: { posts: Store['posts'] }) =>
        repos.posts.list({ sort: { key: 'title', direction: 'asc' }, limit: 10 }).then((p) => p.total);
      const outside = count(store());
      const other = store().unitOfWork.run((repos) => count(repos));
      await settle();
      release.open();
      await unit;
      expect([0, 2]).toContain(await outside);
      expect([0, 2]).toContain(await other);
      expect(await count(store())).toBe(2);
    });

    it('no write is lost: auto-commit writes and other units made while a unit runs are all kept', async () => {
      const written = gate();
      const release = gate();
      const unit = store().unitOfWork.run(async (repos) => {
        await repos.posts.create(newPost(1));
        written.open();
        await release.wait;
        await repos.activity.append({
          id: ulid(101),
          type: 'created',
          postId: ulid(1),
          postTitle: 'Post 1',
          postVersion: 1,
          actor: { ...ADA },
          occurredAt: minute(1),
        });
      });
      await written.wait;
      const outside = store().posts.create(newPost(2));
      const other = store().unitOfWork.run((repos) => repos.posts.create(newPost(3)));
      await settle();
      release.open();
      await Promise.all([unit, outside, other]);
      for (const n of [1, 2, 3]) expect(await store().posts.get(ulid(n)), `post ${n}`).not.toBeNull();
      expect((await store().activity.list({ limit: 10 })).items).toHaveLength(1);
    });

    it('of N concurrent units updating one post with the same expected version exactly one commits (N = 5)', async () => {
      await store().posts.create(newPost(1));
      const results = await Promise.allSettled(
        times(5, (i) =>
          store().unitOfWork.run(async (repos) => {
            const post = await repos.posts.update(ulid(1), 1, { title: `unit ${i}` }, minute(30));
            await repos.revisions.append(revisionOf(post));
            return post;
          }),
        ),
      );
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      for (const r of results) {
        if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(VersionConflictError);
      }
      expect((await store().posts.get(ulid(1)))?.version).toBe(2);
      expect((await store().revisions.list(ulid(1), { limit: 10 })).items).toHaveLength(1);
    });
  });

  describe('Store', () => {
    const store = useStore(make);

    it('the repositories used outside unitOfWork.run auto-commit each call', async () => {
      await store().posts.create(newPost(1));
      await rejectionOf(
        store().unitOfWork.run(async (repos) => {
          await repos.posts.create(newPost(2));
          throw new WorkFailed('rolled back');
        }),
      );
      expect(await store().posts.get(ulid(1))).not.toBeNull();
      expect(await store().posts.get(ulid(2))).toBeNull();
      expect(await store().unitOfWork.run((repos) => repos.posts.get(ulid(1)))).not.toBeNull();
    });

    it('ping resolves when the store answers', async () => {
      await expect(store().ping()).resolves.toBeUndefined();
      expect(['memory', 'pglite', 'postgres']).toContain(store().kind);
    });

    it('a fresh store is empty', async () => {
      expect((await store().posts.list({ sort: { key: 'title', direction: 'asc' }, limit: 1 })).total).toBe(0);
      expect(await store().activity.list({ limit: 1 })).toStrictEqual({ items: [], nextCursor: null });
      expect(await store().users.count()).toBe(0);
    });

    it('runExclusive refuses a job another unit holds at once, without calling work; other jobs run; the job runs again after', async () => {
      const held = gate();
      const entered = gate();
      const first = store().unitOfWork.runExclusive('job-a', async (repos) => {
        entered.open();
        await held.wait;
        return repos.idempotency.read(USER, 'none');
      });
      await entered.wait;
      let called = false;
      const second = await store().unitOfWork.runExclusive('job-a', async () => {
        called = true;
        return 'second';
      });
      expect(second).toEqual({ ran: false });
      expect(called).toBe(false);
      held.open();
      expect(await first).toEqual({ ran: true, value: null });
      expect(await store().unitOfWork.runExclusive('job-a', async () => 'again')).toEqual({ ran: true, value: 'again' });
    });

    it('runExclusive runs work in a transaction: its writes commit together, or none when it throws', async () => {
      await claim(store(), 61);
      const done = await store().unitOfWork.runExclusive('job-b', (repos) => writeAll(repos, 61));
      expect(done.ran).toBe(true);
      expect(await visible(store(), 61)).toEqual(ALL);
      await claim(store(), 62);
      const failure = await rejectionOf(
        store().unitOfWork.runExclusive('job-b', async (repos) => {
          await writeAll(repos, 62);
          throw new WorkFailed('after the writes');
        }),
      );
      expect(failure).toBeInstanceOf(WorkFailed);
      expect(await visible(store(), 62)).toEqual(NONE);
      // The failed unit released the job.
      expect((await store().unitOfWork.runExclusive('job-b', async () => 1)).ran).toBe(true);
    });
  });
}
