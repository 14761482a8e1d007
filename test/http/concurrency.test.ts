import { expect, it } from 'vitest';
import { describeOnEveryStore } from '../support/stores.js';
import { expectProblem, setup, type ApiPost } from './helpers.js';

describeOnEveryStore('concurrent writes', (make) => {
  it('lets exactly one of 50 parallel PATCHes with one If-Match win: one 200, 49 × 412, one new revision', async () => {
    const t = await setup(make);
    const post = await t.create({ title: 'Contended' });
    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        t.send('PATCH', `/posts/${post.id}`, { body: { title: `Writer ${i}` }, headers: { 'if-match': '"1"' } }),
      ),
    );
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 412)).toHaveLength(49);
    const winner = (await responses.find((r) => r.status === 200)!.json()) as ApiPost;
    expect(winner.version).toBe(2);
    for (const loser of responses.filter((r) => r.status === 412)) {
      const problem = await expectProblem(loser, 412, 'precondition-failed');
      expect(problem.current).toMatchObject({ id: post.id, version: 2, title: winner.title });
    }
    expect(await t.getPost(post.id)).toEqual(winner);
    const revisions = await t.revisions(post.id);
    expect(revisions.map((r) => [r.version, r.title])).toEqual([
      [2, winner.title],
      [1, 'Contended'],
    ]);
    expect((await t.activity(post.id)).map((e) => e.type)).toEqual(['updated', 'created']);
  });

  it('applies every one of 20 parallel PATCHes with If-Match: *, each as its own version and revision', async () => {
    const t = await setup(make);
    const post = await t.create({ title: 'Star' });
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        t.send('PATCH', `/posts/${post.id}`, { body: { excerpt: `Writer ${i}` }, headers: { 'if-match': '*' } }),
      ),
    );
    expect(responses.map((r) => r.status)).toEqual(Array<number>(20).fill(200));
    const versions = await Promise.all(responses.map(async (r) => ((await r.json()) as ApiPost).version));
    expect(versions.sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 2));
    expect(await t.revisions(post.id)).toHaveLength(21);
    expect(await t.activity(post.id)).toHaveLength(21);
  });

  it('lets exactly one of 10 parallel DELETEs with one If-Match win; the others find no post', async () => {
    const t = await setup(make);
    const post = await t.create({ title: 'Deleted once' });
    const responses = await Promise.all(
      Array.from({ length: 10 }, () => t.send('DELETE', `/posts/${post.id}`, { headers: { 'if-match': '"1"' } })),
    );
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses).toEqual([204, ...Array<number>(9).fill(404)]);
    expect((await t.activity(post.id)).map((e) => e.type)).toEqual(['deleted', 'created']);
  });

  it('creates exactly one post for 20 parallel creates with one Idempotency-Key; every 201 is the same answer, the rest 409', async () => {
    const t = await setup(make);
    const body = { title: 'Exactly once', body: 'one two', tags: ['x'] };
    const headers = { 'idempotency-key': 'parallel-key' };
    const responses = await Promise.all(Array.from({ length: 20 }, () => t.send('POST', '/posts', { body, headers })));
    const created = responses.filter((r) => r.status === 201);
    const others = responses.filter((r) => r.status !== 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(created.length + others.length).toBe(20);
    expect(created.filter((r) => r.headers.get('idempotent-replayed') === null)).toHaveLength(1);
    const bodies = await Promise.all(created.map((r) => r.text()));
    expect(new Set(bodies).size).toBe(1);
    expect(new Set(created.map((r) => r.headers.get('etag')))).toEqual(new Set(['"1"']));
    expect(new Set(created.map((r) => r.headers.get('location'))).size).toBe(1);
    for (const response of others) {
      await expectProblem(response, 409, 'idempotency-key-in-flight');
      expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
    const page = await t.allPosts();
    expect(page.total).toBe(1);
    expect(await t.activity()).toHaveLength(1);
    const post = JSON.parse(bodies[0]!) as ApiPost;
    expect(await t.revisions(post.id)).toHaveLength(1);

    // After completion the same key and body replay the same body and ETag.
    const replay = await t.send('POST', '/posts', { body, headers });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.headers.get('etag')).toBe('"1"');
    expect(await replay.text()).toBe(bodies[0]);
    expect((await t.allPosts()).total).toBe(1);
  });

  it('gives 25 parallel creates with one title 25 distinct slugs: the title, then -2 to -25', async () => {
    const t = await setup(make);
    const responses = await Promise.all(Array.from({ length: 25 }, () => t.send('POST', '/posts', { body: { title: 'Same title' } })));
    expect(responses.map((r) => r.status)).toEqual(Array<number>(25).fill(201));
    const slugs = await Promise.all(responses.map(async (r) => ((await r.json()) as ApiPost).slug));
    expect(slugs.sort()).toEqual(['same-title', ...Array.from({ length: 24 }, (_, i) => `same-title-${i + 2}`)].sort());
  });

  it('gives one of 10 parallel creates with one explicit slug the slug and the others 409 with a free suggestedSlug', async () => {
    const t = await setup(make);
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, i) => t.send('POST', '/posts', { body: { title: `Claimant ${i}`, slug: 'prized' } })),
    );
    expect(responses.filter((r) => r.status === 201)).toHaveLength(1);
    for (const response of responses.filter((r) => r.status !== 201)) {
      const problem = await expectProblem(response, 409, 'slug-taken');
      expect(problem.suggestedSlug).toMatch(/^prized-\d+$/);
    }
    expect((await t.allPosts()).items.map((p) => p.slug)).toEqual(['prized']);
  });

  it('returns no post twice when a list is walked page by page while posts are created', async () => {
    const t = await setup(make);
    const existing: string[] = [];
    for (let i = 0; i < 12; i++) existing.push((await t.create({ title: `Existing ${String(i).padStart(2, '0')}` })).id);
    for (const sort of ['-updatedAt', 'createdAt', 'title', '-title'] as const) {
      const seen: string[] = [];
      let cursor: string | undefined;
      for (let pages = 0; pages < 40; pages++) {
        const { data, response } = await t.api.GET('/posts', { params: { query: { sort, limit: 3, ...(cursor ? { cursor } : {}) } } });
        expect(response.status).toBe(200);
        seen.push(...data!.items.map((p) => p.id));
        // Two new posts between every pair of pages, titled to land before and after the cursor.
        await Promise.all([t.create({ title: `Aaa new ${sort} ${pages}` }), t.create({ title: `Zzz new ${sort} ${pages}` })]);
        if (data!.nextCursor === null) break;
        cursor = data!.nextCursor;
      }
      expect(new Set(seen).size, `${sort}: ${seen.length} seen`).toBe(seen.length);
      for (const id of existing) expect(seen, sort).toContain(id);
    }
  });
});
