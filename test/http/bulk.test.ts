import { expect, it } from 'vitest';
import { describeOnEveryStore } from '../support/stores.js';
import type { PostRepository } from '../../src/domain/index.js';
import { expectInvalid, expectProblem, expectUnauthorized, instrumented, peek, setup, UNKNOWN_ID, type Setup } from './helpers.js';

async function bulk(t: Setup, body: Record<string, unknown>) {
  const response = await t.send('POST', '/posts/bulk', { body });
  expect(response.status, await peek(response)).toBe(200);
  return (await response.json()) as {
    action: string;
    succeeded: { id: string; version: number }[];
    failed: { id: string; reason: string; detail: string }[];
  };
}

describeOnEveryStore('bulkPosts', (make) => {
  it('publishes each post on its own and reports, in request order, which failed and why', async () => {
    const t = await setup(make);
    const a = await t.create({ title: 'A' });
    const live = await t.create({ title: 'Live', status: 'published' });
    const b = await t.create({ title: 'B' });
    const archived = await t.create({ title: 'Archived' });
    await t.patch(archived.id, 1, { status: 'archived' });
    const { data, response } = await t.api.POST('/posts/bulk', {
      body: { ids: [b.id, live.id, UNKNOWN_ID, a.id, archived.id], action: 'publish' },
    });
    expect(response.status).toBe(200);
    expect(data).toEqual({
      action: 'publish',
      succeeded: [
        { id: b.id, version: 2 },
        { id: a.id, version: 2 },
        { id: archived.id, version: 3 },
      ],
      failed: [
        { id: live.id, reason: 'invalid_transition', detail: expect.any(String) },
        { id: UNKNOWN_ID, reason: 'not_found', detail: expect.any(String) },
      ],
    });
    for (const post of [a, b]) {
      const now = await t.getPost(post.id);
      expect(now).toMatchObject({ status: 'published', version: 2, publishedAt: now.updatedAt });
      expect((await t.revisions(post.id)).map((r) => r.status)).toEqual(['published', 'draft']);
      expect((await t.activity(post.id))[0]).toMatchObject({ type: 'published', postVersion: 2, actor: { id: t.admin.id } });
    }
    expect(await t.getPost(live.id)).toEqual(live);
    expect(await t.revisions(live.id)).toHaveLength(1);
  });

  it('unpublishes only published posts and archives any post not archived yet', async () => {
    const t = await setup(make);
    const draft = await t.create({ title: 'Draft' });
    const live = await t.create({ title: 'Live', status: 'published' });
    const unpublished = await bulk(t, { ids: [draft.id, live.id], action: 'unpublish' });
    expect(unpublished.succeeded).toEqual([{ id: live.id, version: 2 }]);
    expect(unpublished.failed).toMatchObject([{ id: draft.id, reason: 'invalid_transition' }]);
    expect(await t.getPost(live.id)).toMatchObject({ status: 'draft', publishedAt: live.publishedAt });
    expect((await t.activity(live.id))[0]!.type).toBe('unpublished');
    const archivedOnce = await bulk(t, { ids: [draft.id, live.id], action: 'archive' });
    expect(archivedOnce.succeeded).toEqual([
      { id: draft.id, version: 2 },
      { id: live.id, version: 3 },
    ]);
    const archivedTwice = await bulk(t, { ids: [draft.id], action: 'archive' });
    expect(archivedTwice).toMatchObject({ succeeded: [], failed: [{ id: draft.id, reason: 'invalid_transition' }] });
    expect((await t.activity(draft.id)).map((e) => e.type)).toEqual(['archived', 'created']);
  });

  it('deletes each post with its revisions and keeps a deleted event with its title', async () => {
    const t = await setup(make);
    const a = await t.create({ title: 'Gone A' });
    const b = await t.create({ title: 'Gone B' });
    await t.patch(b.id, 1, { title: 'Gone B, edited' });
    const keep = await t.create({ title: 'Kept' });
    const result = await bulk(t, { ids: [a.id, b.id, UNKNOWN_ID], action: 'delete' });
    expect(result.succeeded).toEqual([
      { id: a.id, version: 1 },
      { id: b.id, version: 2 },
    ]);
    expect(result.failed).toMatchObject([{ id: UNKNOWN_ID, reason: 'not_found' }]);
    expect((await t.allPosts()).items.map((p) => p.id)).toEqual([keep.id]);
    await expectProblem(await t.send('GET', `/posts/${b.id}/revisions/1`), 404, 'not-found');
    expect((await t.activity(b.id))[0]).toMatchObject({ type: 'deleted', postTitle: 'Gone B, edited', postVersion: 2 });
  });

  it('adds and removes a normalised tag, succeeding without a change where there is nothing to do', async () => {
    const t = await setup(make);
    const plain = await t.create({ title: 'Plain' });
    const tagged = await t.create({ title: 'Tagged', tags: ['news', 'other'] });
    const added = await bulk(t, { ids: [plain.id, tagged.id], action: 'addTag', tag: '  NEWS ' });
    expect(added).toEqual({
      action: 'addTag',
      succeeded: [
        { id: plain.id, version: 2 },
        { id: tagged.id, version: 1 },
      ],
      failed: [],
    });
    expect((await t.getPost(plain.id)).tags).toEqual(['news']);
    expect(await t.revisions(tagged.id)).toHaveLength(1);
    expect((await t.activity(plain.id))[0]).toMatchObject({ type: 'updated', postVersion: 2 });
    const removed = await bulk(t, { ids: [tagged.id, plain.id], action: 'removeTag', tag: 'News' });
    expect(removed.succeeded).toEqual([
      { id: tagged.id, version: 2 },
      { id: plain.id, version: 3 },
    ]);
    expect((await t.getPost(tagged.id)).tags).toEqual(['other']);
    const again = await bulk(t, { ids: [tagged.id], action: 'removeTag', tag: 'news' });
    expect(again.succeeded).toEqual([{ id: tagged.id, version: 2 }]);
  });

  it('reports a post that would carry more than 20 tags as failed and leaves it unchanged', async () => {
    const t = await setup(make);
    const full = await t.create({ title: 'Full', tags: Array.from({ length: 20 }, (_, i) => `t${i}`) });
    const roomy = await t.create({ title: 'Roomy' });
    const result = await bulk(t, { ids: [full.id, roomy.id], action: 'addTag', tag: 'one-more' });
    expect(result.succeeded).toEqual([{ id: roomy.id, version: 2 }]);
    expect(result.failed).toMatchObject([{ id: full.id, reason: 'invalid_transition' }]);
    expect(await t.getPost(full.id)).toEqual(full);
  });

  it('reports a post that changed while the bulk request ran as version_conflict and leaves it as the other write left it', async () => {
    // The bulk request's reads (inside a transaction or not) see the post one version behind, as if
    // a write had landed between its read and its guarded write.
    let behind: string | null = null;
    const lagging = (posts: PostRepository): PostRepository =>
      new Proxy(posts, {
        get(target, property) {
          if (property === 'get') {
            return async (id: string) => {
              const post = await target.get(id);
              return post && id === behind ? { ...post, version: post.version - 1 } : post;
            };
          }
          const value = Reflect.get(target, property, target) as unknown;
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
    const t = await setup(make, {
      wrap: (store) => ({
        ...instrumented(store, { repos: (repos) => ({ ...repos, posts: lagging(repos.posts) }) }),
        posts: lagging(store.posts),
      }),
    });
    const raced = await t.create({ title: 'Raced' });
    const current = await t.patch(raced.id, 1, { title: 'Raced, edited' });
    const calm = await t.create({ title: 'Calm' });
    behind = raced.id;
    const result = await bulk(t, { ids: [raced.id, calm.id], action: 'publish' });
    behind = null;
    expect(result.succeeded).toEqual([{ id: calm.id, version: 2 }]);
    expect(result.failed).toEqual([{ id: raced.id, reason: 'version_conflict', detail: expect.any(String) }]);
    expect(await t.getPost(raced.id)).toEqual(current);
    expect(await t.revisions(raced.id)).toHaveLength(2);
  });

  it('accepts 200 ids, each answered', async () => {
    const t = await setup(make);
    const post = await t.create({ title: 'Among many' });
    const unknown = Array.from({ length: 199 }, (_, i) => `01JDQ8Z4M6X2V7K9T3N5R8${String(i).padStart(4, '0')}`);
    const result = await bulk(t, { ids: [...unknown, post.id], action: 'archive' });
    expect(result.succeeded).toEqual([{ id: post.id, version: 2 }]);
    expect(result.failed).toHaveLength(199);
    expect(result.failed.every((f) => f.reason === 'not_found')).toBe(true);
  });

  it('answers 422 for too many, no or repeated ids, a malformed id and a tag that does not fit the action', async () => {
    const t = await setup(make);
    const ids = Array.from({ length: 201 }, (_, i) => `01JDQ8Z4M6X2V7K9T3N5R8${String(i).padStart(4, '0')}`);
    await expectInvalid(await t.send('POST', '/posts/bulk', { body: { ids, action: 'delete' } }), '/body/ids');
    await expectInvalid(await t.send('POST', '/posts/bulk', { body: { ids: [], action: 'delete' } }), '/body/ids');
    await expectInvalid(await t.send('POST', '/posts/bulk', { body: { ids: [UNKNOWN_ID, UNKNOWN_ID], action: 'delete' } }), '/body/ids');
    await expectInvalid(await t.send('POST', '/posts/bulk', { body: { ids: ['nope'], action: 'delete' } }), '/body/ids/0');
    await expectInvalid(await t.send('POST', '/posts/bulk', { body: { ids: [UNKNOWN_ID], action: 'publish', tag: 'x' } }), '/body/tag');
    await expectInvalid(await t.send('POST', '/posts/bulk', { body: { ids: [UNKNOWN_ID], action: 'addTag' } }), '/body/tag');
    await expectInvalid(await t.send('POST', '/posts/bulk', { body: { ids: [UNKNOWN_ID], action: 'explode' } }), '/body/action');
    await expectInvalid(await t.send('POST', '/posts/bulk', { body: { ids: [UNKNOWN_ID], action: 'addTag', tag: '   ' } }), '/body/tag');
    await expectInvalid(
      await t.send('POST', '/posts/bulk', { body: { ids: [UNKNOWN_ID], action: 'addTag', tag: 'a\u0000' } }),
      '/body/tag',
    );
  });

  it('answers 400 for malformed JSON, 401 without a token and 413 over the body limit', async () => {
    const t = await setup(make, { bodyLimitBytes: 1024 });
    await expectProblem(await t.send('POST', '/posts/bulk', { raw: '[' }), 400, 'malformed-request');
    await expectUnauthorized(await t.send('POST', '/posts/bulk', { body: { ids: [UNKNOWN_ID], action: 'delete' }, anonymous: true }));
    const ids = Array.from({ length: 100 }, (_, i) => `01JDQ8Z4M6X2V7K9T3N5R8${String(i).padStart(4, '0')}`);
    await expectProblem(await t.send('POST', '/posts/bulk', { body: { ids, action: 'delete' } }), 413, 'payload-too-large');
  });
});
