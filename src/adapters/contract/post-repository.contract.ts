import { describe, expect, it } from 'vitest';
import { encodeCursor, postCursorScope } from '../../domain/cursor.js';
import { DuplicateIdError, InvalidCursorError, NotFoundError, SlugTakenError, VersionConflictError } from '../../domain/errors.js';
import type { Post, PostStatus } from '../../domain/post.js';
import { POST_TOTAL_CAP } from '../../domain/ports/post-repository.js';
import { AUTOSAVE_BURST_MS, type Actor } from '../../domain/ports/revision-repository.js';
import { MAX_DOCUMENT_WORDS } from '../../domain/search.js';
import type { PostQuery, PostRepository, PostSort, PostSortKey } from '../../domain/ports/post-repository.js';
import { ADA, type MakeStore, minute, newPost, rejectionOf, revisionOf, times, ulid, useStore } from './fixtures.js';

/** A published post with every field set: the fixture of the create rules. */
function publishedHello(overrides: Partial<Parameters<typeof newPost>[1]> = {}) {
  return newPost(1, {
    title: 'Hello',
    slug: 'hello',
    excerpt: 'An excerpt',
    body: '# Hello\n\nWorld',
    tags: ['b', 'a'],
    status: 'published',
    wordCount: 2,
    createdAt: new Date('2026-03-04T05:06:07.891Z'),
    publishedAt: new Date('2026-03-04T06:00:00.001Z'),
    coverImage: { mediaId: COVER_ID, alt: 'A harbour at dawn, "boats" & <nets>' },
    seo: { title: 'Hello, search engines', description: 'What a link preview shows.', canonicalUrl: 'https://example.com/hello?a=1&b=2' },
    ...overrides,
  });
}

/** A media id (26 lowercase base32 characters); the store does not check that the media exists. */
const COVER_ID = 'abcdefghijklmnopqrstuvwxyz';
const OTHER_COVER_ID = 'zyxwvutsrqponmlkjihgfedcba';

/**
 * The ordering fixture: ten posts whose titles disagree between UTF-8 byte order, UTF-16 order
 * and any collation (case, accents, ß, an emoji, U+FF5A), with equal timestamps, equal titles and
 * null `publishedAt`s. `c`, `u`, `p` and `a` are minutes (see `minute`) of createdAt, updatedAt,
 * publishedAt and publishAt (drafts 1, 4 and 7 are scheduled, 1 and 7 at the same minute).
 */
const ORDERING: ReadonlyArray<{
  n: number;
  title: string;
  c: number;
  u: number;
  p: number | null;
  a: number | null;
  status: PostStatus;
}> = [
  { n: 1, title: 'apple', c: 5, u: 5, p: null, a: 70, status: 'draft' },
  { n: 2, title: 'Banana', c: 1, u: 9, p: 3, a: null, status: 'published' },
  { n: 3, title: 'zebra', c: 5, u: 7, p: 3, a: null, status: 'archived' },
  { n: 4, title: 'Été', c: 2, u: 7, p: null, a: 20, status: 'draft' },
  { n: 5, title: 'été', c: 8, u: 8, p: 6, a: null, status: 'published' },
  { n: 6, title: 'ß', c: 5, u: 9, p: 8, a: null, status: 'published' },
  { n: 7, title: '😀 party', c: 3, u: 4, p: 3, a: 70, status: 'draft' },
  { n: 8, title: 'ｚ wide', c: 9, u: 9, p: null, a: null, status: 'draft' },
  { n: 9, title: 'apple', c: 4, u: 6, p: 5, a: null, status: 'published' },
  { n: 10, title: 'Zulu', c: 6, u: 7, p: 9, a: null, status: 'published' },
];

/** Neither any expected order nor its reverse; every group of ties is scrambled too. */
const INSERTION_ORDER = [3, 9, 6, 10, 4, 1, 8, 2, 7, 5];

/** The expected order of the fixture for each sort, as fixture numbers. */
const EXPECTED: Record<`${Exclude<PostSortKey, 'relevance'>}:${'asc' | 'desc'}`, number[]> = {
  'title:asc': [2, 10, 1, 9, 3, 4, 6, 5, 8, 7],
  'title:desc': [7, 8, 5, 6, 4, 3, 9, 1, 10, 2],
  'createdAt:asc': [2, 4, 7, 9, 1, 3, 6, 10, 5, 8],
  'createdAt:desc': [8, 5, 10, 6, 3, 1, 9, 7, 4, 2],
  'updatedAt:asc': [7, 1, 9, 3, 4, 10, 5, 2, 6, 8],
  'updatedAt:desc': [8, 6, 2, 5, 10, 4, 3, 9, 1, 7],
  'publishedAt:asc': [2, 3, 7, 9, 5, 6, 10, 1, 4, 8],
  'publishedAt:desc': [10, 6, 5, 9, 7, 3, 2, 8, 4, 1],
  'publishAt:asc': [4, 1, 7, 2, 3, 5, 6, 8, 9, 10],
  'publishAt:desc': [7, 1, 4, 10, 9, 8, 6, 5, 3, 2],
};

const SORTS: PostSort[] = (['updatedAt', 'createdAt', 'publishedAt', 'publishAt', 'title'] as const).flatMap((key) =>
  (['asc', 'desc'] as const).map((direction) => ({ key, direction })),
);

function expectedIds(sort: PostSort): string[] {
  if (sort.key === 'relevance') throw new RangeError('relevance has no expected order without q');
  return EXPECTED[`${sort.key}:${sort.direction}`].map(ulid);
}

async function seedOrdering(posts: PostRepository): Promise<void> {
  for (const n of INSERTION_ORDER) {
    const row = ORDERING.find((r) => r.n === n)!;
    await posts.create(
      newPost(n, {
        title: row.title,
        status: row.status,
        createdAt: minute(row.c),
        publishedAt: row.p === null ? null : minute(row.p),
        publishAt: row.a === null ? null : minute(row.a),
      }),
    );
  }
  // Updates in yet another order, so that updatedAt differs from createdAt.
  for (const row of [...ORDERING].reverse()) {
    if (row.u !== row.c) await posts.update(ulid(row.n), 1, {}, minute(row.u));
  }
}

async function walk(
  posts: PostRepository,
  query: Omit<PostQuery, 'cursor'>,
  between?: (page: number) => Promise<void>,
): Promise<{ ids: string[]; pages: Array<{ size: number; total: number; last: boolean }> }> {
  const ids: string[] = [];
  const pages: Array<{ size: number; total: number; last: boolean }> = [];
  let cursor: string | null = null;
  do {
    const page = await posts.list({ ...query, cursor });
    ids.push(...page.items.map((p) => p.id));
    pages.push({ size: page.items.length, total: page.total, last: page.nextCursor === null });
    cursor = page.nextCursor;
    if (pages.length > 60) throw new Error('the walk does not end');
    if (cursor !== null && between !== undefined) await between(pages.length);
  } while (cursor !== null);
  return { ids, pages };
}

function newPostAsStored(n: number, overrides: Parameters<typeof newPost>[1]): Post {
  const input = newPost(n, overrides);
  return { ...input, version: 1, updatedAt: new Date(input.createdAt.getTime()) };
}

function sorted(ids: string[]): string[] {
  return [...ids].sort();
}

const SORT: PostSort = { key: 'createdAt', direction: 'asc' };

export function describePostRepositoryContract(make: MakeStore): void {
  describe('PostRepository', () => {
    const store = useStore(make);
    const posts = (): PostRepository => store().posts;

    async function ids(query: Partial<PostQuery>): Promise<string[]> {
      const page = await posts().list({ sort: SORT, limit: 100, ...query });
      return page.items.map((p) => p.id);
    }

    describe('storage', () => {
      it('create stores a post at version 1 with updatedAt = createdAt and returns it as stored', async () => {
        const input = publishedHello();
        const created = await posts().create(input);
        const expected: Post = {
          ...input,
          version: 1,
          updatedAt: new Date('2026-03-04T05:06:07.891Z'),
        };
        expect(created).toStrictEqual(expected);
        expect(await posts().get(input.id)).toStrictEqual(expected);
        expect(await posts().getBySlug('hello')).toStrictEqual(expected);
      });

      it('create and createRecorded keep a given updatedAt (the last edit of an imported post) to the millisecond', async () => {
        const updatedAt = new Date('2026-05-06T07:08:09.123Z');
        const created = await posts().create(publishedHello({ updatedAt }));
        expect(created.updatedAt).toStrictEqual(updatedAt);
        expect(created.createdAt).toStrictEqual(new Date('2026-03-04T05:06:07.891Z'));
        expect((await posts().get(created.id))?.updatedAt).toStrictEqual(updatedAt);
        const occurredAt = new Date('2026-06-01T00:00:00.000Z');
        const recorded = await posts().createRecorded(
          publishedHello({ id: ulid(2), slug: 'hello-2', updatedAt: new Date('2026-04-01T00:00:00.001Z') }),
          { actor: ADA, eventId: ulid(90), occurredAt },
        );
        expect(recorded.updatedAt).toStrictEqual(new Date('2026-04-01T00:00:00.001Z'));
        expect((await posts().get(ulid(2)))?.updatedAt).toStrictEqual(new Date('2026-04-01T00:00:00.001Z'));
      });

      it('create with a slug that another post holds throws SlugTakenError and stores nothing', async () => {
        await posts().create(newPost(1, { slug: 'taken', title: 'First' }));
        const error = await rejectionOf(posts().create(newPost(2, { slug: 'taken', title: 'Second' })));
        expect(error).toBeInstanceOf(SlugTakenError);
        expect((error as SlugTakenError).slug).toBe('taken');
        expect(await posts().get(ulid(2))).toBeNull();
        expect((await posts().getBySlug('taken'))?.id).toBe(ulid(1));
        expect((await posts().get(ulid(1)))?.title).toBe('First');
        expect((await posts().list({ sort: SORT, limit: 10 })).total).toBe(1);
      });

      it('slugs are unique across every post whatever its status (draft, published, archived)', async () => {
        const statuses: PostStatus[] = ['draft', 'published', 'archived'];
        for (const [i, status] of statuses.entries()) {
          await posts().create(newPost(i + 1, { slug: `s-${status}`, status }));
        }
        for (const [i, status] of statuses.entries()) {
          const error = await rejectionOf(posts().create(newPost(10 + i, { slug: `s-${status}` })));
          expect(error, status).toBeInstanceOf(SlugTakenError);
        }
        expect((await posts().list({ sort: SORT, limit: 10 })).total).toBe(3);
      });

      it('update with a slug that another post holds throws SlugTakenError and changes nothing', async () => {
        await posts().create(newPost(1, { slug: 'first', status: 'archived' }));
        await posts().create(newPost(2, { slug: 'second', title: 'Second' }));
        const before = await posts().get(ulid(2));
        const error = await rejectionOf(posts().update(ulid(2), 1, { slug: 'first', title: 'Changed' }, minute(30)));
        expect(error).toBeInstanceOf(SlugTakenError);
        expect(await posts().get(ulid(2))).toStrictEqual(before);
        expect((await posts().getBySlug('first'))?.id).toBe(ulid(1));
      });

      it('update keeping its own slug is not a conflict', async () => {
        await posts().create(newPost(1, { slug: 'mine' }));
        const updated = await posts().update(ulid(1), 1, { slug: 'mine', title: 'T' }, minute(30));
        expect(updated.slug).toBe('mine');
        expect(updated.version).toBe(2);
      });

      it('a deleted post no longer holds its slug', async () => {
        await posts().create(newPost(1, { slug: 'reused' }));
        await posts().delete(ulid(1), 1);
        await posts().create(newPost(2, { slug: 'reused' }));
        expect((await posts().getBySlug('reused'))?.id).toBe(ulid(2));
      });

      it('a duplicate id throws DuplicateIdError, a different error, and stores nothing', async () => {
        await posts().create(newPost(1, { slug: 'original', title: 'Original' }));
        const error = await rejectionOf(posts().create(newPost(1, { slug: 'other', title: 'Other' })));
        expect(error).toBeInstanceOf(DuplicateIdError);
        expect(error).not.toBeInstanceOf(SlugTakenError);
        expect(await posts().getBySlug('other')).toBeNull();
        expect((await posts().get(ulid(1)))?.title).toBe('Original');
        expect((await posts().list({ sort: SORT, limit: 10 })).total).toBe(1);
      });

      it('timestamps are kept at millisecond precision in UTC: a Date goes in and the same instant comes out', async () => {
        const createdAt = new Date('2026-03-04T05:06:07.891Z');
        const publishedAt = new Date('2026-03-29T01:30:00.001Z');
        const at = new Date('2026-12-31T23:59:59.999Z');
        const created = await posts().create(newPost(1, { slug: 'ts', createdAt, publishedAt }));
        const reads = async (): Promise<Array<Omit<Post, 'body'>>> => [
          (await posts().get(ulid(1)))!,
          (await posts().getBySlug('ts'))!,
          ...(await posts().list({ sort: SORT, limit: 10 })).items,
        ];
        for (const p of [created, ...(await reads())]) {
          expect(p.createdAt.toISOString()).toBe('2026-03-04T05:06:07.891Z');
          expect(p.updatedAt.toISOString()).toBe('2026-03-04T05:06:07.891Z');
          expect(p.publishedAt?.toISOString()).toBe('2026-03-29T01:30:00.001Z');
        }
        const updated = await posts().update(ulid(1), 1, { title: 'x' }, at);
        for (const p of [updated, ...(await reads())]) {
          expect(p.createdAt.toISOString()).toBe('2026-03-04T05:06:07.891Z');
          expect(p.updatedAt.toISOString()).toBe('2026-12-31T23:59:59.999Z');
          expect(p.publishedAt?.toISOString()).toBe('2026-03-29T01:30:00.001Z');
        }
        const deleted = await posts().delete(ulid(1), 2);
        expect(deleted.updatedAt.toISOString()).toBe('2026-12-31T23:59:59.999Z');
      });

      it('timestamps: the instant returned equals the instant given (getTime) on every read, whatever the input', async () => {
        // A Date holds whole milliseconds: the fraction is dropped by the Date itself.
        const createdAt = new Date(Date.UTC(2026, 2, 4, 5, 6, 7, 891) + 0.5);
        const publishedAt = new Date(Date.UTC(1999, 11, 31, 23, 59, 59, 999) + 0.25);
        const at = new Date(Date.UTC(2101, 0, 1, 0, 0, 0, 1) + 0.75);
        await posts().create(newPost(1, { slug: 'sub', createdAt, publishedAt, status: 'published' }));
        await posts().update(ulid(1), 1, {}, at);
        const all = [
          (await posts().get(ulid(1)))!,
          (await posts().getBySlug('sub'))!,
          ...(await posts().list({ sort: SORT, limit: 10 })).items,
          ...(await posts().list({ sort: { key: 'publishedAt', direction: 'desc' }, limit: 10 })).items,
        ];
        for (const p of all) {
          expect(p.createdAt.getTime()).toBe(createdAt.getTime());
          expect(p.publishedAt?.getTime()).toBe(publishedAt.getTime());
          expect(p.updatedAt.getTime()).toBe(at.getTime());
        }
      });

      it('the repository never reads a clock: every instant comes from the caller', async () => {
        const past = new Date('1999-01-02T03:04:05.678Z');
        const future = new Date('2101-02-03T04:05:06.789Z');
        const created = await posts().create(newPost(1, { createdAt: past, publishedAt: null }));
        expect(created.updatedAt.getTime()).toBe(past.getTime());
        const updated = await posts().update(ulid(1), 1, { publishedAt: future }, future);
        expect(updated.updatedAt.getTime()).toBe(future.getTime());
        expect(updated.createdAt.getTime()).toBe(past.getTime());
        const back = await posts().update(ulid(1), 2, {}, past);
        expect(back.updatedAt.getTime()).toBe(past.getTime());
      });

      it('tags come back in the order they were stored', async () => {
        await posts().create(newPost(1, { tags: ['zeta', 'alpha', 'été', 'mid'] }));
        expect((await posts().get(ulid(1)))?.tags).toEqual(['zeta', 'alpha', 'été', 'mid']);
        expect((await posts().list({ sort: SORT, limit: 1 })).items[0]?.tags).toEqual(['zeta', 'alpha', 'été', 'mid']);
        const updated = await posts().update(ulid(1), 1, { tags: ['mid', 'zeta', 'b'] }, minute(30));
        expect(updated.tags).toEqual(['mid', 'zeta', 'b']);
        expect((await posts().getBySlug('post-1'))?.tags).toEqual(['mid', 'zeta', 'b']);
      });

      it('get and getBySlug return null, never throw, for a missing post', async () => {
        expect(await posts().get(ulid(404))).toBeNull();
        expect(await posts().getBySlug('missing')).toBeNull();
        await posts().create(newPost(1));
        expect(await posts().get(ulid(404))).toBeNull();
        expect(await posts().getBySlug('missing')).toBeNull();
      });

      it('getMany returns the posts of the ids that exist, whole as get returns them, in the order named, each once', async () => {
        expect(await posts().getMany([])).toEqual([]);
        await posts().create(newPost(1, { body: 'The first body.', tags: ['a'] }));
        await posts().create(newPost(2, { body: 'The second body.', status: 'published' }));
        await posts().create(newPost(3, { body: 'The third body.', excerpt: 'Third' }));
        const got = await posts().getMany([ulid(3), ulid(404), ulid(1), ulid(3), ulid(2)]);
        expect(got).toEqual([await posts().get(ulid(3)), await posts().get(ulid(1)), await posts().get(ulid(2))]);
        expect(got[0]?.body).toBe('The third body.');
        expect(await posts().getMany([ulid(404), ulid(405)])).toEqual([]);
        got[1]!.tags.push('mutated');
        expect((await posts().get(ulid(1)))?.tags).toEqual(['a']);
      });

      it('getMany reads at most 100 distinct ids at once: a RangeError beyond, however often they are named', async () => {
        const hundred = Array.from({ length: 100 }, (_, i) => ulid(i + 1));
        await posts().create(newPost(100));
        expect((await posts().getMany([...hundred, ...hundred])).map((post) => post.id)).toEqual([ulid(100)]);
        await expect(posts().getMany([...hundred, ulid(101)])).rejects.toThrow(RangeError);
      });

      it('returns copies: mutating an input or a result does not change the stored post', async () => {
        const input = newPost(1, { tags: ['a'], status: 'published' });
        const created = await posts().create(input);
        input.tags.push('input');
        input.createdAt.setUTCFullYear(1990);
        input.publishedAt!.setUTCFullYear(1990);
        created.tags.push('created');
        created.updatedAt.setUTCFullYear(1991);
        created.title = 'mutated';
        const got = (await posts().get(ulid(1)))!;
        got.tags.push('got');
        got.createdAt.setUTCFullYear(1992);
        got.publishedAt!.setUTCFullYear(1992);
        const listed = (await posts().list({ sort: SORT, limit: 1 })).items[0]!;
        listed.tags.push('listed');
        listed.updatedAt.setUTCFullYear(1993);
        expect(await posts().get(ulid(1))).toStrictEqual(newPostAsStored(1, { tags: ['a'], status: 'published' }));
        const changes = { tags: ['x', 'y'] };
        const at = minute(40);
        const updated = await posts().update(ulid(1), 1, changes, at);
        changes.tags.push('changes');
        at.setUTCFullYear(1994);
        updated.tags.push('updated');
        const stored = (await posts().get(ulid(1)))!;
        expect(stored.title).toBe('Post 1');
        expect(stored.tags).toEqual(['x', 'y']);
        expect(stored.createdAt.getTime()).toBe(minute(1).getTime());
        expect(stored.publishedAt?.getTime()).toBe(minute(1).getTime());
        expect(stored.updatedAt.getTime()).toBe(minute(40).getTime());
        expect(await posts().get(ulid(1))).not.toBe(await posts().get(ulid(1)));
      });
    });

    describe('cover image and SEO fields', () => {
      const NONE = { title: null, description: null, canonicalUrl: null };

      it('the cover image and the SEO fields come back as stored, by get, getBySlug, list summaries and walk', async () => {
        const input = publishedHello();
        await posts().create(input);
        const stored = (await posts().get(input.id))!;
        expect(stored.coverImage).toStrictEqual(input.coverImage);
        expect(stored.seo).toStrictEqual(input.seo);
        expect((await posts().getBySlug(input.slug))?.coverImage).toStrictEqual(input.coverImage);
        const listed = (await posts().list({ sort: SORT, limit: 10 })).items[0]!;
        expect([listed.coverImage, listed.seo]).toStrictEqual([input.coverImage, input.seo]);
        const walked = (await posts().walk({}, null, 10))[0]!;
        expect([walked.coverImage, walked.seo]).toStrictEqual([input.coverImage, input.seo]);
      });

      it('a post created without them has no cover (null) and NO_SEO, and an empty alt text is kept as empty', async () => {
        const { coverImage: _cover, seo: _seo, ...bare } = newPost(1);
        expect(await posts().create(bare)).toMatchObject({ coverImage: null, seo: NONE });
        expect(await posts().createRecorded({ ...newPost(2), coverImage: null, seo: NONE }, record(2))).toMatchObject({
          coverImage: null,
          seo: NONE,
        });
        await posts().create(newPost(3, { coverImage: { mediaId: COVER_ID, alt: '' }, seo: { ...NONE, title: 'Only a title' } }));
        expect(await posts().get(ulid(3))).toMatchObject({
          coverImage: { mediaId: COVER_ID, alt: '' },
          seo: { ...NONE, title: 'Only a title' },
        });
        expect(await store().revisions.get(ulid(2), 1)).toMatchObject({ coverImage: null, seo: NONE });
      });

      it('update changes them only when the changes name them: another cover, null removes it, seo replaced whole; a later change keeps them', async () => {
        const v1 = await posts().create(publishedHello());
        const other = { mediaId: OTHER_COVER_ID, alt: 'Another' };
        const v2 = await posts().update(v1.id, 1, { coverImage: other }, minute(41));
        expect(v2).toStrictEqual({ ...v1, coverImage: other, version: 2, updatedAt: minute(41) });
        const seo = { title: null, description: 'New description', canonicalUrl: null };
        const v3 = await posts().update(v1.id, 2, { seo }, minute(42));
        expect(v3).toStrictEqual({ ...v2, seo, version: 3, updatedAt: minute(42) });
        const v4 = await posts().update(v1.id, 3, { title: 'Renamed', tags: [] }, minute(43));
        expect([v4.coverImage, v4.seo]).toStrictEqual([other, seo]);
        const v5 = await posts().update(v1.id, 4, { coverImage: null, seo: NONE }, minute(44));
        expect([v5.coverImage, v5.seo]).toStrictEqual([null, NONE]);
        expect(await posts().get(v1.id)).toStrictEqual(v5);
      });

      it('the recorded writes carry them: each revision records the cover and SEO fields the write left, and deleteRecorded returns them as they were', async () => {
        const v1 = await posts().createRecorded(publishedHello(), record(1));
        expect(await store().revisions.get(v1.id, 1)).toMatchObject({ coverImage: v1.coverImage, seo: v1.seo });
        const other = { mediaId: OTHER_COVER_ID, alt: 'Another' };
        const seo = { ...v1.seo, canonicalUrl: null };
        const v2 = await posts().updateRecorded(v1, { coverImage: other, seo }, { ...record(2, minute(41)), type: 'updated' });
        expect([v2.coverImage, v2.seo]).toStrictEqual([other, seo]);
        expect(await store().revisions.get(v1.id, 2)).toStrictEqual(revisionOf(v2, { createdAt: minute(41) }));
        const v3 = await posts().updateRecorded(v2, { title: 'Kept cover' }, { ...record(3, minute(42)), type: 'updated' });
        expect(await store().revisions.get(v1.id, 3)).toMatchObject({ coverImage: other, seo });
        expect((await historyOf(v1.id)).revisions.map((r) => r.changed)).toStrictEqual([['title'], ['coverImage', 'seo'], []]);
        expect(await posts().deleteRecorded(v1.id, 3, record(4))).toStrictEqual(v3);
      });

      it('publishDue keeps the cover and SEO fields of the posts it publishes', async () => {
        const input = publishedHello({ status: 'draft', publishedAt: null, publishAt: minute(30) });
        await posts().create(input);
        const [published] = await posts().publishDue(minute(31), 10);
        expect([published?.coverImage, published?.seo]).toStrictEqual([input.coverImage, input.seo]);
      });
    });

    /** The history a recorded write stores: event `ulid(5000 + n)` by ADA at `at`. */
    const record = (n: number, at = minute(40)) => ({ actor: ADA, eventId: ulid(5000 + n), occurredAt: at });

    async function historyOf(id: string) {
      const revisions = await store().revisions.list(id, { limit: 10 });
      const events = await store().activity.list({ postId: id, limit: 10 });
      return { revisions: revisions.items, events: events.items };
    }

    describe('createRecorded: a post with the start of its history', () => {
      it('createRecorded stores the post as create does, its first revision and its created event', async () => {
        const input = publishedHello({ title: 'Hello: "world" #1' });
        const occurredAt = new Date('2026-03-04T05:06:07.999Z');
        const created = await posts().createRecorded(input, record(1, occurredAt));
        const expected: Post = { ...input, version: 1, updatedAt: new Date('2026-03-04T05:06:07.891Z') };
        expect(created).toStrictEqual(expected);
        expect(await posts().get(input.id)).toStrictEqual(expected);
        expect(await store().revisions.get(input.id, 1)).toStrictEqual(revisionOf(expected, { createdAt: occurredAt }));
        const { revisions, events } = await historyOf(input.id);
        expect(revisions.map((r) => r.version)).toStrictEqual([1]);
        expect(events).toStrictEqual([
          {
            id: ulid(5001),
            type: 'created',
            postId: input.id,
            postTitle: 'Hello: "world" #1',
            postVersion: 1,
            actor: ADA,
            occurredAt,
          },
        ]);
      });

      it("createRecorded makes the first revision at record.occurredAt, not at the post's own dates (an imported post of 1999)", async () => {
        const old = new Date('1999-02-03T04:05:06.789Z');
        const occurredAt = new Date('2026-03-04T05:06:07.999Z');
        const created = await posts().createRecorded(
          newPost(1, { createdAt: old, updatedAt: new Date('1999-03-01T00:00:00.001Z'), publishedAt: old, status: 'published' }),
          record(1, occurredAt),
        );
        expect(created).toMatchObject({ createdAt: old, updatedAt: new Date('1999-03-01T00:00:00.001Z'), publishedAt: old });
        expect((await store().revisions.get(ulid(1), 1))?.createdAt).toStrictEqual(occurredAt);
        const { revisions, events } = await historyOf(ulid(1));
        expect(revisions.map((r) => r.createdAt)).toStrictEqual([occurredAt]);
        expect(events.map((e) => e.occurredAt)).toStrictEqual([occurredAt]);
      });

      it('createRecorded with a taken slug throws SlugTakenError and stores no post, revision or event', async () => {
        const first = await posts().createRecorded(newPost(1, { slug: 'taken', title: 'First' }), record(1));
        const error = await rejectionOf(posts().createRecorded(newPost(2, { slug: 'taken', title: 'Second' }), record(2)));
        expect(error).toBeInstanceOf(SlugTakenError);
        expect((error as SlugTakenError).slug).toBe('taken');
        expect(await posts().get(ulid(2))).toBeNull();
        expect(await historyOf(ulid(2))).toStrictEqual({ revisions: [], events: [] });
        expect((await store().activity.list({ limit: 10 })).items.map((e) => e.id)).toStrictEqual([ulid(5001)]);
        expect(await posts().get(first.id)).toStrictEqual(first);
      });

      it('createRecorded with a duplicate id throws DuplicateIdError and leaves the existing post and its history alone', async () => {
        const original = await posts().createRecorded(newPost(1, { slug: 'original', title: 'Original' }), record(1));
        const before = await historyOf(original.id);
        const error = await rejectionOf(posts().createRecorded(newPost(1, { slug: 'other', title: 'Other' }), record(2)));
        expect(error).toBeInstanceOf(DuplicateIdError);
        expect((error as DuplicateIdError).id).toBe(ulid(1));
        expect(await posts().getBySlug('other')).toBeNull();
        expect(await posts().get(original.id)).toStrictEqual(original);
        expect(await historyOf(original.id)).toStrictEqual(before);
      });

      it('createRecorded with an event id already in the log throws DuplicateIdError and stores no post', async () => {
        await posts().createRecorded(newPost(1), record(1));
        const error = await rejectionOf(posts().createRecorded(newPost(2), record(1)));
        expect(error).toBeInstanceOf(DuplicateIdError);
        expect((error as DuplicateIdError).id).toBe(ulid(5001));
        expect(await posts().get(ulid(2))).toBeNull();
        expect(await historyOf(ulid(2))).toStrictEqual({ revisions: [], events: [] });
      });

      it('createRecorded inside a unit of work commits with it and is undone with it', async () => {
        await store().unitOfWork.run((repos) => repos.posts.createRecorded(newPost(1), record(1)));
        const failure = new Error('after the create');
        const error = await rejectionOf(
          store().unitOfWork.run(async (repos) => {
            await repos.posts.createRecorded(newPost(2), record(2));
            throw failure;
          }),
        );
        expect(error).toBe(failure);
        expect((await historyOf(ulid(1))).revisions).toHaveLength(1);
        expect(await posts().get(ulid(2))).toBeNull();
        expect(await historyOf(ulid(2))).toStrictEqual({ revisions: [], events: [] });
      });

      it('a taken slug inside a unit of work leaves it usable: the next slug commits with the rest', async () => {
        await posts().create(newPost(1, { slug: 'taken' }));
        const created = await store().unitOfWork.run(async (repos) => {
          const error = await rejectionOf(repos.posts.createRecorded(newPost(2, { slug: 'taken' }), record(2)));
          expect(error).toBeInstanceOf(SlugTakenError);
          return repos.posts.createRecorded(newPost(2, { slug: 'taken-2' }), record(3));
        });
        expect(created.slug).toBe('taken-2');
        expect((await historyOf(ulid(2))).events.map((e) => e.id)).toStrictEqual([ulid(5003)]);
      });
    });

    describe('updateRecorded and deleteRecorded: a change with its history', () => {
      /** Post 1 created with its history (event 5001 at minute 40): the post as stored. */
      async function recordedPost(overrides: Parameters<typeof newPost>[1] = {}): Promise<Post> {
        return posts().createRecorded(newPost(1, { title: 'One', excerpt: 'first excerpt', body: 'first body', ...overrides }), record(1));
      }

      const update = (n: number, at = minute(41)) => ({ ...record(n, at), type: 'updated' as const });

      it('updateRecorded stores the changes as update does (updatedAt = record.occurredAt, version + 1), a revision of the updated post and an event of record.type', async () => {
        const before = await recordedPost();
        const at = new Date('2026-03-04T06:07:08.009Z');
        const after = await posts().updateRecorded(
          before,
          { title: 'Two', tags: ['t'], status: 'published', publishedAt: at },
          { ...record(2, at), type: 'published' },
        );
        const expected: Post = { ...before, title: 'Two', tags: ['t'], status: 'published', publishedAt: at, version: 2, updatedAt: at };
        expect(after).toStrictEqual(expected);
        expect(await posts().get(before.id)).toStrictEqual(expected);
        expect(await store().revisions.get(before.id, 2)).toStrictEqual(revisionOf(expected, { createdAt: at }));
        const { revisions, events } = await historyOf(before.id);
        expect(revisions.map((r) => r.version)).toStrictEqual([2, 1]);
        expect(events[0]).toStrictEqual({
          id: ulid(5002),
          type: 'published',
          postId: before.id,
          postTitle: 'Two',
          postVersion: 2,
          actor: ADA,
          occurredAt: at,
        });
      });

      it('updateRecorded takes the fields the changes keep from before: q finds the post by its new title and its kept excerpt and body', async () => {
        const before = await recordedPost();
        const after = await posts().updateRecorded(before, { title: 'Renamed' }, update(2));
        expect(after).toMatchObject({ title: 'Renamed', excerpt: 'first excerpt', body: 'first body' });
        expect(await ids({ q: 'renamed' })).toStrictEqual([before.id]);
        expect(await ids({ q: '"first excerpt"' })).toStrictEqual([before.id]);
        expect(await ids({ q: '"first body"' })).toStrictEqual([before.id]);
        expect(await ids({ q: 'one ' })).toStrictEqual([]);
        await posts().updateRecorded(after, { body: 'second body' }, update(3, minute(42)));
        expect(await ids({ q: 'renamed' })).toStrictEqual([before.id]);
        expect(await ids({ q: '"first body"' })).toStrictEqual([]);
        expect(await ids({ q: '"second body"' })).toStrictEqual([before.id]);
      });

      it('updateRecorded of a missing post throws NotFoundError and records nothing', async () => {
        const before = await recordedPost();
        await posts().deleteRecorded(before.id, 1, record(2));
        const error = await rejectionOf(posts().updateRecorded(before, { title: 'x' }, update(3)));
        expect(error).toBeInstanceOf(NotFoundError);
        expect(await posts().get(before.id)).toBeNull();
        expect((await historyOf(before.id)).events.map((e) => e.type)).toStrictEqual(['deleted', 'created']);
      });

      it('updateRecorded with a stale before throws VersionConflictError with the actual version and changes and records nothing', async () => {
        const before = await recordedPost();
        const current = await posts().updateRecorded(before, { title: 'v2' }, update(2));
        const history = await historyOf(before.id);
        const error = await rejectionOf(posts().updateRecorded(before, { title: 'lost', slug: 'lost' }, update(3)));
        expect(error).toBeInstanceOf(VersionConflictError);
        expect((error as VersionConflictError).expected).toBe(1);
        expect((error as VersionConflictError).actual).toBe(2);
        expect(await posts().get(before.id)).toStrictEqual(current);
        expect(await posts().getBySlug('lost')).toBeNull();
        expect(await historyOf(before.id)).toStrictEqual(history);
      });

      it('updateRecorded with a slug another post holds throws SlugTakenError and changes and records nothing', async () => {
        await posts().create(newPost(2, { slug: 'taken' }));
        const before = await recordedPost();
        const history = await historyOf(before.id);
        const error = await rejectionOf(posts().updateRecorded(before, { slug: 'taken', title: 'x' }, update(3)));
        expect(error).toBeInstanceOf(SlugTakenError);
        expect((error as SlugTakenError).slug).toBe('taken');
        expect(await posts().get(before.id)).toStrictEqual(before);
        expect(await historyOf(before.id)).toStrictEqual(history);
      });

      it('updateRecorded with an event id already in the log throws DuplicateIdError and changes nothing', async () => {
        const before = await recordedPost();
        const history = await historyOf(before.id);
        const error = await rejectionOf(posts().updateRecorded(before, { title: 'x' }, update(1)));
        expect(error).toBeInstanceOf(DuplicateIdError);
        expect((error as DuplicateIdError).id).toBe(ulid(5001));
        expect(await posts().get(before.id)).toStrictEqual(before);
        expect(await historyOf(before.id)).toStrictEqual(history);
      });

      it('of N concurrent updateRecorded calls with the same before exactly one succeeds, leaving one revision and one event (N = 10)', async () => {
        const before = await recordedPost();
        const results = await Promise.allSettled(
          times(10, (i) => posts().updateRecorded(before, { title: `writer ${i}` }, update(10 + i))),
        );
        const fulfilled = results.filter((r): r is PromiseFulfilledResult<Post> => r.status === 'fulfilled');
        expect(fulfilled).toHaveLength(1);
        for (const r of results) {
          if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(VersionConflictError);
        }
        expect(await posts().get(before.id)).toStrictEqual(fulfilled[0]!.value);
        const { revisions, events } = await historyOf(before.id);
        expect(revisions.map((r) => [r.version, r.title])).toStrictEqual([
          [2, fulfilled[0]!.value.title],
          [1, 'One'],
        ]);
        expect(events.map((e) => e.type)).toStrictEqual(['updated', 'created']);
      });

      it('updateRecorded inside a unit of work commits with it and is undone with it; a taken slug leaves the unit usable', async () => {
        await posts().create(newPost(2, { slug: 'taken' }));
        const before = await recordedPost();
        const failure = new Error('after the update');
        const error = await rejectionOf(
          store().unitOfWork.run(async (repos) => {
            await repos.posts.updateRecorded(before, { title: 'undone' }, update(3));
            throw failure;
          }),
        );
        expect(error).toBe(failure);
        expect(await posts().get(before.id)).toStrictEqual(before);
        expect((await historyOf(before.id)).events).toHaveLength(1);
        const after = await store().unitOfWork.run(async (repos) => {
          expect(await rejectionOf(repos.posts.updateRecorded(before, { slug: 'taken' }, update(4)))).toBeInstanceOf(SlugTakenError);
          return repos.posts.updateRecorded(before, { slug: 'taken-2' }, update(5));
        });
        expect(after).toMatchObject({ slug: 'taken-2', version: 2 });
        expect((await historyOf(before.id)).events.map((e) => e.id)).toStrictEqual([ulid(5005), ulid(5001)]);
      });

      it('deleteRecorded removes the post and every revision of it, appends a deleted event with the title and version it had, and returns it as it was', async () => {
        const before = await recordedPost();
        const v2 = await posts().updateRecorded(before, { title: 'Last' }, update(2));
        const at = minute(50);
        const deleted = await posts().deleteRecorded(before.id, 2, record(3, at));
        expect(deleted).toStrictEqual(v2);
        expect(await posts().get(before.id)).toBeNull();
        expect(await posts().getBySlug(before.slug)).toBeNull();
        const { revisions, events } = await historyOf(before.id);
        expect(revisions).toStrictEqual([]);
        expect(events[0]).toStrictEqual({
          id: ulid(5003),
          type: 'deleted',
          postId: before.id,
          postTitle: 'Last',
          postVersion: 2,
          actor: ADA,
          occurredAt: at,
        });
        expect(events.map((e) => e.type)).toStrictEqual(['deleted', 'updated', 'created']);
      });

      it('deleteRecorded of a missing post throws NotFoundError, with a stale version VersionConflictError with the actual version; neither changes anything', async () => {
        expect(await rejectionOf(posts().deleteRecorded(ulid(404), 1, record(9)))).toBeInstanceOf(NotFoundError);
        expect(await historyOf(ulid(404))).toStrictEqual({ revisions: [], events: [] });
        const before = await recordedPost();
        const v2 = await posts().updateRecorded(before, { title: 'v2' }, update(2));
        const history = await historyOf(before.id);
        const error = await rejectionOf(posts().deleteRecorded(before.id, 1, record(3)));
        expect(error).toBeInstanceOf(VersionConflictError);
        expect((error as VersionConflictError).actual).toBe(2);
        expect(await posts().get(before.id)).toStrictEqual(v2);
        expect(await historyOf(before.id)).toStrictEqual(history);
      });

      it('deleteRecorded with an event id already in the log throws DuplicateIdError and keeps the post and its revisions', async () => {
        const before = await recordedPost();
        const history = await historyOf(before.id);
        const error = await rejectionOf(posts().deleteRecorded(before.id, 1, record(1)));
        expect(error).toBeInstanceOf(DuplicateIdError);
        expect(await posts().get(before.id)).toStrictEqual(before);
        expect(await historyOf(before.id)).toStrictEqual(history);
      });

      it('deleteRecorded inside a unit of work is undone with it', async () => {
        const before = await recordedPost();
        const history = await historyOf(before.id);
        const failure = new Error('after the delete');
        const error = await rejectionOf(
          store().unitOfWork.run(async (repos) => {
            await repos.posts.deleteRecorded(before.id, 1, record(2));
            throw failure;
          }),
        );
        expect(error).toBe(failure);
        expect(await posts().get(before.id)).toStrictEqual(before);
        expect(await historyOf(before.id)).toStrictEqual(history);
      });
    });

    describe('updateRecorded: autosave bursts', () => {
      const BEA: Actor = { id: ulid(9001), name: 'Bea' };
      const at = (ms: number) => new Date(minute(41).getTime() + ms);
      /** An autosave (event 5000 + n) at `at`, by `actor`. */
      const autosave = (n: number, when: Date, actor: Actor = ADA) => ({
        actor,
        eventId: ulid(5000 + n),
        occurredAt: when,
        type: 'updated' as const,
        autosave: true,
      });
      const manual = (n: number, when: Date) => ({ ...record(n, when), type: 'updated' as const });

      /** Post 1 (body 'B1', minute 40) and a burst of autosaves, each by `actor` with its body and time. */
      async function burst(saves: { body: string; at: Date; actor?: Actor }[], first?: Post): Promise<Post> {
        let post = first ?? (await posts().createRecorded(newPost(1, { title: 'One', body: 'B1' }), record(1)));
        for (const [i, save] of saves.entries())
          post = await posts().updateRecorded(post, { body: save.body }, autosave(10 + post.version + i, save.at, save.actor));
        return post;
      }

      const listed = async (id: string) =>
        (await store().revisions.list(id, { limit: 10 })).items.map((r) => [
          r.version,
          r.autosaveSince?.getTime() ?? null,
          r.actor.id,
          r.changed,
        ]);

      it("an autosave's revision is an autosave burst's (autosaveSince its occurredAt), appended with its event", async () => {
        const post = await burst([{ body: 'B2', at: at(0) }]);
        expect(post).toMatchObject({ version: 2, body: 'B2', updatedAt: at(0) });
        expect(await store().revisions.get(post.id, 2)).toStrictEqual(revisionOf(post, { createdAt: at(0), autosaveSince: at(0) }));
        expect(await listed(post.id)).toStrictEqual([
          [2, at(0).getTime(), ADA.id, ['body']],
          [1, null, ADA.id, []],
        ]);
        expect((await historyOf(post.id)).events.map((e) => [e.type, e.postVersion])).toStrictEqual([
          ['updated', 2],
          ['created', 1],
        ]);
      });

      it("an autosave by the same user within AUTOSAVE_BURST_MS of its burst's start replaces the burst's revision: one revision at the new version, autosaveSince kept, no event appended", async () => {
        const post = await burst([
          { body: 'B2', at: at(0) },
          { body: 'B3', at: at(60_000) },
          { body: 'B4', at: at(AUTOSAVE_BURST_MS) },
        ]);
        expect(post).toMatchObject({ version: 4, body: 'B4', updatedAt: at(AUTOSAVE_BURST_MS) });
        expect(await store().revisions.get(post.id, 4)).toStrictEqual(
          revisionOf(post, { createdAt: at(AUTOSAVE_BURST_MS), autosaveSince: at(0) }),
        );
        expect(await store().revisions.get(post.id, 2)).toBeNull();
        expect(await store().revisions.get(post.id, 3)).toBeNull();
        expect(await listed(post.id)).toStrictEqual([
          [4, at(0).getTime(), ADA.id, ['body']],
          [1, null, ADA.id, []],
        ]);
        expect((await historyOf(post.id)).events.map((e) => [e.type, e.postVersion])).toStrictEqual([
          ['updated', 2],
          ['created', 1],
        ]);
      });

      it('an autosave past AUTOSAVE_BURST_MS since its burst began, or by another user, begins a burst of its own', async () => {
        const post = await burst([
          { body: 'B2', at: at(0) },
          { body: 'B3', at: at(AUTOSAVE_BURST_MS + 1) },
          { body: 'B4', at: at(AUTOSAVE_BURST_MS + 2), actor: BEA },
          { body: 'B5', at: at(AUTOSAVE_BURST_MS + 3), actor: BEA },
        ]);
        expect(await listed(post.id)).toStrictEqual([
          [5, at(AUTOSAVE_BURST_MS + 2).getTime(), BEA.id, ['body']],
          [3, at(AUTOSAVE_BURST_MS + 1).getTime(), ADA.id, ['body']],
          [2, at(0).getTime(), ADA.id, ['body']],
          [1, null, ADA.id, []],
        ]);
        expect((await historyOf(post.id)).events.map((e) => e.postVersion)).toStrictEqual([4, 3, 2, 1]);
        expect((await store().revisions.get(post.id, 5))?.body).toBe('B5');
        expect((await store().revisions.get(post.id, 3))?.body).toBe('B3');
        expect((await store().revisions.get(post.id, 2))?.body).toBe('B2');
      });

      it('a write without autosave after a burst appends its own revision and event, and the next autosave begins a new burst', async () => {
        const autosaved = await burst([
          { body: 'B2', at: at(0) },
          { body: 'B3', at: at(1_000) },
        ]);
        const saved = await posts().updateRecorded(autosaved, { title: 'Saved' }, manual(50, at(2_000)));
        const post = await burst([{ body: 'B4', at: at(3_000) }], saved);
        expect(await listed(post.id)).toStrictEqual([
          [5, at(3_000).getTime(), ADA.id, ['body']],
          [4, null, ADA.id, ['title']],
          [3, at(0).getTime(), ADA.id, ['body']],
          [1, null, ADA.id, []],
        ]);
        expect((await historyOf(post.id)).events.map((e) => e.postVersion)).toStrictEqual([5, 4, 2, 1]);
      });

      it('the revisions before and after a burst keep their own bodies, whatever the burst changed', async () => {
        const created = await posts().createRecorded(newPost(1, { title: 'One', body: 'B1' }), record(1));
        const renamed = await posts().updateRecorded(created, { title: 'Renamed' }, manual(2, at(0)));
        const autosaved = await burst(
          [
            { body: 'B3', at: at(1_000) },
            { body: 'B4', at: at(2_000) },
            { body: 'B5', at: at(3_000) },
          ],
          renamed,
        );
        const titled = await posts().updateRecorded(autosaved, { title: 'Titled' }, manual(60, at(4_000)));
        await posts().updateRecorded(titled, { body: 'B7' }, manual(61, at(5_000)));
        const bodies = await Promise.all([1, 2, 5, 6, 7].map(async (v) => (await store().revisions.get(created.id, v))?.body));
        expect(bodies).toStrictEqual(['B1', 'B1', 'B5', 'B5', 'B7']);
        expect(await listed(created.id)).toStrictEqual([
          [7, null, ADA.id, ['body']],
          [6, null, ADA.id, ['title']],
          [5, at(1_000).getTime(), ADA.id, ['body']],
          [2, null, ADA.id, ['title']],
          [1, null, ADA.id, []],
        ]);
      });

      it('a burst that changes no body keeps the bodies too: a title autosaved twice', async () => {
        const created = await posts().createRecorded(newPost(1, { title: 'One', body: 'B1' }), record(1));
        const first = await posts().updateRecorded(created, { title: 'T2' }, autosave(2, at(0)));
        const second = await posts().updateRecorded(first, { title: 'T3' }, autosave(3, at(1_000)));
        await posts().updateRecorded(second, { body: 'B4' }, manual(4, at(2_000)));
        expect((await store().revisions.get(created.id, 1))?.body).toBe('B1');
        expect(await store().revisions.get(created.id, 3)).toMatchObject({ title: 'T3', body: 'B1', autosaveSince: at(0) });
        expect((await store().revisions.get(created.id, 4))?.body).toBe('B4');
      });

      it('an autosave that continues its burst appends no event, so its event id is not checked; one that begins a burst throws DuplicateIdError for an id in the log', async () => {
        const first = await burst([{ body: 'B2', at: at(0) }]);
        const taken = { ...autosave(1, at(1_000)) };
        const continued = await posts().updateRecorded(first, { body: 'B3' }, taken);
        expect(continued).toMatchObject({ version: 3, body: 'B3' });
        const error = await rejectionOf(posts().updateRecorded(continued, { body: 'B4' }, autosave(1, at(1_000), BEA)));
        expect(error).toBeInstanceOf(DuplicateIdError);
        expect(await posts().get(first.id)).toStrictEqual(continued);
      });

      it('of N concurrent autosaves with the same before exactly one succeeds, leaving the one burst revision (N = 5)', async () => {
        const first = await burst([{ body: 'B2', at: at(0) }]);
        const results = await Promise.allSettled(
          times(5, (i) => posts().updateRecorded(first, { body: `writer ${i}` }, autosave(20 + i, at(1_000)))),
        );
        const fulfilled = results.filter((r): r is PromiseFulfilledResult<Post> => r.status === 'fulfilled');
        expect(fulfilled).toHaveLength(1);
        for (const r of results) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(VersionConflictError);
        expect(await listed(first.id)).toStrictEqual([
          [3, at(0).getTime(), ADA.id, ['body']],
          [1, null, ADA.id, []],
        ]);
        expect((await store().revisions.get(first.id, 3))?.body).toBe(fulfilled[0]!.value.body);
      });

      it("an autosave inside a unit of work that fails leaves the burst's revision where it was", async () => {
        const first = await burst([{ body: 'B2', at: at(0) }]);
        const history = await historyOf(first.id);
        const failure = new Error('after the autosave');
        const error = await rejectionOf(
          store().unitOfWork.run(async (repos) => {
            await repos.posts.updateRecorded(first, { body: 'undone' }, autosave(30, at(1_000)));
            throw failure;
          }),
        );
        expect(error).toBe(failure);
        expect(await historyOf(first.id)).toStrictEqual(history);
        expect((await store().revisions.get(first.id, 2))?.body).toBe('B2');
      });
    });

    describe('writes guarded by a version', () => {
      it('update applies the changes, sets updatedAt = at and bumps the version by exactly one', async () => {
        await posts().create(newPost(1, { title: 'One', body: 'old', wordCount: 1 }));
        const v2 = await posts().update(
          ulid(1),
          1,
          {
            title: 'Two',
            slug: 'two',
            excerpt: 'e',
            body: 'new body',
            tags: ['t'],
            status: 'published',
            wordCount: 2,
            publishedAt: minute(20),
          },
          minute(21),
        );
        expect(v2).toStrictEqual({
          id: ulid(1),
          title: 'Two',
          slug: 'two',
          excerpt: 'e',
          body: 'new body',
          tags: ['t'],
          status: 'published',
          version: 2,
          wordCount: 2,
          createdAt: minute(1),
          updatedAt: minute(21),
          publishedAt: minute(20),
          publishAt: null,
          coverImage: null,
          seo: { title: null, description: null, canonicalUrl: null },
        });
        expect(await posts().get(ulid(1))).toStrictEqual(v2);
        const v3 = await posts().update(ulid(1), 2, { title: 'Three' }, minute(22));
        const v4 = await posts().update(ulid(1), 3, {}, minute(23));
        expect([v3.version, v4.version]).toEqual([3, 4]);
        expect((await posts().get(ulid(1)))?.version).toBe(4);
      });

      it('update: absent fields keep their value (a field set to undefined is absent)', async () => {
        const created = await posts().create(newPost(1, { excerpt: 'ex', body: 'b', tags: ['k'], status: 'published', wordCount: 7 }));
        const updated = await posts().update(ulid(1), 1, { title: 'New', body: undefined, publishedAt: undefined }, minute(30));
        expect(updated).toStrictEqual({ ...created, title: 'New', version: 2, updatedAt: minute(30) });
      });

      it('update sets publishedAt to null when asked', async () => {
        await posts().create(newPost(1, { status: 'published' }));
        const updated = await posts().update(ulid(1), 1, { publishedAt: null, status: 'draft' }, minute(30));
        expect(updated.publishedAt).toBeNull();
        expect((await posts().get(ulid(1)))?.publishedAt).toBeNull();
      });

      it('update sets and clears publishAt at millisecond precision', async () => {
        await posts().create(newPost(1, { publishAt: new Date('2026-03-04T05:06:07.009Z') }));
        expect((await posts().get(ulid(1)))?.publishAt).toStrictEqual(new Date('2026-03-04T05:06:07.009Z'));
        const rescheduled = await posts().update(ulid(1), 1, { publishAt: new Date('2027-01-02T03:04:05.678Z') }, minute(30));
        expect(rescheduled.publishAt).toStrictEqual(new Date('2027-01-02T03:04:05.678Z'));
        expect((await posts().getBySlug('post-1'))?.publishAt).toStrictEqual(new Date('2027-01-02T03:04:05.678Z'));
        const cleared = await posts().update(ulid(1), 2, { publishAt: null }, minute(31));
        expect(cleared.publishAt).toBeNull();
        expect((await posts().get(ulid(1)))?.publishAt).toBeNull();
        expect((await posts().list({ sort: SORT, limit: 10 })).items[0]?.publishAt).toBeNull();
      });

      it('update of a missing post throws NotFoundError', async () => {
        const error = await rejectionOf(posts().update(ulid(404), 1, { title: 'x' }, minute(1)));
        expect(error).toBeInstanceOf(NotFoundError);
        expect(await posts().get(ulid(404))).toBeNull();
      });

      it('update with a version other than expectedVersion throws VersionConflictError with the actual version and changes nothing', async () => {
        await posts().create(newPost(1));
        await posts().update(ulid(1), 1, { title: 'v2' }, minute(30));
        const before = await posts().get(ulid(1));
        for (const stale of [1, 3, 0]) {
          const error = await rejectionOf(posts().update(ulid(1), stale, { title: 'lost', slug: 'lost' }, minute(31)));
          expect(error).toBeInstanceOf(VersionConflictError);
          expect((error as VersionConflictError).expected).toBe(stale);
          expect((error as VersionConflictError).actual).toBe(2);
        }
        expect(await posts().get(ulid(1))).toStrictEqual(before);
        expect(await posts().getBySlug('lost')).toBeNull();
      });

      it('of N concurrent updates with the same expected version exactly one succeeds (N = 20)', async () => {
        await posts().create(newPost(1));
        const results = await Promise.allSettled(times(20, (i) => posts().update(ulid(1), 1, { title: `writer ${i}` }, minute(30))));
        const fulfilled = results.filter((r) => r.status === 'fulfilled');
        const rejected = results.filter((r) => r.status === 'rejected');
        expect(fulfilled).toHaveLength(1);
        expect(rejected).toHaveLength(19);
        for (const r of rejected) {
          expect(r.reason).toBeInstanceOf(VersionConflictError);
          expect((r.reason as VersionConflictError).actual).toBe(2);
        }
        const winner = (fulfilled[0] as PromiseFulfilledResult<Post>).value;
        const stored = await posts().get(ulid(1));
        expect(stored?.version).toBe(2);
        expect(stored?.title).toBe(winner.title);
      });

      it('delete removes the post and returns it as it was', async () => {
        await posts().create(newPost(1, { body: 'the body', tags: ['a', 'b'] }));
        const before = await posts().update(ulid(1), 1, { title: 'Last' }, minute(30));
        const deleted = await posts().delete(ulid(1), 2);
        expect(deleted).toStrictEqual(before);
        expect(await posts().get(ulid(1))).toBeNull();
        expect(await posts().getBySlug('post-1')).toBeNull();
        expect(await posts().list({ sort: SORT, limit: 10 })).toStrictEqual({
          items: [],
          nextCursor: null,
          total: 0,
          totalExact: true,
        });
      });

      it('delete of a missing post throws NotFoundError', async () => {
        expect(await rejectionOf(posts().delete(ulid(404), 1))).toBeInstanceOf(NotFoundError);
        await posts().create(newPost(1));
        await posts().delete(ulid(1), 1);
        expect(await rejectionOf(posts().delete(ulid(1), 1))).toBeInstanceOf(NotFoundError);
      });

      it('delete with a stale version throws VersionConflictError with the actual version and keeps the post', async () => {
        await posts().create(newPost(1));
        await posts().update(ulid(1), 1, {}, minute(30));
        const before = await posts().get(ulid(1));
        const error = await rejectionOf(posts().delete(ulid(1), 1));
        expect(error).toBeInstanceOf(VersionConflictError);
        expect((error as VersionConflictError).actual).toBe(2);
        expect(await posts().get(ulid(1))).toStrictEqual(before);
      });

      it('of N concurrent deletes with the same expected version exactly one succeeds (N = 10)', async () => {
        await posts().create(newPost(1));
        const results = await Promise.allSettled(times(10, () => posts().delete(ulid(1), 1)));
        expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
        for (const r of results) {
          if (r.status === 'rejected') {
            expect(r.reason instanceof NotFoundError || r.reason instanceof VersionConflictError).toBe(true);
          }
        }
        expect(await posts().get(ulid(1))).toBeNull();
      });
    });

    describe('listing: filters', () => {
      it('status keeps posts with any of the given statuses; absent or empty means every status', async () => {
        await posts().create(newPost(1, { status: 'draft' }));
        await posts().create(newPost(2, { status: 'published' }));
        await posts().create(newPost(3, { status: 'archived' }));
        await posts().create(newPost(4, { status: 'published' }));
        expect(await ids({ status: ['published'] })).toEqual([ulid(2), ulid(4)]);
        expect(await ids({ status: ['archived', 'draft'] })).toEqual([ulid(1), ulid(3)]);
        expect(await ids({ status: [] })).toEqual([ulid(1), ulid(2), ulid(3), ulid(4)]);
        expect(await ids({})).toEqual([ulid(1), ulid(2), ulid(3), ulid(4)]);
      });

      it('scheduled: true keeps the posts with a publishAt (scheduled drafts), false those without; every filter given must hold', async () => {
        await posts().create(newPost(1, { status: 'draft', publishAt: minute(40) }));
        await posts().create(newPost(2, { status: 'draft' }));
        await posts().create(newPost(3, { status: 'published' }));
        await posts().create(newPost(4, { status: 'draft', publishAt: minute(30), tags: ['x'] }));
        await posts().create(newPost(5, { status: 'archived' }));
        expect(await ids({ scheduled: true })).toEqual([ulid(1), ulid(4)]);
        expect(await ids({ scheduled: false })).toEqual([ulid(2), ulid(3), ulid(5)]);
        expect(await ids({ scheduled: false, status: ['draft'] })).toEqual([ulid(2)]);
        expect(await ids({ scheduled: true, status: ['published', 'archived'] })).toEqual([]);
        expect(await ids({ scheduled: true, tag: 'x' })).toEqual([ulid(4)]);
        const page = await posts().list({ sort: SORT, limit: 1, scheduled: true });
        expect([page.total, page.totalExact]).toEqual([2, true]);
        await posts().create(newPost(6, { status: 'draft', tags: ['x'] }));
        const tagged = async (scheduled: boolean) =>
          (await posts().list({ sort: SORT, limit: 1, scheduled, tag: 'x', status: ['draft'] })).total;
        expect([await tagged(true), await tagged(false)]).toEqual([1, 1]);
      });

      it('scheduled follows the schedule: a draft unscheduled or published by publishDue leaves scheduled=true', async () => {
        await posts().create(newPost(1, { status: 'draft', publishAt: minute(10) }));
        await posts().create(newPost(2, { status: 'draft', publishAt: minute(50) }));
        await posts().create(newPost(3, { status: 'draft', publishAt: minute(55) }));
        await posts().update(ulid(3), 1, { publishAt: null }, minute(20));
        await posts().publishDue(minute(30), 10);
        expect(await ids({ scheduled: true })).toEqual([ulid(2)]);
        expect(await ids({ scheduled: false })).toEqual([ulid(1), ulid(3)]);
      });

      it('tag keeps posts carrying exactly that tag', async () => {
        await posts().create(newPost(1, { tags: ['js'] }));
        await posts().create(newPost(2, { tags: ['javascript', 'x'] }));
        await posts().create(newPost(3, { tags: ['x', 'js'] }));
        await posts().create(newPost(4, { tags: ['js-tips'] }));
        await posts().create(newPost(5, { tags: ['JS'] }));
        expect(await ids({ tag: 'js' })).toEqual([ulid(1), ulid(3)]);
        expect(await ids({ tag: 'j' })).toEqual([]);
      });

      async function seedSearch(): Promise<void> {
        const far = 'filler '.repeat(300);
        const rows: Array<[number, string, string, string, PostStatus, string[]]> = [
          [1, 'The NeEdLe', '', '', 'published', ['hay']],
          [2, 'Title', 'a NEEDLE here', '', 'draft', ['hay']],
          [3, 'Title', '', 'body with a needle', 'archived', []],
          [4, 'Summer', 'été à Paris', '', 'published', ['travel']],
          [5, 'ÉTÉ festival', '', '', 'draft', ['travel']],
          [6, 'Discount', '', 'Save 100% today', 'published', ['travel']],
          [7, 'Running', '', `postgres ${far} in production`, 'published', []],
          [8, 'snake_case names', '', '', 'published', ['code']],
          [9, 'snakeXcase names', '', '', 'draft', ['code']],
          [10, 'Windows', '', 'C:\\Users\\ada, send an e-mail', 'draft', []],
          [11, 'Nothing', 'nothing', 'nothing', 'published', ['hay']],
          [12, 'Straße', '', 'production line', 'published', []],
        ];
        for (const [n, title, excerpt, body, status, tags] of rows) {
          await posts().create(newPost(n, { title, excerpt, body, status, tags }));
        }
      }

      it('q: words in any order anywhere, all required: two words far apart, in either order, find the post', async () => {
        await seedSearch();
        expect(await ids({ q: 'postgres production' })).toEqual([ulid(7)]);
        expect(await ids({ q: 'production postgres' })).toEqual([ulid(7)]);
        expect(await ids({ q: 'production' })).toEqual([ulid(7), ulid(12)]);
        expect(await ids({ q: 'production mysql' })).toEqual([]);
      });

      it('q: "quoted words" stand adjacent and in order, never across two fields', async () => {
        await seedSearch();
        expect(await ids({ q: '"in production"' })).toEqual([ulid(7)]);
        expect(await ids({ q: '"production in"' })).toEqual([]);
        expect(await ids({ q: '"running postgres"' })).toEqual([]);
        expect(await ids({ q: '"a needle"' })).toEqual([ulid(2), ulid(3)]);
      });

      it('q: -word or -"phrase" excludes the posts containing it', async () => {
        await seedSearch();
        expect(await ids({ q: 'needle -title' })).toEqual([ulid(1)]);
        expect(await ids({ q: 'needle -"a needle"' })).toEqual([ulid(1)]);
        expect(await ids({ q: '-needle' })).toEqual([]);
      });

      it('q: or takes either, binding tighter than the implicit AND', async () => {
        await seedSearch();
        expect(await ids({ q: 'discount or festival' })).toEqual([ulid(5), ulid(6)]);
        expect(await ids({ q: 'title needle or nothing' })).toEqual([ulid(2), ulid(3)]);
      });

      it('q: the last word matches as a prefix unless q ends with a space', async () => {
        await seedSearch();
        expect(await ids({ q: 'postgres produc' })).toEqual([ulid(7)]);
        expect(await ids({ q: 'postgres produc ' })).toEqual([]);
        expect(await ids({ q: 'produc postgres' })).toEqual([]);
        expect(await ids({ q: 'NEEDL' })).toEqual([ulid(1), ulid(2), ulid(3)]);
      });

      it('q: the last word matches as a prefix only with at least MIN_PREFIX_LENGTH (3) characters; a shorter one matches whole words', async () => {
        await seedSearch();
        expect(await ids({ q: 'ne' })).toEqual([]);
        expect(await ids({ q: 'nee' })).toEqual([ulid(1), ulid(2), ulid(3)]);
        expect(await ids({ q: 'a' })).toEqual([ulid(2), ulid(3), ulid(4)]);
        expect(await ids({ q: 'needle a' })).toEqual([ulid(2), ulid(3)]);
      });

      it('q: case and accents fold, ÉTÉ finds été, ß finds ss', async () => {
        await seedSearch();
        expect(await ids({ q: 'ÉTÉ' })).toEqual([ulid(4), ulid(5)]);
        expect(await ids({ q: 'ete ' })).toEqual([ulid(4), ulid(5)]);
        expect(await ids({ q: 'Été À' })).toEqual([ulid(4)]);
        expect(await ids({ q: 'STRASSE' })).toEqual([ulid(12)]);
      });

      it('q: a word is a run of letters and digits: % and _ only separate words, e-mail is the phrase e mail', async () => {
        await seedSearch();
        expect(await ids({ q: '100%' })).toEqual([ulid(6)]);
        expect(await ids({ q: '%' })).toEqual([]);
        expect(await ids({ q: '_' })).toEqual([]);
        expect(await ids({ q: 'snake_case' })).toEqual([ulid(8)]);
        expect(await ids({ q: ':\\users' })).toEqual([ulid(10)]);
        expect(await ids({ q: 'E-Mail' })).toEqual([ulid(10)]);
        expect(await ids({ q: 'email' })).toEqual([]);
      });

      it('q combines with status and tag filters', async () => {
        await seedSearch();
        expect(await ids({ q: 'été', status: ['published'] })).toEqual([ulid(4)]);
        expect(await ids({ q: 'needle', tag: 'hay' })).toEqual([ulid(1), ulid(2)]);
        expect(await ids({ q: 'needle', tag: 'hay', status: ['draft', 'archived'] })).toEqual([ulid(2)]);
        expect(await ids({ q: 'names', tag: 'code', status: ['published'] })).toEqual([ulid(8)]);
        expect(await ids({ q: 'summer or sav', tag: 'travel', status: ['published'] })).toEqual([ulid(4), ulid(6)]);
        const page = await posts().list({ sort: SORT, limit: 1, q: 'needle', tag: 'hay' });
        expect(page.total).toBe(2);
      });

      it('q: search covers the first MAX_DOCUMENT_WORDS distinct words of a post: a body of 140,000 distinct words is stored, created or updated', async () => {
        // About 940 KB: under the request limit, over what a PostgreSQL tsvector of every word holds.
        const body = Array.from({ length: 140_000 }, (_, i) => `w${i}`).join(' ');
        await posts().create(newPost(1, { title: 'w0', body }));
        const stored = await posts().create(newPost(2, { title: 'Short' }));
        await posts().update(stored.id, 1, { body: `${body} late` }, minute(1));
        for (const id of [ulid(1), ulid(2)]) expect((await posts().get(id))!.body.startsWith(body)).toBe(true);
        expect(await ids({ q: 'w1 ' })).toEqual([ulid(1), ulid(2)]);
        const last = MAX_DOCUMENT_WORDS - 2; // the title's word and, in post 2, 'short' come first
        expect(await ids({ q: `w${last} ` })).toEqual([ulid(1), ulid(2)]);
        expect(await ids({ q: `w${last + 1} ` })).toEqual([ulid(1)]);
        expect(await ids({ q: `w${last + 2} ` })).toEqual([]);
        expect(await ids({ q: 'late' })).toEqual([]);
      });

      const RELEVANCE: PostSort = { key: 'relevance', direction: 'desc' };

      async function seedRanking(): Promise<void> {
        await posts().create(newPost(1, { title: 'Pie', body: 'an apple' }));
        await posts().create(newPost(2, { title: 'Apple' }));
        await posts().create(newPost(3, { title: 'Pie', excerpt: 'apple' }));
        await posts().create(newPost(4, { title: 'Pie', tags: ['apple'] }));
        await posts().create(newPost(5, { title: 'Apple' }));
        await posts().create(newPost(6, { title: 'Pie', body: 'apple, apple and apple' }));
        await posts().create(newPost(7, { title: 'Pear', body: 'pear' }));
      }

      it('relevance: a title match ranks above an excerpt or tag match, above a body-only match; equal ranks by id descending', async () => {
        await seedRanking();
        expect(await ids({ q: 'apple', sort: RELEVANCE })).toEqual([5, 2, 4, 3, 6, 1].map(ulid));
        // Matching in the title alone takes every word there.
        expect(await ids({ q: 'apple pie', sort: RELEVANCE })).toEqual([4, 3, 6, 1].map(ulid));
      });

      it('relevance: walking keyset pages returns each match once, in order', async () => {
        await seedRanking();
        const whole = await ids({ q: 'apple', sort: RELEVANCE });
        for (const limit of [1, 2, 4]) {
          const { ids: walked, pages } = await walk(posts(), { q: 'apple', sort: RELEVANCE, limit }, async (page) => {
            if (page === 1) await posts().create(newPost(40 + limit, { title: 'Orange', body: 'no match' }));
          });
          expect(walked).toEqual(whole);
          expect(pages.every((p) => p.total === 6)).toBe(true);
        }
      });

      it('relevance: a cursor used with other filters or another q throws InvalidCursorError', async () => {
        await seedRanking();
        const query: PostQuery = { sort: RELEVANCE, limit: 1, q: 'apple' };
        const { nextCursor: cursor } = await posts().list(query);
        expect(cursor).not.toBeNull();
        for (const other of [
          { ...query, q: 'apple ' },
          { ...query, status: ['draft' as const] },
          { ...query, tag: 'apple' },
          { ...query, sort: SORT },
        ]) {
          expect(await rejectionOf(posts().list({ ...other, cursor }))).toBeInstanceOf(InvalidCursorError);
        }
      });

      it('relevance: with more than countUpTo matches the list is newest published first (publishedAt descending, never published last, ties by id descending)', async () => {
        await seedRanking();
        await posts().create(newPost(8, { title: 'Apple', status: 'published', publishedAt: minute(1) }));
        await posts().create(newPost(9, { title: 'Pie', body: 'apple', status: 'published', publishedAt: minute(30) }));
        await posts().create(newPost(10, { title: 'Pie', body: 'apple', status: 'published', publishedAt: minute(30) }));
        // 9 matches: ranked with countUpTo 9, newest first with 8.
        const ranked = await ids({ q: 'apple', sort: RELEVANCE, countUpTo: 9 });
        expect(ranked.slice(0, 5)).toEqual([8, 5, 2, 4, 3].map(ulid));
        expect(ranked).toEqual(await ids({ q: 'apple', sort: RELEVANCE }));
        const newest = [10, 9, 8, 6, 5, 4, 3, 2, 1].map(ulid);
        expect(await ids({ q: 'apple', sort: RELEVANCE, countUpTo: 8 })).toEqual(newest);
        const page = await posts().list({ q: 'apple', sort: RELEVANCE, countUpTo: 8, limit: 100 });
        expect(page).toMatchObject({ total: 8, totalExact: false });
        for (const limit of [1, 2, 4]) {
          const { ids: walked } = await walk(posts(), { q: 'apple', sort: RELEVANCE, countUpTo: 8, limit });
          expect(walked).toEqual(newest);
        }
      });

      it('relevance: a walk keeps the order of its first page when the number of matches crosses countUpTo meanwhile', async () => {
        await seedRanking();
        const ranked = await ids({ q: 'apple', sort: RELEVANCE });
        // Ranked from the start (6 matches of 6); a seventh match meanwhile does not turn it newest first.
        const grown = await walk(posts(), { q: 'apple', sort: RELEVANCE, countUpTo: 6, limit: 2 }, async (page) => {
          if (page === 1) await posts().create(newPost(20, { title: 'Pie', body: 'apple', status: 'published', publishedAt: minute(50) }));
        });
        expect(grown.ids.filter((id) => id !== ulid(20))).toEqual(ranked);
        // Newest first from the start (7 matches of 6); a match gone meanwhile does not turn it ranked.
        const newest = (await ids({ q: 'apple', sort: RELEVANCE, countUpTo: 6 })).filter((id) => id !== ulid(3));
        expect(newest[0]).toBe(ulid(20));
        const shrunk = await walk(posts(), { q: 'apple', sort: RELEVANCE, countUpTo: 6, limit: 2 }, async (page) => {
          if (page === 1) await posts().delete(ulid(3), 1);
        });
        expect(shrunk.ids).toEqual(newest);
      });

      it('relevance: no match is the empty page', async () => {
        await seedRanking();
        const empty = { items: [], nextCursor: null, total: 0, totalExact: true };
        expect(await posts().list({ sort: RELEVANCE, limit: 10, q: 'banana' })).toStrictEqual(empty);
        expect(await posts().list({ sort: RELEVANCE, limit: 10, q: '%_%' })).toStrictEqual(empty);
      });

      it('visibleAt keeps only published posts whose publishedAt is at or before it', async () => {
        await posts().create(newPost(1, { status: 'published', publishedAt: minute(10) }));
        await posts().create(newPost(2, { status: 'published', publishedAt: minute(20) }));
        await posts().create(newPost(3, { status: 'draft', publishedAt: minute(5) })); // unpublished
        await posts().create(newPost(4, { status: 'archived', publishedAt: minute(5) }));
        await posts().create(newPost(5, { status: 'draft', publishAt: minute(15) })); // scheduled
        await posts().create(newPost(6, { status: 'published', publishedAt: new Date(minute(20).getTime() + 1) }));
        expect(await ids({ visibleAt: minute(9) })).toEqual([]);
        expect(await ids({ visibleAt: minute(10) })).toEqual([ulid(1)]);
        expect(sorted(await ids({ visibleAt: minute(20) }))).toEqual([ulid(1), ulid(2)]);
        expect(sorted(await ids({ visibleAt: minute(59) }))).toEqual([ulid(1), ulid(2), ulid(6)]);
        const page = await posts().list({ sort: SORT, limit: 1, visibleAt: minute(20) });
        expect(page.total).toBe(2);
        expect(page.totalExact).toBe(true);
      });

      it('visibleAt combines with tag and q, and its cursors stay valid at a later instant', async () => {
        for (let n = 1; n <= 5; n += 1) {
          await posts().create(
            newPost(n, { status: 'published', publishedAt: minute(n), tags: n % 2 ? ['odd'] : ['even'], body: `word${n}` }),
          );
        }
        await posts().create(newPost(6, { status: 'draft', tags: ['odd'], body: 'word6' }));
        expect(sorted(await ids({ visibleAt: minute(59), tag: 'odd' }))).toEqual([ulid(1), ulid(3), ulid(5)]);
        expect(await ids({ visibleAt: minute(59), q: 'WORD4' })).toEqual([ulid(4)]);
        expect(await ids({ visibleAt: minute(59), q: 'word6' })).toEqual([]);
        const sort: PostSort = { key: 'publishedAt', direction: 'desc' };
        const first = await posts().list({ sort, limit: 2, visibleAt: minute(59), status: ['published'] });
        expect(first.items.map((p) => p.id)).toEqual([ulid(5), ulid(4)]);
        const second = await posts().list({ sort, limit: 2, visibleAt: minute(60), status: ['published'], cursor: first.nextCursor });
        expect(second.items.map((p) => p.id)).toEqual([ulid(3), ulid(2)]);
      });

      it("the readers' list asked again and again (past a plan cache's first runs) shows each post from its publishedAt on, page after page", async () => {
        for (let n = 1; n <= 8; n += 1) await posts().create(newPost(n, { status: 'published', publishedAt: minute(10 * n) }));
        const query = { sort: { key: 'publishedAt', direction: 'desc' } as const, limit: 2, status: ['published' as const] };
        const newestFrom = (n: number) => [n, n - 1].filter((k) => k >= 1).map(ulid);
        for (let n = 1; n <= 8; n += 1) {
          const first = await posts().listWithLastChange({ ...query, visibleAt: minute(10 * n) });
          expect([first.items.map((p) => p.id), first.total]).toEqual([newestFrom(n), n]);
          if (first.nextCursor === null) continue;
          const second = await posts().listWithLastChange({ ...query, visibleAt: minute(10 * n + 9), cursor: first.nextCursor });
          expect(second.items.map((p) => p.id)).toEqual(newestFrom(n - 2));
        }
      });

      it('listed items are summaries: they carry no body', async () => {
        await posts().create(newPost(1, { body: 'secret body' }));
        const page = await posts().list({ sort: SORT, limit: 10 });
        expect(page.items[0]).not.toHaveProperty('body');
        expect(page.items[0]?.id).toBe(ulid(1));
      });
    });

    describe('listing: order', () => {
      it('the fixture is inserted in an order that is neither the expected one nor its reverse', () => {
        const inserted = INSERTION_ORDER.join();
        for (const order of Object.values(EXPECTED)) {
          expect(order.join()).not.toBe(inserted);
          expect([...order].reverse().join()).not.toBe(inserted);
        }
      });

      for (const sort of SORTS) {
        it(`orders by ${sort.key} ${sort.direction}, ties broken by id in byte order in the same direction${
          sort.key === 'title' ? ', titles by their UTF-8 bytes (no collation)' : ''
        }${sort.key === 'publishedAt' || sort.key === 'publishAt' ? `, null ${sort.key} last` : ''}`, async () => {
          await seedOrdering(posts());
          const page = await posts().list({ sort, limit: 100 });
          expect(page.items.map((p) => p.id)).toEqual(expectedIds(sort));
          expect(page.total).toBe(10);
          expect(page.nextCursor).toBeNull();
        });
      }

      it('posts with a null publishedAt come last in both directions, ties by id in the sort direction', async () => {
        await posts().create(newPost(2, { publishedAt: null }));
        await posts().create(newPost(1, { publishedAt: minute(50) }));
        await posts().create(newPost(4, { publishedAt: null }));
        await posts().create(newPost(3, { publishedAt: minute(10) }));
        const asc = await ids({ sort: { key: 'publishedAt', direction: 'asc' } });
        const desc = await ids({ sort: { key: 'publishedAt', direction: 'desc' } });
        expect(asc).toEqual([ulid(3), ulid(1), ulid(2), ulid(4)]);
        expect(desc).toEqual([ulid(1), ulid(3), ulid(4), ulid(2)]);
      });

      it('titles compare by their UTF-8 bytes: uppercase before lowercase, U+FF5A before an emoji', async () => {
        const titles = ['😀', 'ｚ', 'a', 'B', 'é', 'É', 'ß', 'z', 'Z'];
        for (const [i, title] of titles.entries()) await posts().create(newPost(i + 1, { title }));
        const page = await posts().list({ sort: { key: 'title', direction: 'asc' }, limit: 100 });
        expect(page.items.map((p) => p.title)).toEqual(['B', 'Z', 'a', 'z', 'É', 'ß', 'é', 'ｚ', '😀']);
      });
    });

    describe('listing: total and empty results', () => {
      it('no match is { items: [], nextCursor: null, total: 0, totalExact: true }', async () => {
        const empty = { items: [], nextCursor: null, total: 0, totalExact: true };
        for (const sort of SORTS) {
          expect(await posts().list({ sort, limit: 10 })).toStrictEqual(empty);
        }
        await seedOrdering(posts());
        expect(await posts().list({ sort: SORT, limit: 10, q: 'no such text' })).toStrictEqual(empty);
        expect(await posts().list({ sort: SORT, limit: 10, tag: 'none' })).toStrictEqual(empty);
        expect(await posts().list({ sort: SORT, limit: 10, status: ['archived'], q: 'apple' })).toStrictEqual(empty);
      });

      it('total counts every match across all pages, on every page', async () => {
        await seedOrdering(posts());
        const { pages } = await walk(posts(), { sort: SORT, limit: 3 });
        expect(pages.map((p) => p.total)).toEqual([10, 10, 10, 10]);
        const drafts = await walk(posts(), { sort: SORT, limit: 1, status: ['draft'] });
        expect(drafts.pages.map((p) => p.total)).toEqual([4, 4, 4, 4]);
        const page = await posts().list({ sort: SORT, limit: 3 });
        expect(page.totalExact).toBe(true);
      });

      it('total counts every match on a page after a cursor that no match follows any more (empty, in every sort)', async () => {
        for (const sort of SORTS) {
          for (const n of [1, 2, 3]) await posts().create(newPost(n, n === 3 ? { publishedAt: null } : {}));
          const first = await posts().list({ sort, limit: 2 });
          const rest = (await posts().list({ sort, limit: 3 })).items.slice(2);
          for (const post of rest) await posts().delete(post.id, post.version);
          const empty = { items: [], nextCursor: null, total: 2, totalExact: true };
          expect(await posts().list({ sort, limit: 2, cursor: first.nextCursor })).toStrictEqual(empty);
          for (const post of first.items) await posts().delete(post.id, post.version);
        }
      });

      it("listWithLastChange is list with the newest activity event's occurredAt: null before the first, on empty pages too", async () => {
        const query = { sort: SORT, limit: 2 };
        const withLastChange = async (q: Partial<PostQuery>, lastChange: Date | null) => ({
          ...(await posts().list({ ...query, ...q })),
          lastChange,
        });
        expect(await posts().listWithLastChange(query)).toStrictEqual(await withLastChange({}, null));
        await posts().create(newPost(1)); // no event
        expect(await posts().listWithLastChange(query)).toStrictEqual(await withLastChange({}, null));
        await posts().createRecorded(newPost(2), { actor: ADA, eventId: ulid(92), occurredAt: minute(50) });
        await posts().createRecorded(newPost(3), { actor: ADA, eventId: ulid(93), occurredAt: minute(20) });
        const first = await posts().listWithLastChange(query);
        expect(first).toStrictEqual(await withLastChange({}, minute(50)));
        const next = { cursor: first.nextCursor };
        expect(await posts().listWithLastChange({ ...query, ...next })).toStrictEqual(await withLastChange(next, minute(50)));
        const none = { tag: 'none' };
        expect(await posts().listWithLastChange({ ...query, ...none })).toStrictEqual(await withLastChange(none, minute(50)));
        const visible = { visibleAt: minute(100), sort: { key: 'publishedAt', direction: 'desc' } as const };
        expect(await posts().listWithLastChange({ ...query, ...visible })).toStrictEqual(await withLastChange(visible, minute(50)));
      });

      it('total counts up to countUpTo: with more matches it is countUpTo and totalExact is false, on every page', async () => {
        await seedOrdering(posts());
        const capped = await walk(posts(), { sort: SORT, limit: 3, countUpTo: 4 });
        expect(capped.ids).toHaveLength(10);
        expect(capped.pages.map((p) => p.total)).toEqual([4, 4, 4, 4]);
        for (const countUpTo of [1, 4, 9]) {
          expect(await posts().list({ sort: SORT, limit: 3, countUpTo })).toMatchObject({ total: countUpTo, totalExact: false });
        }
        for (const countUpTo of [10, 11, 1000]) {
          expect(await posts().list({ sort: SORT, limit: 3, countUpTo })).toMatchObject({ total: 10, totalExact: true });
        }
        expect(await posts().list({ sort: SORT, limit: 1, status: ['draft'], countUpTo: 4 })).toMatchObject({ total: 4, totalExact: true });
        expect(await posts().list({ sort: SORT, limit: 1, status: ['draft'], countUpTo: 3 })).toMatchObject({
          total: 3,
          totalExact: false,
        });
      });

      it('the total of a tag filter, alone or with statuses, follows creates, retagging, status changes and deletes', async () => {
        const total = async (tag: string, status?: PostStatus[]) =>
          (await posts().list({ sort: SORT, limit: 1, tag, ...(status === undefined ? {} : { status }) })).total;
        await posts().create(newPost(1, { tags: ['js', 'x'], status: 'draft' }));
        await posts().create(newPost(2, { tags: ['js'], status: 'published' }));
        await posts().create(newPost(3, { tags: ['x'], status: 'published' }));
        expect([await total('js'), await total('x'), await total('js', ['published'])]).toEqual([2, 2, 1]);
        await posts().update(ulid(1), 1, { tags: ['x', 'y'] }, minute(10));
        expect([await total('js'), await total('x'), await total('y')]).toEqual([1, 2, 1]);
        await posts().update(ulid(3), 1, { status: 'archived' }, minute(11));
        expect([await total('x', ['published']), await total('x', ['archived', 'draft']), await total('x')]).toEqual([0, 2, 2]);
        await posts().update(ulid(2), 1, { title: 'Only the title' }, minute(12));
        expect(await total('js', ['published'])).toBe(1);
        await posts().delete(ulid(1), 2);
        expect([await total('x'), await total('y'), await total('js')]).toEqual([1, 0, 1]);
        const capped = await posts().list({ sort: SORT, limit: 1, tag: 'js', countUpTo: 1 });
        expect(capped).toMatchObject({ total: 1, totalExact: true });
        await posts().create(newPost(4, { tags: ['js'] }));
        expect(await posts().list({ sort: SORT, limit: 1, tag: 'js', countUpTo: 1 })).toMatchObject({ total: 1, totalExact: false });
      });

      it('countUpTo defaults to POST_TOTAL_CAP and must be a positive integer (RangeError)', async () => {
        expect(POST_TOTAL_CAP).toBe(1000);
        await seedOrdering(posts());
        expect(await posts().list({ sort: SORT, limit: 3 })).toMatchObject({ total: 10, totalExact: true });
        for (const countUpTo of [0, -1, 1.5, Number.NaN]) {
          expect(await rejectionOf(posts().list({ sort: SORT, limit: 3, countUpTo }))).toBeInstanceOf(RangeError);
        }
      });
    });

    describe('listing: pages', () => {
      for (const sort of SORTS) {
        it(`walking every page returns each match exactly once, in order (${sort.key} ${sort.direction}, limits 1, 2, 3)`, async () => {
          await seedOrdering(posts());
          for (const limit of [1, 2, 3]) {
            const { ids: seen, pages } = await walk(posts(), { sort, limit });
            expect(seen, `limit ${limit}`).toEqual(expectedIds(sort));
            expect(pages).toHaveLength(Math.ceil(10 / limit));
            expect(pages.slice(0, -1).every((p) => p.size === limit && !p.last)).toBe(true);
            expect(pages.at(-1)?.last).toBe(true);
          }
        });
      }

      it('walking pages with filters crosses from dated posts to null publishedAt in both directions', async () => {
        await seedOrdering(posts());
        const asc = await walk(posts(), {
          sort: { key: 'publishedAt', direction: 'asc' },
          limit: 1,
          status: ['draft'],
        });
        expect(asc.ids).toEqual([7, 1, 4, 8].map(ulid));
        const desc = await walk(posts(), {
          sort: { key: 'publishedAt', direction: 'desc' },
          limit: 2,
          status: ['published', 'archived'],
        });
        expect(desc.ids).toEqual([10, 6, 5, 9, 3, 2].map(ulid));
      });

      it('walking the scheduled posts by publishAt crosses ties in both directions, and a cursor of scheduled=false is refused under scheduled=true', async () => {
        await seedOrdering(posts());
        for (const limit of [1, 2]) {
          const asc = await walk(posts(), { sort: { key: 'publishAt', direction: 'asc' }, limit, scheduled: true });
          expect(asc.ids, `limit ${limit}`).toEqual([4, 1, 7].map(ulid));
          const desc = await walk(posts(), { sort: { key: 'publishAt', direction: 'desc' }, limit, scheduled: true });
          expect(desc.ids, `limit ${limit}`).toEqual([7, 1, 4].map(ulid));
        }
        const unscheduled = await walk(posts(), { sort: { key: 'publishAt', direction: 'asc' }, limit: 3, scheduled: false });
        expect(unscheduled.ids).toEqual([2, 3, 5, 6, 8, 9, 10].map(ulid));
        const { nextCursor } = await posts().list({ sort: { key: 'publishAt', direction: 'asc' }, limit: 1, scheduled: false });
        const error = await rejectionOf(
          posts().list({ sort: { key: 'publishAt', direction: 'asc' }, limit: 1, scheduled: true, cursor: nextCursor }),
        );
        expect(error).toBeInstanceOf(InvalidCursorError);
      });

      it('a page holds exactly limit items when more exist; nextCursor is null on the last page', async () => {
        for (let n = 1; n <= 5; n += 1) await posts().create(newPost(n));
        const first = await posts().list({ sort: SORT, limit: 2 });
        expect(first.items).toHaveLength(2);
        expect(first.nextCursor).not.toBeNull();
        const second = await posts().list({ sort: SORT, limit: 3, cursor: first.nextCursor });
        expect(second.items.map((p) => p.id)).toEqual([ulid(3), ulid(4), ulid(5)]);
        expect(second.nextCursor).toBeNull();
        const exact = await posts().list({ sort: SORT, limit: 5 });
        expect(exact.items).toHaveLength(5);
        expect(exact.nextCursor).toBeNull();
        const one = await posts().list({ sort: SORT, limit: 100 });
        expect(one.items).toHaveLength(5);
        expect(one.nextCursor).toBeNull();
      });

      for (const sort of SORTS) {
        it(`nextCursor resumes strictly after the last item even when posts are created between fetches (${sort.key} ${sort.direction})`, async () => {
          await seedOrdering(posts());
          let k = 0;
          const { ids: seen } = await walk(posts(), { sort, limit: 3 }, async () => {
            k += 1;
            // One post sorting before everything and one after, whatever the direction.
            await posts().create(
              newPost(100 + k, {
                title: `!low ${k}`,
                slug: `low-${k}`,
                createdAt: new Date(Date.UTC(2020, 0, 1, 0, 0, k)),
                publishedAt: new Date(Date.UTC(2020, 0, 1, 0, 0, k)),
              }),
            );
            await posts().create(
              newPost(200 + k, {
                title: `🚀 high ${k}`,
                slug: `high-${k}`,
                createdAt: new Date(Date.UTC(2030, 0, 1, 0, 0, k)),
                publishedAt: new Date(Date.UTC(2030, 0, 1, 0, 0, k)),
              }),
            );
          });
          expect(k).toBeGreaterThan(0);
          expect(new Set(seen).size).toBe(seen.length);
          const originals = new Set(expectedIds(sort));
          expect(seen.filter((id) => originals.has(id))).toEqual(expectedIds(sort));
        });
      }

      it('a cursor used with another sort throws InvalidCursorError', async () => {
        await seedOrdering(posts());
        const query: PostQuery = { sort: { key: 'title', direction: 'asc' }, limit: 2 };
        const { nextCursor } = await posts().list(query);
        expect(nextCursor).not.toBeNull();
        for (const sort of SORTS.filter((s) => !(s.key === 'title' && s.direction === 'asc'))) {
          const error = await rejectionOf(posts().list({ ...query, sort, cursor: nextCursor }));
          expect(error, `${sort.key} ${sort.direction}`).toBeInstanceOf(InvalidCursorError);
        }
      });

      it('a cursor used with other filters throws InvalidCursorError', async () => {
        await seedOrdering(posts());
        const query: PostQuery = { sort: SORT, limit: 1, status: ['draft', 'published'] };
        const { nextCursor: cursor } = await posts().list(query);
        expect(cursor).not.toBeNull();
        const others: PostQuery[] = [
          { ...query, status: ['draft'] },
          { ...query, status: undefined },
          { ...query, scheduled: true },
          { ...query, scheduled: false },
          { ...query, tag: 'x' },
          { ...query, q: 'apple' },
        ];
        for (const other of others) {
          expect(await rejectionOf(posts().list({ ...other, cursor }))).toBeInstanceOf(InvalidCursorError);
        }
        const { nextCursor: searching } = await posts().list({ sort: SORT, limit: 1, q: 'app' });
        expect(searching).not.toBeNull();
        const error = await rejectionOf(posts().list({ sort: SORT, limit: 1, q: 'APP', cursor: searching }));
        expect(error).toBeInstanceOf(InvalidCursorError);
      });

      it('the same filters in another form keep a cursor valid: statuses in another order, another limit', async () => {
        await seedOrdering(posts());
        const first = await posts().list({ sort: SORT, limit: 2, status: ['draft', 'published'] });
        const next = await posts().list({
          sort: SORT,
          limit: 3,
          status: ['published', 'draft'],
          cursor: first.nextCursor,
        });
        // draft or published by createdAt asc: 2, 4, 7, 9, 1, 6, 10, 5, 8
        expect([...first.items, ...next.items].map((p) => p.id)).toEqual([2, 4, 7, 9, 1].map(ulid));
      });

      it('a cursor that is not a cursor at all throws InvalidCursorError', async () => {
        await seedOrdering(posts());
        const post = (await posts().get(ulid(1)))!;
        await store().revisions.append(revisionOf(post));
        await store().revisions.append(revisionOf({ ...post, version: 2 }));
        const revisionCursor = (await store().revisions.list(ulid(1), { limit: 1 })).nextCursor!;
        const { nextCursor } = await posts().list({ sort: SORT, limit: 2 });
        const garbled = [
          'garbage',
          'not a cursor',
          '%%%',
          nextCursor!.slice(0, -4),
          `${nextCursor!}x`,
          revisionCursor,
          encodeCursor(postCursorScope({ sort: SORT }), [42]),
          encodeCursor(postCursorScope({ sort: SORT }), ['yesterday', ulid(1)]),
        ];
        for (const cursor of garbled) {
          const error = await rejectionOf(posts().list({ sort: SORT, limit: 2, cursor }));
          expect(error, cursor).toBeInstanceOf(InvalidCursorError);
        }
      });
    });

    describe('walking', () => {
      async function walkAll(filter: Parameters<PostRepository['walk']>[0], batch: number): Promise<string[]> {
        const seen: string[] = [];
        for (let after: string | null = null; ;) {
          const posts_ = await posts().walk(filter, after, batch);
          if (posts_.length === 0) return seen;
          seen.push(...posts_.map((p) => p.id));
          after = posts_[posts_.length - 1]!.id;
        }
      }

      it('walk returns whole posts, bodies included, in id byte order whatever the insertion order', async () => {
        for (const n of [7, 2, 9, 1, 5]) await posts().create(newPost(n, { body: `Body ${n}\n`, tags: ['t', `n${n}`] }));
        const batch = await posts().walk({}, null, 100);
        expect(batch.map((p) => p.id)).toEqual([1, 2, 5, 7, 9].map(ulid));
        expect(batch[0]).toStrictEqual(await posts().get(ulid(1)));
        expect(batch[0]!.body).toBe('Body 1\n');
      });

      it('walk resumes strictly after the id given, in batches of the limit, each post once, and answers [] past the last', async () => {
        for (const n of [4, 8, 1, 6, 3, 2, 7, 5]) await posts().create(newPost(n));
        expect(await walkAll({}, 3)).toEqual([1, 2, 3, 4, 5, 6, 7, 8].map(ulid));
        expect((await posts().walk({}, ulid(5), 2)).map((p) => p.id)).toEqual([ulid(6), ulid(7)]);
        expect(await posts().walk({}, ulid(8), 10)).toEqual([]);
        // An id that no post has still orders the walk.
        expect((await posts().walk({}, `${ulid(4)}Z`, 10)).map((p) => p.id)).toEqual([5, 6, 7, 8].map(ulid));
      });

      it('walk applies the status and tag filters of the list', async () => {
        await posts().create(newPost(1, { status: 'draft', tags: ['a'] }));
        await posts().create(newPost(2, { status: 'published', publishedAt: minute(1), tags: ['a', 'b'] }));
        await posts().create(newPost(3, { status: 'archived', publishedAt: minute(1), tags: ['b'] }));
        await posts().create(newPost(4, { status: 'published', publishedAt: minute(2), tags: [] }));
        expect(await walkAll({ status: ['published'] }, 1)).toEqual([ulid(2), ulid(4)]);
        expect(await walkAll({ status: ['draft', 'archived'] }, 1)).toEqual([ulid(1), ulid(3)]);
        expect(await walkAll({ tag: 'b' }, 1)).toEqual([ulid(2), ulid(3)]);
        expect(await walkAll({ tag: 'b', status: ['published'] }, 5)).toEqual([ulid(2)]);
        expect(await walkAll({ tag: 'nope' }, 5)).toEqual([]);
        expect(await walkAll({ status: [] }, 5)).toEqual([1, 2, 3, 4].map(ulid));
      });

      it('walk includes a post created during the walk when its id comes after the last one returned', async () => {
        for (const n of [1, 2, 3]) await posts().create(newPost(n));
        const first = await posts().walk({}, null, 2);
        await posts().create(newPost(9));
        await posts().create(newPost(0));
        const rest = await posts().walk({}, first[1]!.id, 10);
        expect(rest.map((p) => p.id)).toEqual([ulid(3), ulid(9)]);
      });

      it('walk refuses a limit outside 1 to 100 without reading', async () => {
        await expect(posts().walk({}, null, 0)).rejects.toThrow(RangeError);
        await expect(posts().walk({}, null, 101)).rejects.toThrow(RangeError);
      });
    });

    describe('read models', () => {
      it('tagCounts counts posts per tag over every status, most used first, ties by name in byte order', async () => {
        await posts().create(newPost(1, { status: 'draft', tags: ['b', 'a'] }));
        await posts().create(newPost(2, { status: 'published', tags: ['a', 'c'] }));
        await posts().create(newPost(3, { status: 'archived', tags: ['c', 'é', 'a'] }));
        await posts().create(newPost(4, { status: 'draft', tags: ['zz', 'b'] }));
        await posts().create(newPost(5, { status: 'draft', tags: [] }));
        expect(await posts().tagCounts()).toStrictEqual([
          { name: 'a', count: 3 },
          { name: 'b', count: 2 },
          { name: 'c', count: 2 },
          { name: 'zz', count: 1 },
          { name: 'é', count: 1 },
        ]);
        await posts().delete(ulid(3), 1);
        expect(await posts().tagCounts()).toStrictEqual([
          { name: 'a', count: 2 },
          { name: 'b', count: 2 },
          { name: 'c', count: 1 },
          { name: 'zz', count: 1 },
        ]);
      });

      it('tagCounts with visibleAt counts only what readers may see then, and leaves out tags with none', async () => {
        await posts().create(newPost(1, { status: 'published', publishedAt: minute(10), tags: ['a', 'b'] }));
        await posts().create(newPost(2, { status: 'published', publishedAt: minute(30), tags: ['b'] }));
        await posts().create(newPost(3, { status: 'draft', tags: ['b', 'secret'] }));
        await posts().create(newPost(4, { status: 'archived', publishedAt: minute(1), tags: ['old'] }));
        await posts().create(newPost(5, { status: 'draft', publishAt: minute(5), tags: ['soon'] }));
        expect(await posts().tagCounts(minute(20))).toStrictEqual([
          { name: 'a', count: 1 },
          { name: 'b', count: 1 },
        ]);
        expect(await posts().tagCounts(minute(30))).toStrictEqual([
          { name: 'b', count: 2 },
          { name: 'a', count: 1 },
        ]);
        expect(await posts().tagCounts(minute(9))).toStrictEqual([]);
      });

      it('tagCounts of no posts is []', async () => {
        expect(await posts().tagCounts()).toStrictEqual([]);
      });

      it('countByStatus counts posts per status, zeros included', async () => {
        expect(await posts().countByStatus()).toStrictEqual({ draft: 0, published: 0, archived: 0, scheduled: 0 });
        await posts().create(newPost(1, { status: 'published' }));
        await posts().create(newPost(2, { status: 'published' }));
        await posts().create(newPost(3, { status: 'draft' }));
        expect(await posts().countByStatus()).toStrictEqual({ draft: 1, published: 2, archived: 0, scheduled: 0 });
        await posts().update(ulid(3), 1, { status: 'archived' }, minute(30));
        expect(await posts().countByStatus()).toStrictEqual({ draft: 0, published: 2, archived: 1, scheduled: 0 });
      });

      it('countByStatus counts as scheduled the drafts with a publishAt, a subset of draft', async () => {
        await posts().create(newPost(1, { status: 'draft', publishAt: minute(40) }));
        await posts().create(newPost(2, { status: 'draft', publishAt: minute(45) }));
        await posts().create(newPost(3, { status: 'draft' }));
        await posts().create(newPost(4, { status: 'published' }));
        expect(await posts().countByStatus()).toStrictEqual({ draft: 3, published: 1, archived: 0, scheduled: 2 });
        await posts().update(ulid(2), 1, { publishAt: null }, minute(50));
        expect(await posts().countByStatus()).toStrictEqual({ draft: 3, published: 1, archived: 0, scheduled: 1 });
      });

      it('wordsPublished sums wordCount over published posts only', async () => {
        expect(await posts().wordsPublished()).toBe(0);
        await posts().create(newPost(1, { status: 'published', wordCount: 120 }));
        await posts().create(newPost(2, { status: 'published', wordCount: 5 }));
        await posts().create(newPost(3, { status: 'draft', wordCount: 1000 }));
        await posts().create(newPost(4, { status: 'archived', wordCount: 10000, publishedAt: minute(1) }));
        expect(await posts().wordsPublished()).toBe(125);
        await posts().update(ulid(2), 1, { status: 'archived' }, minute(30));
        expect(await posts().wordsPublished()).toBe(120);
      });

      it('slugsLike(base) returns every stored slug that is base or base-<n>', async () => {
        const slugs = ['hello', 'hello-2', 'hello-10', 'hello-world', 'hello-2-x', 'say-hello', 'hellox', 'hell', 'hello-a'];
        const statuses: PostStatus[] = ['draft', 'published', 'archived'];
        for (const [i, slug] of slugs.entries()) {
          await posts().create(newPost(i + 1, { slug, status: statuses[i % 3]! }));
        }
        expect(sorted(await posts().slugsLike('hello'))).toEqual(['hello', 'hello-10', 'hello-2']);
        expect(sorted(await posts().slugsLike('hello-world'))).toEqual(['hello-world']);
        expect(await posts().slugsLike('absent')).toStrictEqual([]);
        await posts().create(newPost(50, { slug: 'absent-3' }));
        expect(await posts().slugsLike('absent')).toStrictEqual(['absent-3']);
      });
    });

    describe('scheduling', () => {
      it('publishDue publishes due drafts: published, publishedAt from publishAt, publishAt null, updatedAt = now, version + 1', async () => {
        const created = await posts().create(newPost(1, { publishAt: minute(10), tags: ['t'], body: 'b' }));
        const [published, ...rest] = await posts().publishDue(minute(12), 10);
        expect(rest).toEqual([]);
        const expected: Post = {
          ...created,
          status: 'published',
          publishedAt: minute(10),
          publishAt: null,
          updatedAt: minute(12),
          version: 2,
        };
        expect(published).toStrictEqual(expected);
        expect(await posts().get(ulid(1))).toStrictEqual(expected);
      });

      it('publishDue keeps the publishedAt of a post published before', async () => {
        await posts().create(newPost(1, { status: 'draft', publishedAt: minute(1), publishAt: minute(10) }));
        const [published] = await posts().publishDue(minute(10), 10);
        expect(published?.publishedAt).toStrictEqual(minute(1));
      });

      it('publishDue leaves drafts due later, unscheduled drafts and other statuses alone', async () => {
        await posts().create(newPost(1, { publishAt: new Date(minute(10).getTime() + 1) }));
        await posts().create(newPost(2));
        await posts().create(newPost(3, { status: 'published' }));
        await posts().create(newPost(4, { status: 'archived' }));
        const before = await Promise.all([1, 2, 3, 4].map((n) => posts().get(ulid(n))));
        expect(await posts().publishDue(minute(10), 10)).toStrictEqual([]);
        expect(await Promise.all([1, 2, 3, 4].map((n) => posts().get(ulid(n))))).toStrictEqual(before);
      });

      it('publishDue takes the earliest publishAt first, ties by id, at most limit, and the rest on the next call', async () => {
        await posts().create(newPost(3, { publishAt: minute(5) }));
        await posts().create(newPost(1, { publishAt: minute(7) }));
        await posts().create(newPost(2, { publishAt: minute(5) }));
        await posts().create(newPost(4, { publishAt: minute(6) }));
        expect((await posts().publishDue(minute(8), 3)).map((p) => p.id)).toEqual([ulid(2), ulid(3), ulid(4)]);
        expect((await posts().publishDue(minute(8), 3)).map((p) => p.id)).toEqual([ulid(1)]);
        expect(await posts().publishDue(minute(8), 3)).toStrictEqual([]);
      });

      it('of concurrent publishDue calls each due post is published by exactly one (N = 8 callers, 30 posts)', async () => {
        for (let n = 1; n <= 30; n += 1) await posts().create(newPost(n, { publishAt: minute(n % 7) }));
        const results = await Promise.all(times(8, () => posts().publishDue(minute(30), 4)));
        const again = await Promise.all(times(8, () => posts().publishDue(minute(30), 100)));
        const all = [...results, ...again].flat().map((p) => p.id);
        expect(sorted(all)).toEqual(sorted(times(30, (i) => ulid(i + 1))));
        for (let n = 1; n <= 30; n += 1) expect((await posts().get(ulid(n)))?.version).toBe(2);
      });
    });
  });
}
