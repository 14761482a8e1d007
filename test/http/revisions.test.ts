import { describe, expect, it } from 'vitest';
import { exampleValue, formatErrors, loadBundle, schemaValidator } from '../contract/bundle.js';
import { storedMedia } from '../support/media-records.js';
import { describeOnEveryStore } from '../support/stores.js';
import type { components } from '../../generated/api.js';
import { expectInvalid, expectProblem, expectUnauthorized, peek, setup, UNKNOWN_ID, type ApiPost, type Setup } from './helpers.js';

type ApiDiff = components['schemas']['RevisionDiff'];
const validator = schemaValidator(loadBundle());

/** The cover of the RevisionDiffAgainstCurrent example. */
const DIAGRAM = {
  id: 'd3rmw6a2ztq5hkx4np7ucb2fya',
  alt: 'Diagram: a keyset cursor pointing at the last row of one page and the first of the next',
};

describeOnEveryStore('revisions', (make) => {
  describe('listRevisions', () => {
    it('lists one revision per write, newest first, without bodies, page by page', async () => {
      const t = await setup(make);
      const post = await t.create({ title: 'v1', body: 'body one' });
      for (let v = 1; v < 5; v++) await t.patch(post.id, v, { title: `v${v + 1}` });
      const versions: number[] = [];
      let cursor: string | undefined;
      for (let pages = 0; pages < 5; pages++) {
        const { data, response } = await t.api.GET('/posts/{id}/revisions', {
          params: { path: { id: post.id }, query: { limit: 2, ...(cursor ? { cursor } : {}) } },
        });
        expect(response.status).toBe(200);
        for (const item of data!.items) {
          expect(item).not.toHaveProperty('body');
          expect(item).toMatchObject({ postId: post.id, title: `v${item.version}`, actor: { id: t.admin.id, name: 'Ada Lovelace' } });
          versions.push(item.version);
        }
        if (data!.nextCursor === null) break;
        cursor = data!.nextCursor;
      }
      expect(versions).toEqual([5, 4, 3, 2, 1]);
    });

    it('names in changed the fields each write changed, across pages, as the contract’s RevisionPage allows', async () => {
      const t = await setup(make);
      const post = await t.create({ title: 'One', body: 'First body.', tags: ['b', 'a'] });
      await t.patch(post.id, 1, { title: 'Two', status: 'published' });
      await t.patch(post.id, 2, { body: 'Second body.', tags: ['a', 'b'] });
      await t.patch(post.id, 3, { tags: ['a', 'c'], excerpt: 'Short.' });
      const changed: string[][] = [];
      let cursor: string | undefined;
      for (let pages = 0; pages < 5; pages++) {
        const response = await t.send('GET', `/posts/${post.id}/revisions?limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
        expect(response.status).toBe(200);
        const page = (await response.json()) as components['schemas']['RevisionPage'];
        const errors = validator.errors({ $ref: '#/components/schemas/RevisionPage' }, page);
        expect(errors, formatErrors(errors)).toEqual([]);
        changed.push(...page.items.map((item) => item.changed));
        if (page.nextCursor === null) break;
        cursor = page.nextCursor;
      }
      expect(changed).toEqual([['excerpt', 'tags'], ['body'], ['title', 'status'], []]);
    });

    it('answers 404 for an unknown post', async () => {
      const t = await setup(make);
      await expectProblem(await t.send('GET', `/posts/${UNKNOWN_ID}/revisions`), 404, 'not-found');
    });

    it('answers 422 for a bad limit, a malformed id and a cursor from another post or list', async () => {
      const t = await setup(make);
      const a = await t.create({ title: 'A' });
      await t.patch(a.id, 1, { title: 'A2' });
      const b = await t.create({ title: 'B' });
      await t.patch(b.id, 1, { title: 'B2' });
      const { data } = await t.api.GET('/posts/{id}/revisions', { params: { path: { id: a.id }, query: { limit: 1 } } });
      const cursor = data!.nextCursor!;
      expect((await t.send('GET', `/posts/${a.id}/revisions?limit=1&cursor=${encodeURIComponent(cursor)}`)).status).toBe(200);
      await expectInvalid(await t.send('GET', `/posts/${b.id}/revisions?limit=1&cursor=${encodeURIComponent(cursor)}`), '/query/cursor');
      const { data: postPage } = await t.api.GET('/posts', { params: { query: { limit: 1 } } });
      await expectInvalid(await t.send('GET', `/posts/${a.id}/revisions?cursor=${postPage!.nextCursor!}`), '/query/cursor');
      await expectInvalid(await t.send('GET', `/posts/${a.id}/revisions?limit=101`), '/query/limit');
      await expectInvalid(await t.send('GET', '/posts/nope/revisions'), '/path/id');
    });
  });

  describe('getRevision', () => {
    it('answers 200 with the post as that write left it, body included', async () => {
      const t = await setup(make);
      const post = await t.create({ title: 'First', excerpt: 'e1', body: 'one two three', tags: ['x'] });
      await t.patch(post.id, 1, { title: 'Second', body: 'four', status: 'published' });
      const { data, response } = await t.api.GET('/posts/{id}/revisions/{version}', { params: { path: { id: post.id, version: 1 } } });
      expect(response.status).toBe(200);
      expect(data).toEqual({
        postId: post.id,
        version: 1,
        title: 'First',
        slug: post.slug,
        excerpt: 'e1',
        body: 'one two three',
        tags: ['x'],
        status: 'draft',
        coverImage: null,
        seo: { title: null, description: null, canonicalUrl: null },
        wordCount: 3,
        createdAt: post.createdAt,
        actor: { id: t.admin.id, name: 'Ada Lovelace' },
        autosave: false,
      });
      const second = await t.send('GET', `/posts/${post.id}/revisions/2`);
      expect(await second.json()).toMatchObject({ version: 2, title: 'Second', body: 'four', status: 'published', wordCount: 1 });
    });

    it('answers 404 for an unknown version or post, 422 for a version out of range and 401 without a token', async () => {
      const t = await setup(make);
      const post = await t.create({ title: 'Only one' });
      await expectProblem(await t.send('GET', `/posts/${post.id}/revisions/2`), 404, 'not-found');
      await expectProblem(await t.send('GET', `/posts/${UNKNOWN_ID}/revisions/1`), 404, 'not-found');
      await expectInvalid(await t.send('GET', `/posts/${post.id}/revisions/0`), '/path/version');
      await expectInvalid(await t.send('GET', `/posts/${post.id}/revisions/2147483648`), '/path/version');
      await expectInvalid(await t.send('GET', `/posts/${post.id}/revisions/one`), '/path/version');
      await expectUnauthorized(await t.send('GET', `/posts/${post.id}/revisions/1`, { anonymous: true }));
    });
  });

  describe('getRevisionDiff', () => {
    /** The post of the RevisionDiffAgainstCurrent example, written as an editor would: draft, rewrite, publish. */
    async function exampleHistory(t: Awaited<ReturnType<typeof setup>>) {
      await storedMedia(t.store, DIAGRAM.id, DIAGRAM.alt);
      const post = await t.create({
        title: 'Cursor pagination',
        slug: 'cursor-pagination-without-tears',
        body: '# Cursor pagination\n\nOffsets skip rows. Draft.\n',
        tags: ['api'],
      });
      await t.patch(post.id, 1, {
        title: 'Cursor pagination without tears',
        excerpt: 'Why offsets skip rows, and what to use instead.',
        body: [
          '# Cursor pagination',
          '',
          'Offsets skip rows when a row is inserted',
          'between two page requests.',
          '',
          'A cursor names the last row seen, so the',
          'next page starts right after it.',
          '',
        ].join('\n'),
        tags: ['api', 'postgres'],
        coverImage: { mediaId: DIAGRAM.id, alt: DIAGRAM.alt },
      });
      await t.patch(post.id, 2, { status: 'published' });
      return post;
    }

    it('answers what restoring a revision would change, field by field, exactly as the contract example shows', async () => {
      const t = await setup(make);
      const post = await exampleHistory(t);
      const { data, response } = await t.api.GET('/posts/{id}/revisions/{version}/diff', { params: { path: { id: post.id, version: 1 } } });
      expect(response.status).toBe(200);
      const example = exampleValue(loadBundle(), 'RevisionDiffAgainstCurrent') as Record<string, unknown>;
      expect(data).toEqual({ ...example, postId: post.id });
      const explicit = await t.send('GET', `/posts/${post.id}/revisions/1/diff?against=current`);
      expect(await explicit.json()).toEqual(data);
    });

    it('compares two revisions, in either direction, and a revision with itself as unchanged', async () => {
      const t = await setup(make);
      const post = await exampleHistory(t);
      const forward = (await (await t.send('GET', `/posts/${post.id}/revisions/2/diff?against=1`)).json()) as ApiDiff;
      expect(forward).toMatchObject({
        from: { version: 1, current: false },
        to: { version: 2, current: false },
        changed: ['title', 'excerpt', 'tags', 'coverImage', 'body'],
        tags: { changed: true, added: ['postgres'], removed: [] },
        status: { changed: false, from: 'draft', to: 'draft' },
        coverImage: { changed: true, from: null, to: { mediaId: DIAGRAM.id, alt: DIAGRAM.alt } },
        seo: { changed: false },
        body: { changed: true, additions: 5, deletions: 1, truncated: false },
      });
      expect(forward.body.unified).toMatch(/^--- body v1\n\+\+\+ body v2\n@@ -1,3 \+1,7 @@\n/);
      const backward = await (await t.send('GET', `/posts/${post.id}/revisions/1/diff?against=2`)).json();
      expect(backward).toMatchObject({ tags: { added: [], removed: ['postgres'] }, body: { additions: 1, deletions: 5 } });
      const same = (await (await t.send('GET', `/posts/${post.id}/revisions/3/diff`)).json()) as ApiDiff;
      expect(same).toMatchObject({ from: { version: 3, current: true }, to: { version: 3, current: false }, changed: [] });
      expect(same.body).toEqual({ changed: false, additions: 0, deletions: 0, unified: '', truncated: false });
    });

    it('answers 404 for an unknown post, version or against, even one past the largest version, and changes nothing', async () => {
      const t = await setup(make);
      const post = await t.create({ title: 'Only one' });
      await expectProblem(await t.send('GET', `/posts/${UNKNOWN_ID}/revisions/1/diff`), 404, 'not-found');
      await expectProblem(await t.send('GET', `/posts/${post.id}/revisions/2/diff`), 404, 'not-found');
      await expectProblem(await t.send('GET', `/posts/${post.id}/revisions/1/diff?against=2`), 404, 'not-found');
      await expectProblem(await t.send('GET', `/posts/${post.id}/revisions/1/diff?against=9999999999`), 404, 'not-found');
      expect(await t.revisions(post.id)).toHaveLength(1);
    });

    it('answers 422 for an against that is neither current nor a canonical version, and 401 without a token', async () => {
      const t = await setup(make);
      const post = await t.create({ title: 'Only one' });
      for (const against of ['0', '01', '-1', '+1', 'latest', 'Current', '1.0', '12345678901', '']) {
        await expectInvalid(
          await t.send('GET', `/posts/${post.id}/revisions/1/diff?against=${encodeURIComponent(against)}`),
          '/query/against',
        );
      }
      await expectInvalid(await t.send('GET', `/posts/${post.id}/revisions/1/diff?against=1&against=current`), '/query/against');
      await expectInvalid(await t.send('GET', `/posts/${post.id}/revisions/1/diff?agianst=1`), '/query/agianst');
      await expectUnauthorized(await t.send('GET', `/posts/${post.id}/revisions/1/diff`, { anonymous: true }));
    });
  });

  describe('restoreRevision', () => {
    it('copies title, excerpt, body and tags of the revision into the post as a new version and revision', async () => {
      const t = await setup(make);
      const post = await t.create({ title: 'Original', excerpt: 'first', body: 'one two three', tags: ['a', 'b'] });
      await t.patch(post.id, 1, {
        title: 'Rewritten',
        excerpt: 'second',
        body: 'four',
        tags: ['c'],
        slug: 'new-slug',
        status: 'published',
      });
      const { data, response } = await t.api.POST('/posts/{id}/revisions/{version}/restore', {
        params: { path: { id: post.id, version: 1 }, header: { 'If-Match': '"2"' } },
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('etag')).toBe('"3"');
      expect(data).toMatchObject({
        title: 'Original',
        excerpt: 'first',
        body: 'one two three',
        tags: ['a', 'b'],
        wordCount: 3,
        // Not part of what a restore copies:
        slug: 'new-slug',
        status: 'published',
        version: 3,
      });
      expect(await t.getPost(post.id)).toEqual(data);
      const revisions = await t.revisions(post.id);
      expect(revisions.map((r) => [r.version, r.title])).toEqual([
        [3, 'Original'],
        [2, 'Rewritten'],
        [1, 'Original'],
      ]);
      expect((await t.activity(post.id))[0]).toMatchObject({
        type: 'restored',
        postTitle: 'Original',
        postVersion: 3,
        actor: { id: t.admin.id },
      });
    });

    it('brings back the cover image and SEO fields of the revision; the revisions list and show them', async () => {
      const t = await setup(make);
      await storedMedia(t.store, DIAGRAM.id, DIAGRAM.alt);
      const seo = { title: 'Cursors, explained', description: 'Why offsets skip rows.', canonicalUrl: 'https://example.com/cursors' };
      const post = await t.create({ title: 'Covered', coverImage: { mediaId: DIAGRAM.id }, seo });
      expect([post.coverImage, post.seo]).toEqual([{ mediaId: DIAGRAM.id, alt: DIAGRAM.alt }, seo]);
      const bare = await t.patch(post.id, 1, { coverImage: null, seo: { title: null, canonicalUrl: null } });
      expect([bare.coverImage, bare.seo]).toEqual([null, { title: null, description: 'Why offsets skip rows.', canonicalUrl: null }]);
      const restored = await t.send('POST', `/posts/${post.id}/revisions/1/restore`, { headers: { 'If-Match': '"2"' } });
      expect(restored.status).toBe(200);
      expect(await restored.json()).toMatchObject({ version: 3, coverImage: post.coverImage, seo });
      const revisions = await t.revisions(post.id);
      expect(revisions.map((r) => [r.version, r.changed, r.coverImage])).toEqual([
        [3, ['coverImage', 'seo'], post.coverImage],
        [2, ['coverImage', 'seo'], null],
        [1, [], post.coverImage],
      ]);
      const { data } = await t.api.GET('/posts/{id}/revisions/{version}', { params: { path: { id: post.id, version: 2 } } });
      expect(data).toMatchObject({ coverImage: null, seo: bare.seo });
    });

    it('answers 404 for an unknown revision or post, whatever If-Match says, and leaves the post as it was', async () => {
      const t = await setup(make);
      const post = await t.create({ title: 'Alone' });
      await expectProblem(
        await t.send('POST', `/posts/${post.id}/revisions/9/restore`, { headers: { 'if-match': '"1"' } }),
        404,
        'not-found',
      );
      await expectProblem(
        await t.send('POST', `/posts/${UNKNOWN_ID}/revisions/1/restore`, { headers: { 'if-match': '*' } }),
        404,
        'not-found',
      );
      // RFC 9110 §13.2.1: preconditions are ignored when the answer without them is not a 2xx.
      await expectProblem(
        await t.send('POST', `/posts/${post.id}/revisions/9/restore`, { headers: { 'if-match': '"7"' } }),
        404,
        'not-found',
      );
      await expectProblem(
        await t.send('POST', `/posts/${UNKNOWN_ID}/revisions/1/restore`, { headers: { 'if-match': '"7"' } }),
        404,
        'not-found',
      );
      expect(await t.getPost(post.id)).toEqual(post);
      expect(await t.revisions(post.id)).toHaveLength(1);
    });

    it('answers 428 without If-Match and 412 with the current post when it is stale; accepts *', async () => {
      const t = await setup(make);
      const post = await t.create({ title: 'Guarded' });
      const current = await t.patch(post.id, 1, { title: 'Guarded 2' });
      await expectProblem(await t.send('POST', `/posts/${post.id}/revisions/1/restore`), 428, 'precondition-required');
      const stale = await t.send('POST', `/posts/${post.id}/revisions/1/restore`, { headers: { 'if-match': '"1"' } });
      expect((await expectProblem(stale, 412, 'precondition-failed')).current).toEqual(current);
      expect(stale.headers.get('etag')).toBe('"2"');
      const star = await t.send('POST', `/posts/${post.id}/revisions/1/restore`, { headers: { 'if-match': '*' } });
      expect(star.status).toBe(200);
      expect((await star.json()) as ApiPost).toMatchObject({ title: 'Guarded', version: 3 });
    });

    it('answers 422 for a malformed id or version and 401 without a token', async () => {
      const t = await setup(make);
      const post = await t.create({ title: 'x' });
      await expectInvalid(await t.send('POST', `/posts/${post.id}/revisions/0/restore`, { headers: { 'if-match': '*' } }), '/path/version');
      await expectInvalid(await t.send('POST', '/posts/nope/revisions/1/restore', { headers: { 'if-match': '*' } }), '/path/id');
      await expectUnauthorized(
        await t.send('POST', `/posts/${post.id}/revisions/1/restore`, { headers: { 'if-match': '*' }, anonymous: true }),
      );
    });
  });

  describe('updatePost with autosave=true', () => {
    /** A PATCH marked as an autosave, guarded by `If-Match: "<version>"`. */
    const autosave = (t: Setup, id: string, version: number, body: Record<string, unknown>) =>
      t.send('PATCH', `/posts/${id}?autosave=true`, { body, headers: { 'if-match': `"${version}"` } });

    it('saves a draft at each autosave (version and ETag one higher) and keeps one revision for the burst, marked autosave, with one activity event', async () => {
      const t = await setup(make);
      const post = await t.create({ title: 'Draft', body: 'One.' });
      for (const [i, body] of ['One. Two.', 'One. Two. Three.', 'One. Two. Three. Four.'].entries()) {
        const response = await autosave(t, post.id, i + 1, { body });
        expect(response.status, await peek(response)).toBe(200);
        expect(response.headers.get('etag')).toBe(`"${i + 2}"`);
        expect(await response.json()).toMatchObject({ version: i + 2, body });
      }
      const revisions = await t.revisions(post.id);
      expect(revisions.map((r) => [r.version, r.autosave, r.changed])).toEqual([
        [4, true, ['body']],
        [1, false, []],
      ]);
      const { data } = await t.api.GET('/posts/{id}/revisions/{version}', { params: { path: { id: post.id, version: 4 } } });
      expect(data).toMatchObject({ version: 4, autosave: true, body: 'One. Two. Three. Four.' });
      expect((await t.send('GET', `/posts/${post.id}/revisions/2`)).status).toBe(404);
      expect((await t.activity(post.id)).map((e) => [e.type, e.postVersion])).toEqual([
        ['updated', 2],
        ['created', 1],
      ]);
    });

    it('a save without autosave after a burst records a revision of its own; a stale If-Match on an autosave answers 412 with the current post', async () => {
      const t = await setup(make);
      const post = await t.create({ title: 'Draft', body: 'One.' });
      expect((await autosave(t, post.id, 1, { body: 'Two.' })).status).toBe(200);
      await t.patch(post.id, 2, { title: 'Saved' });
      const stale = await expectProblem(await autosave(t, post.id, 2, { body: 'Lost.' }), 412, 'precondition-failed');
      expect(stale).toMatchObject({ current: { version: 3, title: 'Saved', body: 'Two.' } });
      expect((await t.revisions(post.id)).map((r) => [r.version, r.autosave])).toEqual([
        [3, false],
        [2, true],
        [1, false],
      ]);
    });

    it('ignores autosave on a published post and on a save that publishes: each save records its own revision, none marked', async () => {
      const t = await setup(make);
      const post = await t.create({ title: 'Live', body: 'One.', status: 'published' });
      expect((await autosave(t, post.id, 1, { body: 'Two.' })).status).toBe(200);
      expect((await autosave(t, post.id, 2, { body: 'Three.' })).status).toBe(200);
      const draft = await t.create({ title: 'Draft', body: 'One.' });
      expect((await autosave(t, draft.id, 1, { body: 'Two.' })).status).toBe(200);
      expect((await autosave(t, draft.id, 2, { body: 'Three.', status: 'published' })).status).toBe(200);
      expect((await t.revisions(post.id)).map((r) => [r.version, r.autosave])).toEqual([
        [3, false],
        [2, false],
        [1, false],
      ]);
      expect((await t.revisions(draft.id)).map((r) => [r.version, r.autosave])).toEqual([
        [3, false],
        [2, true],
        [1, false],
      ]);
      expect((await t.activity(post.id)).map((e) => e.type)).toEqual(['updated', 'updated', 'created']);
    });

    it('answers 422 at /query/autosave for a value that is not a boolean, changing nothing', async () => {
      const t = await setup(make);
      const post = await t.create({ title: 'Draft', body: 'One.' });
      const response = await t.send('PATCH', `/posts/${post.id}?autosave=maybe`, {
        body: { body: 'Two.' },
        headers: { 'if-match': '"1"' },
      });
      await expectInvalid(response, '/query/autosave');
      expect(await t.getPost(post.id)).toMatchObject({ version: 1, body: 'One.' });
    });
  });
});
