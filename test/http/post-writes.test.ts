import { describe, expect, it } from 'vitest';
import { FixedClock } from '../support/http.js';
import { describeOnEveryStore } from '../support/stores.js';
import { expectInvalid, expectProblem, expectUnauthorized, peek, setup, UNKNOWN_ID, type ApiPost } from './helpers.js';

const DAY = 86_400_000;

describeOnEveryStore('posts: update and delete', (make) => {
  describe('updatePost', () => {
    it('changes only the fields sent, bumps the version by one and answers 200 with the new ETag', async () => {
      const t = await setup(make);
      const before = await t.create({ title: 'Before', excerpt: 'Kept', body: 'one two', tags: ['a'] });
      const { data, response } = await t.api.PATCH('/posts/{id}', {
        params: { path: { id: before.id }, header: { 'If-Match': '"1"' } },
        body: { title: 'After', body: 'one two three `four`' },
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('etag')).toBe('"2"');
      expect(data).toMatchObject({
        id: before.id,
        title: 'After',
        slug: before.slug,
        excerpt: 'Kept',
        body: 'one two three `four`',
        tags: ['a'],
        status: 'draft',
        version: 2,
        wordCount: 4,
        createdAt: before.createdAt,
        publishedAt: null,
      });
      expect(await t.getPost(before.id)).toEqual(data);
    });

    it('records one revision and one event per write, with the actor and the title at that moment', async () => {
      const t = await setup(make);
      const post = await t.create({ title: 'One' });
      await t.patch(post.id, 1, { title: 'Two' });
      await t.patch(post.id, 2, { tags: [' X ', 'y'] });
      const revisions = await t.revisions(post.id);
      expect(revisions.map((r) => [r.version, r.title, r.tags])).toEqual([
        [3, 'Two', ['x', 'y']],
        [2, 'Two', []],
        [1, 'One', []],
      ]);
      const events = await t.activity(post.id);
      expect(events.map((e) => [e.type, e.postTitle, e.postVersion])).toEqual([
        ['updated', 'Two', 3],
        ['updated', 'Two', 2],
        ['created', 'One', 1],
      ]);
      for (const item of [...revisions, ...events]) expect(item.actor).toEqual({ id: t.admin.id, name: 'Ada Lovelace' });
    });

    it('sets publishedAt on the first publish and keeps it through unpublish, republish and archive', async () => {
      const clock = new FixedClock(new Date('2026-03-01T10:00:00.000Z'));
      const t = await setup(make, { clock });
      const post = await t.create({ title: 'Lifecycle' });
      clock.advance(DAY);
      const published = await t.patch(post.id, 1, { status: 'published' });
      expect(published.publishedAt).toBe('2026-03-02T10:00:00.000Z');
      clock.advance(DAY);
      const unpublished = await t.patch(post.id, 2, { status: 'draft' });
      expect(unpublished).toMatchObject({ status: 'draft', publishedAt: '2026-03-02T10:00:00.000Z' });
      clock.advance(DAY);
      const republished = await t.patch(post.id, 3, { status: 'published' });
      expect(republished).toMatchObject({
        status: 'published',
        publishedAt: '2026-03-02T10:00:00.000Z',
        updatedAt: '2026-03-04T10:00:00.000Z',
      });
      const archived = await t.patch(post.id, 4, { status: 'archived' });
      expect(archived).toMatchObject({ status: 'archived', publishedAt: '2026-03-02T10:00:00.000Z', version: 5 });
      const events = await t.activity(post.id);
      expect(events.map((e) => e.type)).toEqual(['archived', 'published', 'unpublished', 'published', 'created']);
      expect((await t.revisions(post.id)).map((r) => r.status)).toEqual(['archived', 'published', 'draft', 'published', 'draft']);
    });

    it('answers 428 without If-Match and changes nothing', async () => {
      const t = await setup(make);
      const post = await t.create({ title: 'Guarded' });
      await expectProblem(await t.send('PATCH', `/posts/${post.id}`, { body: { title: 'x' } }), 428, 'precondition-required');
      expect(await t.getPost(post.id)).toEqual(post);
    });

    it('rejects a stale If-Match with 412 and the current post', async () => {
      const t = await setup(make);
      const post = await t.create({ title: 'Guarded' });
      const current = await t.patch(post.id, 1, { title: 'Moved on' });
      for (const ifMatch of ['"1"', 'W/"2"', '"3", "4"', '"abc"']) {
        const response = await t.send('PATCH', `/posts/${post.id}`, { body: { title: 'Lost update' }, headers: { 'if-match': ifMatch } });
        const problem = await expectProblem(response, 412, 'precondition-failed');
        expect(problem.current, ifMatch).toEqual(current);
        expect(response.headers.get('etag')).toBe('"2"');
      }
      expect(await t.getPost(post.id)).toEqual(current);
      expect(await t.revisions(post.id)).toHaveLength(2);
    });

    it('answers a weak If-Match, even W/ of the current ETag, with 412 saying weak tags never match, and changes nothing', async () => {
      const t = await setup(make);
      const post = await t.create({ title: 'Guarded' });
      for (const ifMatch of ['W/"1"', 'W/"1", W/"2"', ' W/"1" ,']) {
        const response = await t.send('PATCH', `/posts/${post.id}`, { body: { title: 'Weak' }, headers: { 'if-match': ifMatch } });
        const problem = await expectProblem(response, 412, 'precondition-failed');
        expect(problem.detail, ifMatch).toBe(
          'If-Match names no strong ETag of this post; weak tags (W/"…") never match, as If-Match uses the strong comparison (RFC 9110 §13.1.1). The current ETag is "1".',
        );
        expect(problem.detail).not.toMatch(/kept changing/);
        expect(problem.current).toEqual(post);
        expect(response.headers.get('etag')).toBe('"1"');
      }
      const deleted = await t.send('DELETE', `/posts/${post.id}`, { headers: { 'if-match': 'W/"1"' } });
      expect((await expectProblem(deleted, 412, 'precondition-failed')).detail).toMatch(/weak tags .* never match/);
      const restored = await t.send('POST', `/posts/${post.id}/revisions/1/restore`, { headers: { 'if-match': 'W/"1"' } });
      expect((await expectProblem(restored, 412, 'precondition-failed')).detail).toMatch(/weak tags .* never match/);
      expect(await t.getPost(post.id)).toEqual(post);
      expect(await t.revisions(post.id)).toHaveLength(1);
    });

    it('answers a malformed If-Match with 422 at /headers/if-match saying what it must be, and changes nothing', async () => {
      const t = await setup(make);
      const post = await t.create({ title: 'Guarded' });
      for (const ifMatch of ['abc', '1', '"1', '"1" "2"', 'W/1', 'w/"1"', '*, "1"', ',', '']) {
        const response = await t.send('PATCH', `/posts/${post.id}`, { body: { title: 'x' }, headers: { 'if-match': ifMatch } });
        const problem = await expectInvalid(response, '/headers/if-match');
        expect(problem.detail, ifMatch).toBe('If-Match is not * or a list of quoted entity tags such as "3".');
        expect(problem.errors, ifMatch).toEqual([
          { pointer: '/headers/if-match', message: 'must be * or a comma-separated list of quoted entity tags such as "3"' },
        ]);
      }
      await expectInvalid(await t.send('DELETE', `/posts/${post.id}`, { headers: { 'if-match': 'abc' } }), '/headers/if-match');
      await expectInvalid(
        await t.send('POST', `/posts/${post.id}/revisions/1/restore`, { headers: { 'if-match': 'abc' } }),
        '/headers/if-match',
      );
      expect(await t.getPost(post.id)).toEqual(post);
    });

    it('accepts If-Match: * and a list naming the current ETag', async () => {
      const t = await setup(make);
      const post = await t.create({ title: 'Star' });
      const star = await t.send('PATCH', `/posts/${post.id}`, { body: { excerpt: 'any' }, headers: { 'if-match': '*' } });
      expect(star.status).toBe(200);
      expect(star.headers.get('etag')).toBe('"2"');
      const list = await t.send('PATCH', `/posts/${post.id}`, { body: { excerpt: 'listed' }, headers: { 'if-match': '"7", "2"' } });
      expect(list.status).toBe(200);
      expect(((await list.json()) as ApiPost).version).toBe(3);
      const mixed = await t.send('PATCH', `/posts/${post.id}`, {
        body: { excerpt: 'mixed' },
        headers: { 'if-match': 'W/"3", ,"a,b", "3"' },
      });
      expect(mixed.status, await peek(mixed)).toBe(200);
    });

    it('answers 404 for an unknown post, even with If-Match: *', async () => {
      const t = await setup(make);
      for (const ifMatch of ['*', '"1"']) {
        await expectProblem(
          await t.send('PATCH', `/posts/${UNKNOWN_ID}`, { body: { title: 'x' }, headers: { 'if-match': ifMatch } }),
          404,
          'not-found',
        );
      }
    });

    it('answers 409 with a free suggestedSlug when the new slug is taken', async () => {
      const t = await setup(make);
      await t.create({ title: 'Taken' });
      await t.create({ title: 'Taken' });
      const post = await t.create({ title: 'Mine' });
      const response = await t.send('PATCH', `/posts/${post.id}`, { body: { slug: 'taken' }, headers: { 'if-match': '"1"' } });
      const problem = await expectProblem(response, 409, 'slug-taken');
      expect(problem.suggestedSlug).toBe('taken-3');
      expect(await t.getPost(post.id)).toEqual(post);
      expect((await t.patch(post.id, 1, { slug: 'mine' })).slug).toBe('mine');
      expect((await t.patch(post.id, 2, { slug: problem.suggestedSlug })).slug).toBe('taken-3');
    });

    it('answers 400 for malformed JSON, 401 without a token and 413 over the body limit', async () => {
      const t = await setup(make, { bodyLimitBytes: 1024 });
      const post = await t.create({ title: 'Limits' });
      const headers = { 'if-match': '"1"' };
      await expectProblem(await t.send('PATCH', `/posts/${post.id}`, { raw: '{"title":', headers }), 400, 'malformed-request');
      await expectUnauthorized(await t.send('PATCH', `/posts/${post.id}`, { body: { title: 'x' }, headers, anonymous: true }));
      await expectProblem(
        await t.send('PATCH', `/posts/${post.id}`, { body: { body: 'x'.repeat(4096) }, headers }),
        413,
        'payload-too-large',
      );
      expect(await t.getPost(post.id)).toEqual(post);
    });

    it('answers 422 for an empty or invalid body, a malformed id, an overlong If-Match and text the domain refuses', async () => {
      const t = await setup(make);
      const post = await t.create({ title: 'Valid' });
      const headers = { 'if-match': '"1"' };
      await expectInvalid(await t.send('PATCH', `/posts/${post.id}`, { body: {}, headers }), '/body');
      await expectInvalid(
        await t.send('PATCH', `/posts/${post.id}`, { body: { title: '', slug: '-bad-', status: 'gone', colour: 1 }, headers }),
        '/body/title',
        '/body/slug',
        '/body/status',
        '/body/colour',
      );
      await expectInvalid(await t.send('PATCH', '/posts/nope', { body: { title: 'x' }, headers }), '/path/id');
      await expectInvalid(
        await t.send('PATCH', `/posts/${post.id}`, { body: { title: 'x' }, headers: { 'if-match': `"${'1'.repeat(199)}"` } }),
        '/headers/if-match',
      );
      await expectInvalid(await t.send('PATCH', `/posts/${post.id}`, { body: { tags: ['fine', ' \t '] }, headers }), '/body/tags/1');
      await expectInvalid(
        await t.send('PATCH', `/posts/${post.id}`, { body: { title: 'a\u0000', body: '\u0000', excerpt: 'lone \ud800' }, headers }),
        '/body/title',
        '/body/body',
        '/body/excerpt',
      );
      expect(await t.getPost(post.id)).toEqual(post);
    });
  });

  describe('deletePost', () => {
    it('deletes the post and its revisions with 204; the activity log keeps the event with its title', async () => {
      const t = await setup(make);
      const post = await t.create({ title: 'Doomed', slug: 'doomed' });
      await t.patch(post.id, 1, { title: 'Doomed indeed' });
      const { response } = await t.api.DELETE('/posts/{id}', { params: { path: { id: post.id }, header: { 'If-Match': '"2"' } } });
      expect(response.status).toBe(204);
      expect(await response.text()).toBe('');
      await expectProblem(await t.send('GET', `/posts/${post.id}`), 404, 'not-found');
      await expectProblem(await t.send('GET', `/posts/${post.id}/revisions`), 404, 'not-found');
      await expectProblem(await t.send('GET', `/posts/${post.id}/revisions/1`), 404, 'not-found');
      expect((await t.allPosts()).total).toBe(0);
      const events = await t.activity(post.id);
      expect(events.map((e) => [e.type, e.postTitle, e.postVersion])).toEqual([
        ['deleted', 'Doomed indeed', 2],
        ['updated', 'Doomed indeed', 2],
        ['created', 'Doomed', 1],
      ]);
      expect(events[0]!.actor).toEqual({ id: t.admin.id, name: 'Ada Lovelace' });
      // The slug is free again.
      expect((await t.create({ title: 'Reborn', slug: 'doomed' })).slug).toBe('doomed');
    });

    it('answers 428 without If-Match and 412 with the current post when it is stale', async () => {
      const t = await setup(make);
      const post = await t.create({ title: 'Kept' });
      await expectProblem(await t.send('DELETE', `/posts/${post.id}`), 428, 'precondition-required');
      const current = await t.patch(post.id, 1, { title: 'Kept, changed' });
      const response = await t.send('DELETE', `/posts/${post.id}`, { headers: { 'if-match': '"1"' } });
      const problem = await expectProblem(response, 412, 'precondition-failed');
      expect(problem.current).toEqual(current);
      expect(response.headers.get('etag')).toBe('"2"');
      expect(await t.getPost(post.id)).toEqual(current);
    });

    it('deletes any existing post with If-Match: *', async () => {
      const t = await setup(make);
      const post = await t.create({ title: 'Star' });
      await t.patch(post.id, 1, { title: 'Star 2' });
      expect((await t.send('DELETE', `/posts/${post.id}`, { headers: { 'if-match': '*' } })).status).toBe(204);
      expect((await t.activity(post.id))[0]).toMatchObject({ type: 'deleted', postVersion: 2 });
    });

    it('answers 404 for an unknown post, 422 for a malformed id and 401 without a token', async () => {
      const t = await setup(make);
      await expectProblem(await t.send('DELETE', `/posts/${UNKNOWN_ID}`, { headers: { 'if-match': '*' } }), 404, 'not-found');
      await expectInvalid(await t.send('DELETE', '/posts/nope', { headers: { 'if-match': '*' } }), '/path/id');
      await expectUnauthorized(await t.send('DELETE', `/posts/${UNKNOWN_ID}`, { headers: { 'if-match': '*' }, anonymous: true }));
    });
  });
});
