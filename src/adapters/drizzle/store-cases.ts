/**
 * Cases particular to the Drizzle adapter (SQL-side decisions the contract suite cannot see),
 * run by both `store.pglite.test.ts` and `store.postgres.test.ts`.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  DuplicateIdError,
  InvalidCursorError,
  NotFoundError,
  SlugTakenError,
  UnavailableError,
  VersionConflictError,
} from '../../domain/errors.js';
import type { PostStatus, PostSummary } from '../../domain/post.js';
import type { NewPost, PostQuery } from '../../domain/ports/post-repository.js';
import type { Store } from '../../domain/ports/store.js';

const T0 = Date.parse('2025-03-01T10:00:00.123Z');
const at = (ms: number) => new Date(T0 + ms);

function newPost(n: number, over: Partial<NewPost> = {}): NewPost {
  return {
    id: `P${String(n).padStart(4, '0')}`,
    title: `Post ${n}`,
    slug: `post-${n}`,
    excerpt: '',
    body: `body ${n}`,
    tags: [],
    status: 'draft',
    wordCount: 2,
    createdAt: at(n * 1000),
    publishedAt: null,
    ...over,
  };
}

async function walk(store: Store, query: Omit<PostQuery, 'limit' | 'cursor'>, limit: number): Promise<PostSummary[]> {
  const seen: PostSummary[] = [];
  let cursor: string | null = null;
  for (let i = 0; i < 1000; i += 1) {
    const page = await store.posts.list({ ...query, limit, cursor });
    seen.push(...page.items);
    if (page.nextCursor === null) return seen;
    cursor = page.nextCursor;
  }
  throw new Error('pagination did not end');
}

export function describeDrizzleStoreCases(name: string, make: () => Promise<Store>): void {
  describe(`${name}: Drizzle adapter specifics`, () => {
    let store: Store;
    const open = async () => (store = await make());
    afterEach(async () => {
      await store?.close();
    });

    it('round-trips a post with millisecond instants, tags in order and non-ASCII text', async () => {
      await open();
      const post = newPost(1, {
        title: 'Été à Zürich',
        tags: ['zeta', 'alpha', 'été'],
        publishedAt: at(999),
        status: 'published',
      });
      const created = await store.posts.create(post);
      expect(created).toEqual({ ...post, version: 1, updatedAt: post.createdAt });
      expect(await store.posts.get(post.id)).toEqual(created);
      expect(await store.posts.getBySlug(post.slug)).toEqual(created);
      expect(await store.posts.get('nope')).toBeNull();
      expect(await store.posts.getBySlug('nope')).toBeNull();
    });

    it('maps unique violations: slug → SlugTakenError, id → DuplicateIdError', async () => {
      await open();
      await store.posts.create(newPost(1));
      await expect(store.posts.create(newPost(2, { slug: 'post-1' }))).rejects.toBeInstanceOf(SlugTakenError);
      await expect(store.posts.create(newPost(1, { slug: 'other' }))).rejects.toBeInstanceOf(DuplicateIdError);
      const p2 = await store.posts.create(newPost(2));
      await expect(store.posts.update(p2.id, 1, { slug: 'post-1' }, at(5))).rejects.toBeInstanceOf(SlugTakenError);
      expect((await store.posts.get(p2.id))?.version).toBe(1);
    });

    it('update: guarded by version, NotFound vs VersionConflict decided after the write', async () => {
      await open();
      await store.posts.create(newPost(1));
      const updated = await store.posts.update('P0001', 1, { title: 'New' }, at(10_000));
      expect(updated).toMatchObject({ version: 2, title: 'New', updatedAt: at(10_000) });
      await expect(store.posts.update('P0001', 1, { title: 'x' }, at(1))).rejects.toMatchObject({
        constructor: VersionConflictError,
        expected: 1,
        actual: 2,
      });
      await expect(store.posts.update('missing', 1, {}, at(1))).rejects.toBeInstanceOf(NotFoundError);
      await expect(store.posts.delete('P0001', 1)).rejects.toBeInstanceOf(VersionConflictError);
      await expect(store.posts.delete('missing', 1)).rejects.toBeInstanceOf(NotFoundError);
      expect((await store.posts.delete('P0001', 2)).title).toBe('New');
      expect(await store.posts.get('P0001')).toBeNull();
    });

    it('of 8 concurrent updates with the same expected version exactly one succeeds', async () => {
      await open();
      await store.posts.create(newPost(1));
      const results = await Promise.allSettled(
        Array.from({ length: 8 }, (_, i) => store.posts.update('P0001', 1, { title: `T${i}` }, at(i))),
      );
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      for (const r of results) {
        if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(VersionConflictError);
      }
      expect((await store.posts.get('P0001'))?.version).toBe(2);
    });

    it('keeps the search text in step when only some content fields change', async () => {
      await open();
      await store.posts.create(newPost(1, { title: 'Alpha', excerpt: 'Bravo', body: 'Charlie' }));
      await store.posts.update('P0001', 1, { title: 'Delta' }, at(1));
      const q = (text: string) => store.posts.list({ q: text, sort: { key: 'updatedAt', direction: 'desc' }, limit: 10 });
      expect((await q('alpha')).total).toBe(0);
      expect((await q('DELTA')).total).toBe(1);
      expect((await q('bravo')).total).toBe(1);
      await store.posts.update('P0001', 2, { body: 'Écho' }, at(2));
      expect((await q('charlie')).total).toBe(0);
      expect((await q('ÉCHO')).total).toBe(1);
      expect((await q('delta')).total).toBe(1);
    });

    it('q: % and _ are plain characters, non-ASCII folds', async () => {
      await open();
      await store.posts.create(newPost(1, { title: '100% sure' }));
      await store.posts.create(newPost(2, { title: '100 percent', body: 'snake_case' }));
      await store.posts.create(newPost(3, { title: 'ÉTÉ', body: 'x' }));
      await store.posts.create(newPost(4, { body: 'C:\\temp' }));
      const q = async (text: string) =>
        (await store.posts.list({ q: text, sort: { key: 'title', direction: 'asc' }, limit: 10 })).items.map((p) => p.id);
      expect(await q('0%')).toEqual(['P0001']);
      expect(await q('e_c')).toEqual(['P0002']);
      expect(await q('_')).toEqual(['P0002']);
      expect(await q('été')).toEqual(['P0003']);
      expect(await q('\\')).toEqual(['P0004']);
      expect(await q('c:\\T')).toEqual(['P0004']);
    });

    it('sorts titles by UTF-8 bytes and ties by id in byte order', async () => {
      await open();
      const titles = ['apple', 'Zebra', 'Éclair', 'apple', 'Apple', '~tilde', 'äpfel'];
      for (const [i, title] of titles.entries()) await store.posts.create(newPost(i + 1, { title }));
      const asc = await walk(store, { sort: { key: 'title', direction: 'asc' } }, 2);
      expect(asc.map((p) => `${p.title}|${p.id}`)).toEqual([
        'Apple|P0005',
        'Zebra|P0002',
        'apple|P0001',
        'apple|P0004',
        '~tilde|P0006',
        'Éclair|P0003', // C3 89
        'äpfel|P0007', // C3 A4
      ]);
      const desc = await walk(store, { sort: { key: 'title', direction: 'desc' } }, 3);
      expect(desc.map((p) => p.id)).toEqual(asc.map((p) => p.id).reverse());
    });

    it('publishedAt: nulls last in both directions, pages cross the null boundary exactly once', async () => {
      await open();
      const published = [5, 3, 9, 3, 7];
      for (let i = 1; i <= 10; i += 1) {
        const p = published[i - 1];
        await store.posts.create(newPost(i, p === undefined ? {} : { status: 'published', publishedAt: at(p * 1000) }));
      }
      for (const direction of ['asc', 'desc'] as const) {
        for (const limit of [1, 2, 3, 4, 10]) {
          const all = await walk(store, { sort: { key: 'publishedAt', direction } }, limit);
          const keys = all.map((p) => p.publishedAt?.getTime() ?? null);
          expect(all).toHaveLength(10);
          expect(new Set(all.map((p) => p.id)).size).toBe(10);
          expect(keys.slice(5)).toEqual([null, null, null, null, null]);
          const nonNull = keys.slice(0, 5) as number[];
          const sorted = [...nonNull].sort((a, b) => (direction === 'asc' ? a - b : b - a));
          expect(nonNull).toEqual(sorted);
          const nullIds = all.slice(5).map((p) => p.id);
          expect(nullIds).toEqual(
            direction === 'asc' ? ['P0006', 'P0007', 'P0008', 'P0009', 'P0010'] : ['P0010', 'P0009', 'P0008', 'P0007', 'P0006'],
          );
        }
      }
    });

    it('filters by status, tag and q together; total counts every match; foreign cursors throw', async () => {
      await open();
      const statuses: PostStatus[] = ['draft', 'published', 'archived'];
      for (let i = 1; i <= 12; i += 1) {
        await store.posts.create(newPost(i, { status: statuses[i % 3]!, tags: i % 2 === 0 ? ['even', 'all'] : ['all'] }));
      }
      const page = await store.posts.list({
        status: ['draft', 'archived'],
        tag: 'even',
        sort: { key: 'createdAt', direction: 'asc' },
        limit: 2,
      });
      expect(page.total).toBe(4);
      expect(page.items.map((p) => p.id)).toEqual(['P0002', 'P0006']);
      expect(page.nextCursor).not.toBeNull();
      await expect(
        store.posts.list({ tag: 'all', sort: { key: 'createdAt', direction: 'asc' }, limit: 2, cursor: page.nextCursor }),
      ).rejects.toBeInstanceOf(InvalidCursorError);
      await expect(store.posts.list({ sort: { key: 'createdAt', direction: 'asc' }, limit: 2, cursor: 'garbage' })).rejects.toBeInstanceOf(
        InvalidCursorError,
      );
      const none = await store.posts.list({ tag: 'nope', sort: { key: 'updatedAt', direction: 'desc' }, limit: 5 });
      expect(none).toEqual({ items: [], nextCursor: null, total: 0, totalExact: true });
    });

    it('read models: tagCounts, countByStatus, wordsPublished, slugsLike', async () => {
      await open();
      await store.posts.create(newPost(1, { slug: 'hello', tags: ['b', 'a'], status: 'published', wordCount: 5 }));
      await store.posts.create(newPost(2, { slug: 'hello-2', tags: ['b', 'B'], status: 'published', wordCount: 7 }));
      await store.posts.create(newPost(3, { slug: 'hello-world', tags: ['a'] }));
      await store.posts.create(newPost(4, { slug: 'hello-10', tags: ['c'] }));
      expect(await store.posts.tagCounts()).toEqual(
        [
          { name: 'a', count: 2 },
          { name: 'b', count: 2 },
          { name: 'B', count: 1 },
          { name: 'c', count: 1 },
        ].sort((x, y) => y.count - x.count || (x.name < y.name ? -1 : 1)),
      );
      expect(await store.posts.countByStatus()).toEqual({ draft: 2, published: 2, archived: 0 });
      expect(await store.posts.wordsPublished()).toBe(12);
      expect(await store.posts.slugsLike('hello')).toEqual(['hello', 'hello-10', 'hello-2']);
      expect(await store.posts.slugsLike('hell')).toEqual([]);
    });

    it('unit of work: a SlugTakenError inside leaves the transaction usable', async () => {
      await open();
      await store.posts.create(newPost(1));
      const result = await store.unitOfWork.run(async (repos) => {
        await expect(repos.posts.create(newPost(2, { slug: 'post-1' }))).rejects.toBeInstanceOf(SlugTakenError);
        const created = await repos.posts.create(newPost(2, { slug: 'post-1-2' }));
        await repos.revisions.append({
          postId: created.id,
          version: 1,
          title: created.title,
          slug: created.slug,
          excerpt: '',
          body: created.body,
          tags: [],
          status: 'draft',
          wordCount: 2,
          createdAt: created.createdAt,
          actor: { id: 'u1', name: 'Ann' },
        });
        return created.slug;
      });
      expect(result).toBe('post-1-2');
      expect((await store.posts.get('P0002'))?.slug).toBe('post-1-2');
      expect((await store.revisions.list('P0002', { limit: 10 })).items).toHaveLength(1);
    });

    it('unit of work: rolls back and rethrows the error unchanged', async () => {
      await open();
      const boom = new Error('boom');
      await expect(
        store.unitOfWork.run(async (repos) => {
          await repos.posts.create(newPost(1));
          await Promise.all([repos.posts.create(newPost(2)), repos.posts.list({ sort: { key: 'title', direction: 'asc' }, limit: 5 })]);
          throw boom;
        }),
      ).rejects.toBe(boom);
      expect(await store.posts.get('P0001')).toBeNull();
      expect(await store.posts.get('P0002')).toBeNull();
    });

    it('idempotency: of 10 concurrent claims of one free key exactly one is claimed; headers replay in order', async () => {
      await open();
      const claim = { userId: 'u1', key: 'k1', fingerprint: 'f', now: at(0), leaseMs: 30_000, expiresAt: at(86_400_000) };
      const outcomes = await Promise.all(Array.from({ length: 10 }, () => store.idempotency.claim(claim)));
      expect(outcomes.filter((o) => o.outcome === 'claimed')).toHaveLength(1);
      expect(outcomes.filter((o) => o.outcome === 'in_flight')).toHaveLength(9);
      const response = { status: 201, headers: { 'z-last': '1', 'content-type': 'application/json', a: '2' }, body: '{"é":1}' };
      await store.idempotency.complete('u1', 'k1', at(0), response);
      const replay = await store.idempotency.claim({ ...claim, now: at(1) });
      expect(replay).toEqual({ outcome: 'completed', response });
      expect(Object.keys((replay as { response: { headers: object } }).response.headers)).toEqual(['z-last', 'content-type', 'a']);
      expect(await store.idempotency.claim({ ...claim, fingerprint: 'other' })).toEqual({ outcome: 'mismatch' });
      expect(await store.idempotency.claim({ ...claim, now: at(86_400_000) })).toEqual({ outcome: 'claimed', progress: null });
      expect(await store.idempotency.claim({ ...claim, now: at(86_400_001) })).toEqual({ outcome: 'in_flight', retryAfterMs: 29_999 });
      // Past the lease, another request may not take the key over; a retry of the same one may.
      expect(await store.idempotency.claim({ ...claim, fingerprint: 'g', now: at(86_400_000 + 30_000) })).toEqual({ outcome: 'mismatch' });
      expect(await store.idempotency.claim({ ...claim, now: at(86_400_000 + 30_000) })).toEqual({ outcome: 'claimed', progress: null });
    });

    it('after close, calls throw UnavailableError', async () => {
      await open();
      await store.close();
      await expect(store.ping()).rejects.toBeInstanceOf(UnavailableError);
      await expect(store.posts.get('x')).rejects.toBeInstanceOf(UnavailableError);
      await expect(store.unitOfWork.run(async () => 1)).rejects.toBeInstanceOf(UnavailableError);
    });
  });
}
