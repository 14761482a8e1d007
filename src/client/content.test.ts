/**
 * The Content API client against the real app (every answer checked against the contract), with
 * no credentials at all.
 */
import { expect, it } from 'vitest';
import { testServer } from '../../test/support/http.js';
import { describeOnEveryStore } from '../../test/support/stores.js';
import { createContentClient } from './content.js';
import { createMarginClient } from './index.js';
import { ADMIN } from '../../test/support/http.js';

const BASE_URL = 'http://localhost/api/v1';

describeOnEveryStore('createContentClient', (make) => {
  it('reads published posts, tags, feeds and the sitemap without a token', async () => {
    const server = await testServer({ store: await make() });
    const requests: Request[] = [];
    const fetch = (request: Request) => {
      requests.push(request);
      return server.fetch(request);
    };
    const admin = createMarginClient({ baseUrl: BASE_URL, fetch: (request) => server.fetch(request) });
    await admin.login(ADMIN.email, ADMIN.password);
    const { data: post } = await admin.createPost({ title: 'For readers', body: '# Hi', tags: ['news'], status: 'published' });
    await admin.createPost({ title: 'Not for readers' });

    const content = createContentClient({ baseUrl: BASE_URL, fetch });
    const page = await content.listPosts({ limit: 5 });
    expect(page.data?.items.map((p) => p.slug)).toEqual(['for-readers']);
    const bySlug = await content.getPostBySlug('for-readers', { html: true });
    expect(bySlug.data).toMatchObject({ id: post!.id, html: '<h1>Hi</h1>\n' });
    expect((await content.getPost(post!.id)).data?.html).toBeUndefined();
    expect((await content.getPostBySlug('not-for-readers')).response.status).toBe(404);
    expect((await content.listTags()).data?.items).toEqual([{ name: 'news', count: 1 }]);
    expect((await content.atomFeed('news')).xml).toContain('<feed');
    expect((await content.rssFeed()).xml).toContain('<rss');
    expect((await content.sitemap()).xml).toContain('/blog/for-readers</loc>');
    expect(requests.every((request) => request.headers.get('authorization') === null)).toBe(true);
  });
});
