import { describe, expect, it } from 'vitest';
import { FixedClock } from '../support/http.js';
import { describeOnEveryStore } from '../support/stores.js';
import { expectInvalid, setup, UNKNOWN_ID } from './helpers.js';

const DAY = 86_400_000;

describeOnEveryStore('tags, activity and stats', (make) => {
  describe('listTags', () => {
    it('answers an empty list when no post has tags', async () => {
      const t = await setup(make);
      await t.create({ title: 'Untagged' });
      const { data, response } = await t.api.GET('/tags');
      expect(response.status).toBe(200);
      expect(data).toEqual({ items: [] });
    });

    it('counts the posts of any status carrying each tag, most used first, ties by name in byte order', async () => {
      const t = await setup(make);
      await t.create({ title: 'One', tags: ['B', 'a'] });
      await t.create({ title: 'Two', tags: ['a', 'zeta'], status: 'published' });
      const three = await t.create({ title: 'Three', tags: ['a', 'äpfel', 'b'] });
      await t.patch(three.id, 1, { status: 'archived' });
      const gone = await t.create({ title: 'Gone', tags: ['a', 'deleted-tag'] });
      await t.create({ title: 'Four', tags: ['c'] });
      const before = await t.api.GET('/tags');
      expect(before.data!.items[0]).toEqual({ name: 'a', count: 4 });
      expect((await t.send('DELETE', `/posts/${gone.id}`, { headers: { 'if-match': '*' } })).status).toBe(204);
      const { data } = await t.api.GET('/tags');
      expect(data!.items).toEqual([
        { name: 'a', count: 3 },
        { name: 'b', count: 2 },
        { name: 'c', count: 1 },
        { name: 'zeta', count: 1 },
        { name: 'äpfel', count: 1 },
      ]);
    });
  });

  describe('listActivity', () => {
    it('lists every kind of change newest first with its actor, the title then and the version after it', async () => {
      const t = await setup(make);
      const post = await t.create({ title: 'Life' });
      await t.patch(post.id, 1, { title: 'Life, edited' });
      await t.patch(post.id, 2, { status: 'published' });
      await t.patch(post.id, 3, { status: 'draft' });
      await t.patch(post.id, 4, { status: 'archived' });
      expect((await t.send('POST', `/posts/${post.id}/revisions/1/restore`, { headers: { 'if-match': '"5"' } })).status).toBe(200);
      expect((await t.send('DELETE', `/posts/${post.id}`, { headers: { 'if-match': '"6"' } })).status).toBe(204);
      const other = await t.create({ title: 'Other' });
      const { data, response } = await t.api.GET('/activity');
      expect(response.status).toBe(200);
      expect(data!.nextCursor).toBeNull();
      expect(data!.items.map((e) => [e.type, e.postId, e.postTitle, e.postVersion])).toEqual([
        ['created', other.id, 'Other', 1],
        ['deleted', post.id, 'Life', 6],
        ['restored', post.id, 'Life', 6],
        ['archived', post.id, 'Life, edited', 5],
        ['unpublished', post.id, 'Life, edited', 4],
        ['published', post.id, 'Life, edited', 3],
        ['updated', post.id, 'Life, edited', 2],
        ['created', post.id, 'Life', 1],
      ]);
      for (const event of data!.items) expect(event.actor).toEqual({ id: t.admin.id, name: 'Ada Lovelace' });
      expect(new Set(data!.items.map((e) => e.id)).size).toBe(8);
    });

    it('filters by post and by type, and pages with a cursor bound to those filters', async () => {
      const t = await setup(make);
      const a = await t.create({ title: 'A' });
      const b = await t.create({ title: 'B' });
      for (let v = 1; v <= 3; v++) {
        await t.patch(a.id, v, { excerpt: `a${v}` });
        await t.patch(b.id, v, { excerpt: `b${v}` });
      }
      const forA = await t.api.GET('/activity', { params: { query: { postId: a.id } } });
      expect(forA.data!.items.map((e) => e.postVersion)).toEqual([4, 3, 2, 1]);
      expect(forA.data!.items.every((e) => e.postId === a.id)).toBe(true);
      const seen: string[] = [];
      let cursor: string | undefined;
      for (let pages = 0; pages < 5; pages++) {
        const { data } = await t.api.GET('/activity', { params: { query: { type: 'updated', limit: 4, ...(cursor ? { cursor } : {}) } } });
        expect(data!.items.every((e) => e.type === 'updated')).toBe(true);
        seen.push(...data!.items.map((e) => `${e.postId}:${e.postVersion}`));
        if (data!.nextCursor === null) break;
        cursor = data!.nextCursor;
        await expectInvalid(await t.send('GET', `/activity?type=created&limit=4&cursor=${cursor}`), '/query/cursor');
        await expectInvalid(await t.send('GET', `/activity?type=updated&postId=${a.id}&limit=4&cursor=${cursor}`), '/query/cursor');
      }
      expect(seen).toEqual([`${b.id}:4`, `${a.id}:4`, `${b.id}:3`, `${a.id}:3`, `${b.id}:2`, `${a.id}:2`]);
      const both = await t.api.GET('/activity', { params: { query: { postId: b.id, type: 'created' } } });
      expect(both.data!.items.map((e) => [e.postId, e.type])).toEqual([[b.id, 'created']]);
      const none = await t.api.GET('/activity', { params: { query: { postId: UNKNOWN_ID } } });
      expect(none.data).toEqual({ items: [], nextCursor: null });
    });

    it('answers 422 for a bad limit, post id, type or cursor', async () => {
      const t = await setup(make);
      await expectInvalid(await t.send('GET', '/activity?limit=0'), '/query/limit');
      await expectInvalid(await t.send('GET', '/activity?limit=101'), '/query/limit');
      await expectInvalid(await t.send('GET', '/activity?postId=nope'), '/query/postId');
      await expectInvalid(await t.send('GET', '/activity?type=viewed'), '/query/type');
      await expectInvalid(await t.send('GET', '/activity?cursor=bm90LWEtY3Vyc29y'), '/query/cursor');
    });
  });

  describe('getStats', () => {
    it('answers zeros and 30 empty days for an empty blog', async () => {
      const clock = new FixedClock(new Date('2026-03-01T00:00:00.000Z'));
      const t = await setup(make, { clock });
      const { data, response } = await t.api.GET('/stats');
      expect(response.status).toBe(200);
      expect(data!.posts).toEqual({ draft: 0, scheduled: 0, published: 0, archived: 0, total: 0 });
      expect(data!.wordsPublished).toBe(0);
      expect(data!.editsPerDay).toHaveLength(30);
      expect(data!.editsPerDay[0]).toEqual({ date: '2026-01-31', edits: 0 });
      expect(data!.editsPerDay[29]).toEqual({ date: '2026-03-01', edits: 0 });
      expect(data!.editsPerDay.every((d) => d.edits === 0)).toBe(true);
    });

    it('counts the scheduled drafts as scheduled, a subset of draft that total does not count twice (200)', async () => {
      const clock = new FixedClock(new Date('2026-03-01T00:00:00.000Z'));
      const t = await setup(make, { clock });
      await t.create({ title: 'Soon', publishAt: '2026-03-02T09:00:00.000Z' });
      const later = await t.create({ title: 'Later', publishAt: '2026-03-03T09:00:00.000Z' });
      await t.create({ title: 'Plain draft' });
      await t.create({ title: 'Out', status: 'published' });
      await t.patch(later.id, 1, { publishAt: null });
      const { data, response } = await t.api.GET('/stats');
      expect(response.status).toBe(200);
      expect(data!.posts).toEqual({ draft: 3, scheduled: 1, published: 1, archived: 0, total: 4 });
    });

    it('counts posts by status, words published and edits per UTC day for the last 30 days', async () => {
      const today = Date.parse('2026-06-30T00:00:00.000Z');
      const clock = new FixedClock(new Date(today - 40 * DAY));
      const t = await setup(make, { clock });
      const old = await t.create({ title: 'Old', body: 'one two three', status: 'published' }); // 40 days ago: outside
      clock.set(new Date(today - 29 * DAY));
      const first = await t.create({ title: 'First day', body: 'four five' }); // the oldest day shown
      await t.patch(first.id, 1, { status: 'published', body: 'four five six seven' });
      clock.set(new Date(today - 1)); // 23:59:59.999 yesterday
      const archived = await t.create({ title: 'Archived', body: 'eight nine', status: 'published' });
      await t.patch(archived.id, 1, { status: 'archived' });
      clock.set(new Date(today));
      await t.create({ title: 'Draft today', body: 'ten eleven twelve' });
      const doomed = await t.create({ title: 'Deleted today', body: 'thirteen', status: 'published' });
      expect((await t.send('DELETE', `/posts/${doomed.id}`, { headers: { 'if-match': '*' } })).status).toBe(204);
      clock.set(new Date(today + 12 * 3_600_000));

      const { data } = await t.api.GET('/stats');
      expect(data!.posts).toEqual({ draft: 1, scheduled: 0, published: 2, archived: 1, total: 4 });
      expect(data!.wordsPublished).toBe(3 + 4);
      expect(await t.getPost(old.id)).toMatchObject({ wordCount: 3 });
      const days = data!.editsPerDay;
      expect(days).toHaveLength(30);
      expect(days.map((d) => d.date)).toEqual(
        Array.from({ length: 30 }, (_, i) => new Date(today - (29 - i) * DAY).toISOString().slice(0, 10)),
      );
      expect(days[0]).toEqual({ date: '2026-06-01', edits: 2 });
      expect(days[28]).toEqual({ date: '2026-06-29', edits: 2 });
      expect(days[29]).toEqual({ date: '2026-06-30', edits: 3 });
      expect(days.slice(1, 28).every((d) => d.edits === 0)).toBe(true);
    });
  });
});
