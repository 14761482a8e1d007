/**
 * POST /preview on every store: the editor's preview is the Content API's HTML of the same body,
 * sanitised by the same renderer. Every answer is validated against the contract by the test fetch.
 */
import { describe, expect, it } from 'vitest';
import type { components } from '../../generated/api.js';
import { createMemoryStore } from '../../src/adapters/memory/store.js';
import { describeOnEveryStore } from '../support/stores.js';
import { expectInvalid, expectUnauthorized, peek, setup } from './helpers.js';

type Preview = components['schemas']['Preview'];
type ContentPost = components['schemas']['ContentPost'];

const SITE = { siteUrl: 'https://blog.example.com', postPath: '/blog/{slug}', apiUrl: 'https://api.example.com', siteTitle: 'Margin blog' };
const BODY = [
  '# A title',
  '',
  'Some *emphasis*, `code`, a [link off the site](https://example.org/x) and [one on it](https://blog.example.com/blog/y).',
  '',
  '<script>alert(1)</script>',
  '<img src="x" onerror="alert(2)">',
  '',
  '- one',
  '- two',
].join('\n');

async function previewOf(t: Awaited<ReturnType<typeof setup>>, body: string): Promise<string> {
  const response = await t.send('POST', '/preview', { body: { body } });
  expect(response.status, await peek(response)).toBe(200);
  return ((await response.json()) as Preview).html;
}

describeOnEveryStore('renderPreview', (make) => {
  it('answers 200 with the HTML the Content API serves for the same body once it is published', async () => {
    const t = await setup(make, { content: SITE });
    const preview = await previewOf(t, BODY);
    const post = await t.create({ title: 'Previewed', body: BODY, status: 'published' });
    const response = await t.send('GET', `/content/posts/${post.id}?include=html`, { anonymous: true });
    expect(response.status, await peek(response)).toBe(200);
    expect(preview).toBe(((await response.json()) as ContentPost).html);
  });

  it('answers 200 with scripts and event handlers sanitised away and off-site links marked', async () => {
    const t = await setup(make, { content: SITE });
    const html = await previewOf(t, BODY);
    expect(html).toContain('<h1>A title</h1>');
    expect(html).toContain('<a href="https://example.org/x" rel="nofollow noopener">link off the site</a>');
    expect(html).toContain('<a href="https://blog.example.com/blog/y">one on it</a>');
    expect(html).not.toMatch(/<script|alert\(1\)|onerror/);
  });

  it('answers 200 with an empty string for an empty body', async () => {
    const t = await setup(make, { content: SITE });
    expect(await previewOf(t, '')).toBe('');
  });

  it('answers 401 without a bearer token', async () => {
    const t = await setup(make, { content: SITE });
    await expectUnauthorized(await t.send('POST', '/preview', { body: { body: 'x' }, anonymous: true }));
  });

  it('answers 422 pointing at each field without a body or with another property', async () => {
    const t = await setup(make, { content: SITE });
    await expectInvalid(await t.send('POST', '/preview', { body: { text: 'x' } }), '/body/body', '/body/text');
  });
});

describe('renderPreview with a body over the request size limit', () => {
  it('answers 413, as a post with that body would be', async () => {
    const t = await setup(() => Promise.resolve(createMemoryStore()), { bodyLimitBytes: 1024 });
    const response = await t.send('POST', '/preview', { body: { body: 'x'.repeat(2048) } });
    expect(response.status, await peek(response)).toBe(413);
  });
});

describe('renderPreview beside the readers', () => {
  // About 0.9 MB of unclosed elements: each runs into the renderer's 2 s budget.
  const HOSTILE = Array.from({ length: 148_000 }, () => '<div>').join('\n');

  it("answers readers' include=html while 40 hostile previews are in flight: previews queue on a worker of their own, and the surplus is 503", async () => {
    const t = await setup(async () => createMemoryStore(), { content: SITE });
    const post = await t.create({ title: 'Read meanwhile', body: '*still rendered*', status: 'published' });
    const previews = Array.from({ length: 40 }, () => t.send('POST', '/preview', { body: { body: HOSTILE } }));
    // Let the previews reach the renderer's queue before the reader asks.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const response = await t.send('GET', `/content/posts/${post.id}?include=html`, { anonymous: true });
    expect(response.status, await peek(response)).toBe(200);
    expect(((await response.json()) as ContentPost).html).toBe('<p><em>still rendered</em></p>\n');
    const statuses = (await Promise.all(previews)).map((answer) => answer.status);
    expect(statuses.filter((status) => status === 503).length).toBeGreaterThan(30);
    expect(statuses.every((status) => status === 503 || status === 422)).toBe(true);
  }, 60_000);
});
