import { describe, expect, it } from 'vitest';
import { encodeCursor, revisionCursorScope } from '../../domain/cursor.js';
import { InvalidCursorError, VersionConflictError } from '../../domain/errors.js';
import type { Post } from '../../domain/post.js';
import type { Revision, RevisionPage, RevisionRepository } from '../../domain/ports/revision-repository.js';
import { type MakeStore, minute, newPost, rejectionOf, revisionOf, ulid, useStore } from './fixtures.js';

export function describeRevisionRepositoryContract(make: MakeStore): void {
  describe('RevisionRepository', () => {
    const store = useStore(make);
    const revisions = (): RevisionRepository => store().revisions;

    async function postWithHistory(n: number, versions: number[]): Promise<Post> {
      const post = await store().posts.create(newPost(n, { tags: ['z', 'a'] }));
      for (const version of versions) {
        await revisions().append(
          revisionOf(post, {
            version,
            title: `${post.title} v${version}`,
            body: `body ${version}`,
            createdAt: minute(version),
          }),
        );
      }
      return post;
    }

    async function walkVersions(postId: string, limit: number): Promise<number[][]> {
      const pages: number[][] = [];
      let cursor: string | null = null;
      do {
        const page = await revisions().list(postId, { limit, cursor });
        pages.push(page.items.map((r) => r.version));
        cursor = page.nextCursor;
        if (pages.length > 50) throw new Error('the walk does not end');
      } while (cursor !== null);
      return pages;
    }

    it('append stores a revision that get returns as stored', async () => {
      const post = await store().posts.create(newPost(1, { tags: ['z', 'a', 'é'], body: 'B' }));
      const revision: Revision = revisionOf(post, {
        createdAt: new Date('2026-03-04T05:06:07.891Z'),
        actor: { id: ulid(9001), name: 'Grace' },
      });
      await revisions().append(revision);
      expect(await revisions().get(post.id, 1)).toStrictEqual(revision);
    });

    it('a second revision with the same post and version throws VersionConflictError; history is never rewritten', async () => {
      const post = await postWithHistory(1, [1, 2]);
      const original = await revisions().get(post.id, 2);
      const error = await rejectionOf(revisions().append(revisionOf(post, { version: 2, title: 'rewritten', body: 'rewritten' })));
      expect(error).toBeInstanceOf(VersionConflictError);
      expect(await revisions().get(post.id, 2)).toStrictEqual(original);
      expect((await revisions().list(post.id, { limit: 10 })).items.map((r) => r.version)).toEqual([2, 1]);
    });

    it('list returns a post’s revisions newest first (highest version first), as summaries without body', async () => {
      const post = await postWithHistory(1, [3, 1, 5, 2, 4]);
      await postWithHistory(2, [1, 2, 3, 6]);
      const page = await revisions().list(post.id, { limit: 100 });
      expect(page.items.map((r) => r.version)).toEqual([5, 4, 3, 2, 1]);
      expect(page.nextCursor).toBeNull();
      const { body: _body, ...summary } = (await revisions().get(post.id, 5))!;
      expect(page.items[0]).toStrictEqual({ ...summary, changed: ['title', 'body'] });
      expect(page.items[0]?.tags).toEqual(['z', 'a']);
      expect(page.items[0]?.createdAt.toISOString()).toBe(minute(5).toISOString());
    });

    it('each listed summary’s changed names the fields that differ from the next lower version stored, in compareStates order, tags as sets; the oldest’s is empty', async () => {
      const post = await store().posts.create(newPost(1, { tags: ['z', 'a'], body: 'B1' }));
      const states: Partial<Revision>[] = [
        { version: 1 },
        { version: 2, title: 'Renamed' },
        { version: 3, title: 'Renamed', tags: ['a', 'z'], body: 'B2' },
        { version: 4, title: 'Renamed', slug: 'renamed', excerpt: 'New.', status: 'published', tags: ['a', 'y'], body: 'B2' },
        { version: 5, title: 'Renamed', slug: 'renamed', excerpt: 'New.', status: 'published', tags: ['a', 'y'], body: 'B2' },
        { version: 7, title: 'Renamed again', slug: 'renamed', excerpt: 'New.', status: 'published', tags: ['a', 'y'], body: 'B2' },
      ];
      for (const state of states) await revisions().append(revisionOf(post, { body: 'B1', ...state }));
      const expected = [['title'], [], ['slug', 'excerpt', 'status', 'tags'], ['body'], ['title'], []];
      const changedOf = (page: RevisionPage) => page.items.map((r) => r.changed);
      expect(changedOf(await revisions().list(post.id, { limit: 100 }))).toEqual(expected);
      const onePerPage: string[][] = [];
      let cursor: string | null = null;
      do {
        const page = await revisions().list(post.id, { limit: 1, cursor });
        onePerPage.push(...changedOf(page));
        cursor = page.nextCursor;
      } while (cursor !== null && onePerPage.length < 10);
      expect(onePerPage).toEqual(expected);
    });

    it('append stores a revision’s cover image and SEO fields, and get and list return them as stored', async () => {
      const post = await store().posts.create(newPost(1));
      const cover = { mediaId: 'abcdefghijklmnopqrstuvwxyz', alt: 'A harbour, "at dawn"' };
      const seo = { title: 'Search title', description: null, canonicalUrl: 'https://example.com/a?b=c' };
      const revision = revisionOf(post, { coverImage: cover, seo });
      await revisions().append(revision);
      expect(await revisions().get(post.id, 1)).toStrictEqual(revision);
      const [listed] = (await revisions().list(post.id, { limit: 10 })).items;
      expect([listed?.coverImage, listed?.seo]).toStrictEqual([cover, seo]);
    });

    it('append stores autosaveSince (when an autosave burst began; null for any other write), and get and list return it', async () => {
      const post = await store().posts.create(newPost(1));
      const since = new Date('2026-03-04T05:06:07.089Z');
      await revisions().append(revisionOf(post));
      await revisions().append(revisionOf({ ...post, version: 2 }, { autosaveSince: since }));
      expect(await revisions().get(post.id, 2)).toStrictEqual(revisionOf({ ...post, version: 2 }, { autosaveSince: since }));
      expect((await revisions().get(post.id, 1))?.autosaveSince).toBeNull();
      const listed = (await revisions().list(post.id, { limit: 10 })).items;
      expect(listed.map((r) => r.autosaveSince)).toStrictEqual([since, null]);
    });

    it('changed names coverImage when the cover’s media or alt text differs (or it comes or goes), and seo when any SEO field does', async () => {
      const post = await store().posts.create(newPost(1));
      const none = { title: null, description: null, canonicalUrl: null };
      const cover = { mediaId: 'abcdefghijklmnopqrstuvwxyz', alt: 'Alt' };
      const states: Partial<Revision>[] = [
        { version: 1, coverImage: cover, seo: { ...none, title: 'T' } },
        { version: 2, coverImage: cover, seo: { ...none, title: 'T' } },
        { version: 3, coverImage: { ...cover, alt: '' }, seo: { ...none, title: 'T' } },
        {
          version: 4,
          coverImage: { ...cover, mediaId: 'zyxwvutsrqponmlkjihgfedcba', alt: '' },
          seo: { ...none, title: 'T', description: 'D' },
        },
        { version: 5, coverImage: null, seo: { ...none, title: 'T', description: 'D' } },
        { version: 6, coverImage: null, seo: { ...none, description: 'D' } },
        { version: 7, coverImage: null, seo: { ...none, description: 'D', canonicalUrl: 'https://example.com/' } },
        { version: 8, coverImage: cover, seo: { ...none, description: 'D', canonicalUrl: 'https://example.com/' } },
        { version: 9, title: 'Renamed', coverImage: cover, seo: none },
      ];
      for (const state of states) await revisions().append(revisionOf(post, state));
      const expected = [['title', 'seo'], ['coverImage'], ['seo'], ['seo'], ['coverImage'], ['coverImage', 'seo'], ['coverImage'], [], []];
      expect((await revisions().list(post.id, { limit: 100 })).items.map((r) => r.changed)).toEqual(expected);
      const onePerPage: string[][] = [];
      let cursor: string | null = null;
      do {
        const page = await revisions().list(post.id, { limit: 2, cursor });
        onePerPage.push(...page.items.map((r) => r.changed));
        cursor = page.nextCursor;
      } while (cursor !== null && onePerPage.length < 20);
      expect(onePerPage).toEqual(expected);
    });

    it('list is keyset-paginated: every revision once, limit items per page, nextCursor null on the last page', async () => {
      const post = await postWithHistory(1, [3, 1, 5, 2, 4]);
      await postWithHistory(2, [1, 2, 3, 6]);
      expect(await walkVersions(post.id, 2)).toEqual([[5, 4], [3, 2], [1]]);
      expect(await walkVersions(post.id, 1)).toEqual([[5], [4], [3], [2], [1]]);
      expect(await walkVersions(post.id, 5)).toEqual([[5, 4, 3, 2, 1]]);
      expect(await walkVersions(ulid(2), 2)).toEqual([
        [6, 3],
        [2, 1],
      ]);
    });

    it('a page resumes strictly after its cursor when newer revisions are appended between fetches', async () => {
      const post = await postWithHistory(1, [1, 2, 3, 4]);
      const first = await revisions().list(post.id, { limit: 2 });
      await revisions().append(revisionOf(post, { version: 5 }));
      const second = await revisions().list(post.id, { limit: 2, cursor: first.nextCursor });
      expect([...first.items, ...second.items].map((r) => r.version)).toEqual([4, 3, 2, 1]);
      expect(second.nextCursor).toBeNull();
    });

    it('a foreign or garbled cursor throws InvalidCursorError', async () => {
      const post = await postWithHistory(1, [1, 2, 3]);
      await postWithHistory(2, [1, 2, 3]);
      const foreign = (await revisions().list(ulid(2), { limit: 1 })).nextCursor!;
      await store().posts.create(newPost(3));
      await store().posts.create(newPost(4));
      const postCursor = (await store().posts.list({ sort: { key: 'createdAt', direction: 'asc' }, limit: 1 })).nextCursor!;
      const own = (await revisions().list(post.id, { limit: 1 })).nextCursor!;
      for (const cursor of [
        foreign,
        postCursor,
        'garbage',
        'not a cursor',
        own.slice(0, -3),
        encodeCursor(revisionCursorScope(post.id), ['2']),
        encodeCursor(revisionCursorScope(post.id), []),
      ]) {
        const error = await rejectionOf(revisions().list(post.id, { limit: 1, cursor }));
        expect(error, cursor).toBeInstanceOf(InvalidCursorError);
      }
    });

    it('no revisions is { items: [], nextCursor: null }', async () => {
      expect(await revisions().list(ulid(1), { limit: 10 })).toStrictEqual({ items: [], nextCursor: null });
      await postWithHistory(2, [1]);
      expect(await revisions().list(ulid(1), { limit: 10 })).toStrictEqual({ items: [], nextCursor: null });
    });

    it('get returns null for an unknown post or version', async () => {
      const post = await postWithHistory(1, [1, 2]);
      expect(await revisions().get(post.id, 3)).toBeNull();
      expect(await revisions().get(post.id, 0)).toBeNull();
      expect(await revisions().get(ulid(404), 1)).toBeNull();
    });

    it('deleteForPost removes every revision of that post and of no other', async () => {
      const post = await postWithHistory(1, [1, 2, 3]);
      const other = await postWithHistory(2, [1, 2]);
      await revisions().deleteForPost(post.id);
      expect(await revisions().list(post.id, { limit: 10 })).toStrictEqual({ items: [], nextCursor: null });
      expect(await revisions().get(post.id, 1)).toBeNull();
      expect((await revisions().list(other.id, { limit: 10 })).items.map((r) => r.version)).toEqual([2, 1]);
      expect(await revisions().get(other.id, 1)).not.toBeNull();
      await revisions().deleteForPost(ulid(404));
    });

    it('returns copies: mutating an input or a result does not change the stored revision', async () => {
      const post = await store().posts.create(newPost(1, { tags: ['a'] }));
      const input = revisionOf(post);
      await revisions().append(input);
      input.tags.push('input');
      input.actor.name = 'input';
      input.createdAt.setUTCFullYear(1990);
      const got = (await revisions().get(post.id, 1))!;
      got.tags.push('got');
      got.actor.name = 'got';
      const listed = (await revisions().list(post.id, { limit: 1 })).items[0]!;
      listed.tags.push('listed');
      listed.createdAt.setUTCFullYear(1991);
      expect(await revisions().get(post.id, 1)).toStrictEqual(revisionOf(post));
    });
  });
}
