/** getSite: the public site as the server is configured, for the admin's links to published posts. */
import { describe, expect, it } from 'vitest';
import { createMemoryStore } from '../../src/adapters/memory/store.js';
import { expectUnauthorized, peek, setup } from './helpers.js';

describe('getSite', () => {
  it("answers 200 with the site's title, address and post URL template (PUBLIC_SITE_URL + PUBLIC_POST_PATH)", async () => {
    const t = await setup(async () => createMemoryStore(), {
      content: { siteUrl: 'https://blog.example.com', postPath: '/posts/{slug}/', siteTitle: 'Margin blog' },
    });
    const response = await t.send('GET', '/site');
    expect(response.status, await peek(response)).toBe(200);
    expect(await response.json()).toEqual({
      title: 'Margin blog',
      url: 'https://blog.example.com',
      postUrlTemplate: 'https://blog.example.com/posts/{slug}/',
    });
  });

  it('answers 401 without a token', async () => {
    const t = await setup(async () => createMemoryStore());
    await expectUnauthorized(await t.send('GET', '/site', { anonymous: true }));
  });
});
