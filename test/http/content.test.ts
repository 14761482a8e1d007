/**
 * The public Content API over HTTP on every store: what readers may see (and the same 404 for
 * everything else), conditional GET, cache and CORS headers, rendered HTML, feeds and the sitemap,
 * and strict parameters. Every answer is validated against the contract by the test fetch.
 */
import { parseFeed } from '@rowanmanning/feed-parser';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import type { components } from '../../generated/api.js';
import { FixedClock } from '../../src/domain/index.js';
import { describeOnEveryStore } from '../support/stores.js';
import { expectInvalid, expectProblem, peek, setup, UNKNOWN_ID, type Setup } from './helpers.js';

type ContentPost = components['schemas']['ContentPost'];
type ContentPage = components['schemas']['ContentPostPage'];

const T0 = new Date('2026-12-01T09:00:00.000Z');
const HOUR = 3_600_000;
const SITE = { siteUrl: 'https://blog.example.com', postPath: '/blog/{slug}', apiUrl: 'https://api.example.com', siteTitle: 'Margin blog' };

async function site(make: Parameters<typeof setup>[0], content: Parameters<typeof setup>[1] = {}) {
  const clock = new FixedClock(T0);
  const t = await setup(make, { clock, content: SITE, ...content });
  /** A GET on the Content API without credentials. */
  const read = (path: string, headers: Record<string, string> = {}, method = 'GET') =>
    t.send(method, `/content${path}`, { anonymous: true, headers });
  return { ...t, clock, read };
}

async function publish(t: Setup, title: string, extra: Record<string, unknown> = {}) {
  return t.create({ title, status: 'published', ...extra });
}

async function jsonOf<T>(response: Response): Promise<T> {
  expect(response.status, await peek(response)).toBe(200);
  return (await response.json()) as T;
}

describeOnEveryStore('content API', (make) => {
  describe('visibility', () => {
    it('shows a published post by slug and by id, without version, status or other internal fields', async () => {
      const t = await site(make);
      const post = await publish(t, 'Hello readers', { excerpt: 'Hi', body: 'Some *text*', tags: ['news'] });
      const bySlug = await jsonOf<ContentPost>(await t.read(`/posts/slug/${post.slug}`));
      expect(bySlug).toStrictEqual({
        id: post.id,
        title: 'Hello readers',
        slug: 'hello-readers',
        excerpt: 'Hi',
        body: 'Some *text*',
        tags: ['news'],
        wordCount: post.wordCount,
        coverImage: null,
        seo: { title: null, description: null, canonicalUrl: null },
        publishedAt: post.publishedAt,
        updatedAt: post.updatedAt,
      });
      expect(await jsonOf<ContentPost>(await t.read(`/posts/${post.id}`))).toStrictEqual(bySlug);
    });

    it('answers a draft, a scheduled draft, an archived, an unpublished, a deleted and a missing post with the same 404', async () => {
      const t = await site(make);
      const draft = await t.create({ title: 'Draft' });
      const scheduled = await t.create({ title: 'Scheduled', publishAt: new Date(T0.getTime() + HOUR).toISOString() });
      const archived = await t.create({ title: 'Archived', status: 'published' });
      await t.patch(archived.id, 1, { status: 'archived' });
      const unpublished = await t.create({ title: 'Unpublished', status: 'published' });
      await t.patch(unpublished.id, 1, { status: 'draft' });
      const deleted = await t.create({ title: 'Deleted', status: 'published' });
      expect((await t.send('DELETE', `/posts/${deleted.id}`, { headers: { 'if-match': '"1"' } })).status).toBe(204);

      const hidden = [draft, scheduled, archived, unpublished, deleted];
      const shape = (problem: Record<string, unknown>, key: string) => JSON.stringify(problem).replaceAll(key, '<key>');
      const missingBySlug = await expectProblem(await t.read('/posts/slug/no-such-post'), 404, 'not-found');
      const missingById = await expectProblem(await t.read(`/posts/${UNKNOWN_ID}`), 404, 'not-found');
      for (const post of hidden) {
        const bySlug = await t.read(`/posts/slug/${post.slug}`);
        expect(bySlug.headers.get('cache-control')).toBe('no-store');
        expect(shape(await expectProblem(bySlug, 404, 'not-found'), post.slug)).toBe(shape(missingBySlug, 'no-such-post'));
        expect(shape(await expectProblem(await t.read(`/posts/${post.id}`), 404, 'not-found'), post.id)).toBe(
          shape(missingById, UNKNOWN_ID),
        );
      }
      const page = await jsonOf<ContentPage>(await t.read('/posts'));
      expect(page.items).toEqual([]);
      expect(page.total).toBe(0);
    });

    it('finds two words far apart in either order with q, best matches first', async () => {
      const t = await site(make);
      const far = await publish(t, 'Running it', { body: `We use postgres. ${'Some filler words here. '.repeat(60)}Then production.` });
      t.clock.advance(60_000);
      const titled = await publish(t, 'Postgres in production', { body: 'A short one.' });
      t.clock.advance(60_000);
      await publish(t, 'Postgres only', { body: 'No such word.' });
      for (const q of ['postgres production', 'production postgres']) {
        const page = await jsonOf<ContentPage>(await t.read(`/posts?q=${encodeURIComponent(q)}`));
        expect(page.items.map((p) => p.id)).toEqual([titled.id, far.id]);
      }
    });

    it('lists published posts newest published first, with tag and q filters and cursor pages', async () => {
      const t = await site(make);
      const ids: string[] = [];
      for (let i = 1; i <= 5; i += 1) {
        ids.push((await publish(t, `Post ${i}`, { tags: i % 2 ? ['odd'] : ['even'], body: `needle${i}` })).id);
        t.clock.advance(60_000);
      }
      await t.create({ title: 'Hidden draft', tags: ['odd'], body: 'needle1' });
      const first = await jsonOf<ContentPage>(await t.read('/posts?limit=2'));
      expect(first.items.map((p) => p.id)).toEqual([ids[4], ids[3]]);
      expect(first).toMatchObject({ total: 5, totalExact: true });
      const second = await jsonOf<ContentPage>(await t.read(`/posts?limit=2&cursor=${first.nextCursor}`));
      expect(second.items.map((p) => p.id)).toEqual([ids[2], ids[1]]);
      expect((await jsonOf<ContentPage>(await t.read('/posts?tag=odd'))).items.map((p) => p.id)).toEqual([ids[4], ids[2], ids[0]]);
      expect((await jsonOf<ContentPage>(await t.read('/posts?q=NEEDLE1'))).items.map((p) => p.id)).toEqual([ids[0]]);
      expect(Object.keys(first.items[0]!).sort()).toEqual([
        'coverImage',
        'excerpt',
        'id',
        'publishedAt',
        'seo',
        'slug',
        'tags',
        'title',
        'updatedAt',
        'wordCount',
      ]);
    });

    it('counts tags over published posts only', async () => {
      const t = await site(make);
      await publish(t, 'One', { tags: ['a', 'b'] });
      await publish(t, 'Two', { tags: ['b'] });
      await t.create({ title: 'Secret', tags: ['b', 'secret'] });
      const tags = await jsonOf<components['schemas']['ContentTagList']>(await t.read('/tags'));
      expect(tags.items).toStrictEqual([
        { name: 'b', count: 2 },
        { name: 'a', count: 1 },
      ]);
    });

    it('never shows a post whose publishedAt is still ahead, whatever its status says', async () => {
      const t = await site(make);
      const post = await publish(t, 'From the future');
      // Another process whose clock ran ahead published it: its publishedAt is after our now.
      await t.store.posts.update(post.id, 1, { publishedAt: new Date(T0.getTime() + 5_000) }, T0);
      expect((await t.read(`/posts/slug/${post.slug}`)).status).toBe(404);
      expect((await jsonOf<ContentPage>(await t.read('/posts'))).items).toEqual([]);
      t.clock.advance(5_000);
      expect((await t.read(`/posts/slug/${post.slug}`)).status).toBe(200);
    });
  });

  describe('scheduled publishing', () => {
    it('publishes a scheduled draft once it is due, as the system actor, with a revision and a published event', async () => {
      const t = await site(make);
      const due = new Date(T0.getTime() + HOUR);
      const post = await t.create({ title: 'Tomorrow', publishAt: due.toISOString() });
      expect(post).toMatchObject({ status: 'draft', publishAt: due.toISOString(), publishedAt: null });

      t.clock.advance(HOUR - 1);
      expect((await t.posts.scheduled.runOnce()).published).toEqual([]);
      expect((await t.read(`/posts/slug/${post.slug}`)).status).toBe(404);

      t.clock.advance(1);
      // Due, but the job has not run yet: still hidden, never shown before the job publishes it.
      expect((await t.read(`/posts/slug/${post.slug}`)).status).toBe(404);
      const report = await t.posts.scheduled.runOnce();
      expect(report.published.map((p) => p.id)).toEqual([post.id]);
      expect((await t.posts.scheduled.runOnce()).published).toEqual([]);

      const shown = await jsonOf<ContentPost>(await t.read(`/posts/slug/${post.slug}`));
      expect(shown.publishedAt).toBe(due.toISOString());
      expect(await t.getPost(post.id)).toMatchObject({ status: 'published', version: 2, publishAt: null, publishedAt: due.toISOString() });
      const events = await t.activity(post.id);
      expect(events.map((e) => [e.type, e.actor])).toEqual([
        ['published', { id: 'system', name: 'Scheduler' }],
        ['created', { id: t.admin.id, name: 'Ada Lovelace' }],
      ]);
      expect((await t.revisions(post.id))[0]).toMatchObject({ version: 2, status: 'published', actor: { id: 'system' } });
    });

    it('schedules, reschedules and unschedules a draft through PATCH with If-Match, each with its activity', async () => {
      const t = await site(make);
      const post = await t.create({ title: 'Later' });
      const at1 = new Date(T0.getTime() + HOUR).toISOString();
      const at2 = new Date(T0.getTime() + 2 * HOUR).toISOString();
      expect((await t.patch(post.id, 1, { publishAt: at1 })).publishAt).toBe(at1);
      expect((await t.patch(post.id, 2, { publishAt: at2 })).publishAt).toBe(at2);
      expect((await t.patch(post.id, 3, { title: 'Later still' })).publishAt).toBe(at2);
      expect((await t.patch(post.id, 4, { publishAt: null })).publishAt).toBeNull();
      const stale = await t.send('PATCH', `/posts/${post.id}`, { body: { publishAt: at1 }, headers: { 'if-match': '"1"' } });
      await expectProblem(stale, 412, 'precondition-failed');
      expect((await t.activity(post.id)).map((e) => e.type)).toEqual(['unscheduled', 'updated', 'scheduled', 'scheduled', 'created']);
    });

    it('accepts publishAt without a fraction or with an offset and stores it in UTC to the millisecond (201)', async () => {
      const t = await site(make);
      const whole = await t.create({ title: 'Whole second', publishAt: '2030-01-01T00:00:00Z' });
      expect(whole.publishAt).toBe('2030-01-01T00:00:00.000Z');
      const offset = await t.create({ title: 'With an offset', publishAt: '2030-01-01T01:00:00+01:00' });
      expect(offset.publishAt).toBe('2030-01-01T00:00:00.000Z');
      const fine = await t.create({ title: 'Microseconds', publishAt: '2029-12-31T19:30:00.123456-04:30' });
      expect(fine.publishAt).toBe('2030-01-01T00:00:00.123Z');
      const lower = await t.create({ title: 'Lower case', publishAt: '2030-01-01t00:00:00.5z' });
      expect(lower.publishAt).toBe('2030-01-01T00:00:00.500Z');
      expect((await t.getPost(offset.id)).publishAt).toBe('2030-01-01T00:00:00.000Z');
      expect((await t.getPost(fine.id)).publishAt).toBe('2030-01-01T00:00:00.123Z');
    });

    it('accepts publishAt with an offset on PATCH and stores it in UTC to the millisecond (200)', async () => {
      const t = await site(make);
      const post = await t.create({ title: 'Later' });
      expect((await t.patch(post.id, 1, { publishAt: '2030-06-01T12:00:00+02:00' })).publishAt).toBe('2030-06-01T10:00:00.000Z');
      expect((await t.getPost(post.id)).publishAt).toBe('2030-06-01T10:00:00.000Z');
    });

    it('reads a leap second in publishAt as the first instant of the next day, as PostgreSQL does (201)', async () => {
      const t = await site(make);
      const post = await t.create({ title: 'Leap', publishAt: '2030-12-31T23:59:60Z' });
      expect(post.publishAt).toBe('2031-01-01T00:00:00.000Z');
    });

    it('refuses a publishAt that is not an RFC 3339 date-time, or has no zone, with 422 at /body/publishAt', async () => {
      const t = await site(make);
      for (const publishAt of ['2030-01-01T00:00:00', '2030-02-30T00:00:00Z', '2030-01-01T12:00:60Z', 'tomorrow']) {
        await expectInvalid(await t.send('POST', '/posts', { body: { title: 'x', publishAt } }), '/body/publishAt');
      }
      expect((await t.allPosts()).items).toEqual([]);
    });

    it('refuses a past publishAt, and a publishAt on a post that is or becomes published or archived, with 422 at /body/publishAt', async () => {
      const t = await site(make);
      const draft = await t.create({ title: 'Draft' });
      const past = new Date(T0.getTime() - 1).toISOString();
      const future = new Date(T0.getTime() + HOUR).toISOString();
      const patch = (body: unknown, version = 1, id = draft.id) =>
        t.send('PATCH', `/posts/${id}`, { body, headers: { 'if-match': `"${version}"` } });
      await expectInvalid(await patch({ publishAt: past }), '/body/publishAt');
      await expectInvalid(await patch({ publishAt: T0.toISOString() }), '/body/publishAt');
      await expectInvalid(await patch({ publishAt: future, status: 'published' }), '/body/publishAt');
      await expectInvalid(
        await t.send('POST', '/posts', { body: { title: 'x', status: 'published', publishAt: future } }),
        '/body/publishAt',
      );
      await expectInvalid(await t.send('POST', '/posts', { body: { title: 'x', publishAt: past } }), '/body/publishAt');
      const published = await publish(t, 'Out');
      await expectInvalid(await patch({ publishAt: future }, 1, published.id), '/body/publishAt');
      expect(await t.getPost(draft.id)).toMatchObject({ version: 1, publishAt: null });
    });

    it('unschedules a scheduled draft that is published or archived by hand', async () => {
      const t = await site(make);
      const future = new Date(T0.getTime() + HOUR).toISOString();
      const a = await t.create({ title: 'A', publishAt: future });
      const b = await t.create({ title: 'B', publishAt: future });
      expect(await t.patch(a.id, 1, { status: 'published' })).toMatchObject({
        status: 'published',
        publishAt: null,
        publishedAt: T0.toISOString(),
      });
      expect(await t.patch(b.id, 1, { status: 'archived' })).toMatchObject({ status: 'archived', publishAt: null });
      t.clock.advance(HOUR);
      expect((await t.posts.scheduled.runOnce()).published).toEqual([]);
    });
  });

  describe('conditional GET and caching', () => {
    it('sends a strong ETag, Last-Modified, public Cache-Control, open CORS and Vary: Accept-Encoding (not Origin) on every kind of content answer', async () => {
      const t = await site(make, { content: { ...SITE, maxAgeSeconds: 30, staleWhileRevalidateSeconds: 90 } });
      const post = await publish(t, 'Cached');
      for (const path of [`/posts/slug/${post.slug}`, `/posts/${post.id}`, '/posts', '/tags', '/feed.atom', '/feed.rss', '/sitemap.xml']) {
        const response = await t.read(path);
        expect(response.status, path).toBe(200);
        expect(response.headers.get('etag'), path).toMatch(/^"[A-Za-z0-9_-]{22}"$/);
        expect(response.headers.get('last-modified'), path).toBe(T0.toUTCString());
        expect(response.headers.get('cache-control'), path).toBe('public, max-age=30, stale-while-revalidate=90');
        expect(response.headers.get('access-control-allow-origin'), path).toBe('*');
        expect(response.headers.get('vary'), path).toBe('Accept-Encoding');
      }
    });

    it.each([
      ['a post by slug', (slug: string) => `/posts/slug/${slug}`],
      ['a list', () => '/posts'],
      ['the tags', () => '/tags'],
      ['the Atom feed', () => '/feed.atom'],
      ['the RSS feed', () => '/feed.rss'],
      ['the sitemap', () => '/sitemap.xml'],
    ])('answers 304 with no body to If-None-Match and to If-Modified-Since on %s, and 200 once it changed', async (_, pathOf) => {
      const t = await site(make);
      const post = await publish(t, 'Conditional');
      const path = pathOf(post.slug);
      const first = await t.read(path);
      expect(first.status).toBe(200);
      const etag = first.headers.get('etag')!;
      const lastModified = first.headers.get('last-modified')!;

      const byTag = await t.read(path, { 'if-none-match': etag });
      expect(byTag.status).toBe(304);
      expect(await byTag.text()).toBe('');
      expect(byTag.headers.get('etag')).toBe(etag);
      expect(byTag.headers.get('cache-control')).toMatch(/^public/);
      expect((await t.read(path, { 'if-none-match': `"other", W/${etag}` })).status).toBe(304);
      expect((await t.read(path, { 'if-modified-since': lastModified })).status).toBe(304);
      // If-None-Match decides when both are sent.
      expect((await t.read(path, { 'if-none-match': '"other"', 'if-modified-since': lastModified })).status).toBe(200);
      expect((await t.read(path, { 'if-modified-since': 'not a date' })).status).toBe(200);

      t.clock.advance(2000);
      await t.patch(post.id, post.version, { title: 'Conditional, edited', tags: ['edited'] });
      const changed = await t.read(path, { 'if-none-match': etag });
      expect(changed.status).toBe(200);
      expect(changed.headers.get('etag')).not.toBe(etag);
      expect((await t.read(path, { 'if-modified-since': lastModified })).status).toBe(200);
    });

    it('moves the list ETag and Last-Modified when a post leaves it (unpublished or deleted)', async () => {
      const t = await site(make);
      const a = await publish(t, 'Stays');
      const b = await publish(t, 'Goes');
      const before = await t.read('/posts');
      t.clock.advance(2000);
      await t.patch(b.id, 1, { status: 'draft' });
      const after = await t.read('/posts', { 'if-modified-since': before.headers.get('last-modified')! });
      expect(after.status).toBe(200);
      expect(((await after.json()) as ContentPage).items.map((p) => p.id)).toEqual([a.id]);
      expect(after.headers.get('etag')).not.toBe(before.headers.get('etag'));
    });

    it('gives the HTML representation its own ETag', async () => {
      const t = await site(make);
      const post = await publish(t, 'Two shapes', { body: '# Title' });
      const plain = await t.read(`/posts/${post.id}`);
      const html = await t.read(`/posts/${post.id}?include=html`);
      expect(html.headers.get('etag')).not.toBe(plain.headers.get('etag'));
      expect((await t.read(`/posts/${post.id}?include=html`, { 'if-none-match': plain.headers.get('etag')! })).status).toBe(200);
    });

    it('answers HEAD like GET, with the same headers and no body', async () => {
      const t = await site(make);
      const post = await publish(t, 'Head');
      const get = await t.read(`/posts/slug/${post.slug}`);
      const head = await t.read(`/posts/slug/${post.slug}`, {}, 'HEAD');
      expect(head.status).toBe(200);
      expect(await head.text()).toBe('');
      for (const name of ['content-length', 'etag', 'last-modified', 'cache-control', 'access-control-allow-origin', 'content-type']) {
        expect(head.headers.get(name), name).toBe(get.headers.get(name));
      }
      expect((await t.read(`/posts/slug/${post.slug}`, { 'if-none-match': get.headers.get('etag')! }, 'HEAD')).status).toBe(304);
    });
  });

  describe('CORS', () => {
    it('opens content to any origin without credentials, while the admin API keeps its allow-list', async () => {
      const t = await site(make, { corsOrigins: ['https://admin.example.com'] });
      const post = await publish(t, 'Open');
      const content = await t.read(`/posts/slug/${post.slug}`, { origin: 'https://reader.example.org' });
      expect(content.headers.get('access-control-allow-origin')).toBe('*');
      expect(content.headers.get('access-control-allow-credentials')).toBeNull();
      expect(content.headers.get('access-control-expose-headers')).toMatch(/ETag/);
      expect(content.headers.get('vary')).toBe('Accept-Encoding');

      const preflight = await t.read(
        `/posts/slug/${post.slug}`,
        {
          origin: 'https://reader.example.org',
          'access-control-request-method': 'GET',
          'access-control-request-headers': 'if-none-match',
        },
        'OPTIONS',
      );
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
      expect(preflight.headers.get('access-control-allow-methods')).toBe('GET,HEAD,OPTIONS');
      expect(preflight.headers.get('access-control-allow-headers')).toMatch(/If-None-Match/);

      const adminStranger = await t.send('GET', `/posts/${post.id}`, { headers: { origin: 'https://reader.example.org' } });
      expect(adminStranger.headers.get('access-control-allow-origin')).toBeNull();
      expect(adminStranger.headers.get('vary')).toContain('Origin');
      const adminFriend = await t.send('GET', `/posts/${post.id}`, { headers: { origin: 'https://admin.example.com' } });
      expect(adminFriend.headers.get('access-control-allow-origin')).toBe('https://admin.example.com');
      expect(adminFriend.headers.get('cache-control')).toBe('private, no-cache');
    });
  });

  describe('rendered HTML', () => {
    it('renders markdown to HTML with include=html', async () => {
      const t = await site(make);
      const post = await publish(t, 'Rendered', { body: '# Heading\n\nSome *emphasis* and [a link](https://example.com).' });
      const shown = await jsonOf<ContentPost>(await t.read(`/posts/slug/${post.slug}?include=html`));
      expect(shown.html).toContain('<h1>Heading</h1>');
      expect(shown.html).toContain('<em>emphasis</em>');
      expect(shown.html).toMatch(/<a href="https:\/\/example.com"[^>]*>a link<\/a>/);
      expect((await jsonOf<ContentPost>(await t.read(`/posts/slug/${post.slug}`))).html).toBeUndefined();
    });

    it('never sends script from a hostile body', async () => {
      const t = await site(make);
      const body = [
        '<script>alert(1)</script>',
        '<img src=x onerror=alert(2)>',
        '[click](javascript:alert(3))',
        '<a href="JaVaScRiPt:alert(4)">x</a>',
        '<iframe src="https://evil.example"></iframe>',
        '<svg onload=alert(5)>',
        '<div style="background:url(javascript:alert(6))">styled</div>',
      ].join('\n\n');
      const post = await publish(t, 'Hostile', { body });
      const { html } = await jsonOf<ContentPost>(await t.read(`/posts/slug/${post.slug}?include=html`));
      expect(html).toBeDefined();
      expect(html).not.toMatch(/<script|<iframe|<svg|\son[a-z]+=|style=/i);
      expect(html).not.toMatch(/(href|src)\s*=\s*["']?\s*javascript:/i);
      expect(html).not.toMatch(/alert\(1\)/);
    });
  });

  describe('feeds and sitemap', () => {
    it('serves an Atom and an RSS feed of the latest posts with absolute links and escaped titles', async () => {
      const t = await site(make);
      await t.create({ title: 'Not yet' });
      const post = await publish(t, 'Tom & "Jerry" <3', { excerpt: 'Cats & mice', tags: ['cartoons'] });
      const atom = await t.read('/feed.atom');
      expect(atom.headers.get('content-type')).toBe('application/atom+xml; charset=utf-8');
      const atomXml = await atom.text();
      expect(XMLValidator.validate(atomXml)).toBe(true);
      const atomFeed = parseFeed(atomXml);
      expect(atomFeed.meta.type).toBe('atom');
      expect(atomFeed.title).toBe('Margin blog');
      expect(atomFeed.items).toHaveLength(1);
      expect(atomFeed.items[0]).toMatchObject({ title: 'Tom & "Jerry" <3', url: `https://blog.example.com/blog/${post.slug}` });
      expect(atomFeed.items[0]!.published?.toISOString()).toBe(post.publishedAt);

      const rss = await t.read('/feed.rss');
      expect(rss.headers.get('content-type')).toBe('application/rss+xml; charset=utf-8');
      const rssXml = await rss.text();
      expect(XMLValidator.validate(rssXml)).toBe(true);
      const rssFeed = parseFeed(rssXml);
      expect(rssFeed.meta.type).toBe('rss');
      expect(rssFeed.items[0]).toMatchObject({ title: 'Tom & "Jerry" <3', url: `https://blog.example.com/blog/${post.slug}` });
      expect(rssXml).toMatch(/<pubDate>Tue, 01 Dec 2026 09:00:00 GMT<\/pubDate>/);
    });

    it('serves a feed per tag with the tag in its title and self link', async () => {
      const t = await site(make);
      await publish(t, 'Tagged', { tags: ['postgres'] });
      await publish(t, 'Other', { tags: ['markdown'] });
      const xml = await (await t.read('/feed.atom?tag=postgres')).text();
      const feed = parseFeed(xml);
      expect(feed.items.map((i) => i.title)).toEqual(['Tagged']);
      expect(feed.title).toContain('postgres');
      expect(xml).toContain('https://api.example.com/api/v1/content/feed.atom?tag=postgres');
    });

    it('carries each body rendered in Atom <content type="html"> and RSS content:encoded, the summary the excerpt or one made from the body', async () => {
      const t = await site(make);
      const excerpted = await publish(t, 'Excerpted', { excerpt: 'Cats & mice', body: 'Some **bold** text and [a page](/about).' });
      t.clock.advance(1000);
      const long = Array.from({ length: 80 }, (_, i) => `word${i}`).join(' ');
      await publish(t, 'Plain', { body: `# Heading\n\n*${long}*` });
      const { html } = await jsonOf<ContentPost>(await t.read(`/posts/${excerpted.id}?include=html`));
      expect(html).toContain('<strong>bold</strong>');

      const atomXml = await (await t.read('/feed.atom')).text();
      expect(XMLValidator.validate(atomXml)).toBe(true);
      expect(atomXml).toContain('<content type="html"><![CDATA[<p>Some <strong>bold</strong> text');
      const atom = new XMLParser({ ignoreAttributes: false, parseTagValue: false }).parse(atomXml) as {
        feed: { entry: { title: { '#text': string }; summary: { '#text': string }; content: { '#text': string; '@_type': string } }[] };
      };
      const [plain, withExcerpt] = atom.feed.entry;
      // The same HTML as include=html, its relative link made absolute against the post's page.
      expect(withExcerpt!.content).toEqual({
        '#text': html!.replace('href="/about"', 'href="https://blog.example.com/about"'),
        '@_type': 'html',
      });
      expect(withExcerpt!.summary['#text']).toBe('Cats &amp; mice');
      expect(plain!.content['#text']).toContain('<h1>Heading</h1>');
      const summary = plain!.summary['#text'];
      expect(summary).toMatch(/^Heading word0 word1 .* word\d+…$/);
      expect([...summary].length).toBeLessThanOrEqual(281);
      expect(parseFeed(atomXml).items[1]!.content).toContain('<strong>bold</strong>');

      const rssXml = await (await t.read('/feed.rss')).text();
      expect(XMLValidator.validate(rssXml)).toBe(true);
      expect(rssXml).toContain('xmlns:content="http://purl.org/rss/1.0/modules/content/"');
      const rss = new XMLParser({ parseTagValue: false }).parse(rssXml) as {
        rss: { channel: { item: { description: string; 'content:encoded': string }[] } };
      };
      expect(rss.rss.channel.item.map((item) => item['content:encoded'])).toEqual([plain!.content['#text'], withExcerpt!.content['#text']]);
      expect(rss.rss.channel.item.map((item) => item.description)).toEqual([summary, 'Cats &amp; mice']);
    });

    it('never lets script from a hostile body into a feed', async () => {
      const t = await site(make);
      const body = [
        '<script>alert(1)</script>',
        '<img src=x onerror=alert(2)>',
        '[click](javascript:alert(3))',
        ']]><script>alert(4)</script>',
      ].join('\n\n');
      await publish(t, 'Hostile', { body });
      for (const path of ['/feed.atom', '/feed.rss']) {
        const xml = await (await t.read(path)).text();
        expect(XMLValidator.validate(xml), path).toBe(true);
        const item = parseFeed(xml).items[0]!;
        expect(item.content, path).toBeTruthy();
        for (const html of [xml, item.content!]) {
          expect(html, path).not.toMatch(/<script|\son[a-z]+=|alert\(1\)|alert\(4\)/i);
          expect(html, path).not.toMatch(/(href|src)\s*=\s*["']?\s*javascript:/i);
        }
      }
    });

    it.each(['/feed.atom', '/feed.rss'])(
      'answers %s 304 while no body changed, and a new ETag with the new body once one did',
      async (path) => {
        const t = await site(make);
        const post = await publish(t, 'Edited', { body: 'First **draft**.' });
        const first = await t.read(path);
        const etag = first.headers.get('etag')!;
        expect(await first.text()).toContain('<strong>draft</strong>');
        expect((await t.read(path, { 'if-none-match': etag })).status).toBe(304);
        await t.patch(post.id, post.version, { body: 'Second **take**.' });
        const second = await t.read(path, { 'if-none-match': etag });
        expect(second.status).toBe(200);
        expect(second.headers.get('etag')).not.toBe(etag);
        const xml = await second.text();
        expect(xml).toContain('<strong>take</strong>');
        expect(xml).not.toContain('draft');
        expect((await t.read(path, { 'if-none-match': second.headers.get('etag')! })).status).toBe(304);
      },
    );

    it('lists every published post in the sitemap and nothing else', async () => {
      const t = await site(make);
      const a = await publish(t, 'First');
      const b = await publish(t, 'Second');
      await t.create({ title: 'Draft' });
      const response = await t.read('/sitemap.xml');
      expect(response.headers.get('content-type')).toBe('application/xml; charset=utf-8');
      const xml = await response.text();
      expect(XMLValidator.validate(xml)).toBe(true);
      const parsed = new XMLParser().parse(xml) as { urlset: { url: { loc: string; lastmod: string }[] } };
      expect(parsed.urlset.url.map((u) => u.loc).sort()).toEqual(
        [`https://blog.example.com/blog/${a.slug}`, `https://blog.example.com/blog/${b.slug}`].sort(),
      );
      expect(parsed.urlset.url[0]!.lastmod).toBe(T0.toISOString());
    });
  });

  describe('strict parameters and limits', () => {
    it('refuses unknown parameters, out-of-range limits, bad slugs and unknown include values with 422', async () => {
      const t = await site(make);
      await expectInvalid(await t.read('/posts?limt=5'), '/query/limt');
      await expectInvalid(await t.read('/posts?limit=101'), '/query/limit');
      await expectInvalid(await t.read('/posts?status=draft'), '/query/status');
      await expectInvalid(await t.read('/posts/slug/Not%20A%20Slug'), '/path/slug');
      await expectInvalid(await t.read(`/posts/${UNKNOWN_ID}?include=script`), '/query/include');
      await expectInvalid(await t.read('/feed.atom?tag=%00'), '/query/tag');
    });

    it('ignores unknown parameters on the feeds and the sitemap: 200 with the bytes and ETag of the URL without them', async () => {
      const t = await site(make);
      await publish(t, 'Tagged', { tags: ['postgres'] });
      await publish(t, 'Other', { tags: ['markdown'] });
      const pairs: [tracked: string, bare: string][] = [
        ['/feed.atom?utm_source=x', '/feed.atom'],
        ['/feed.rss?utm_source=newsletter&utm_medium=email&utm_campaign=dec', '/feed.rss'],
        ['/sitemap.xml?fbclid=1', '/sitemap.xml'],
        ['/feed.rss?tag=postgres&utm_medium=social', '/feed.rss?tag=postgres'],
        ['/feed.atom?gclid=abc&tag=postgres&ref=hn', '/feed.atom?tag=postgres'],
      ];
      for (const [tracked, bare] of pairs) {
        const [withParams, without] = [await t.read(tracked), await t.read(bare)];
        expect(withParams.status, `${tracked}: ${await peek(withParams)}`).toBe(200);
        expect(withParams.headers.get('etag'), tracked).toBe(without.headers.get('etag'));
        expect(await withParams.text(), tracked).toBe(await without.text());
        const revalidated = await t.read(tracked, { 'if-none-match': without.headers.get('etag')! });
        expect(revalidated.status, tracked).toBe(304);
      }
      // A parameter the operation declares still changes the representation, and is still checked.
      const tagged = await t.read('/feed.rss?tag=postgres&utm_medium=social');
      expect(tagged.headers.get('etag')).not.toBe((await t.read('/feed.rss?utm_medium=social')).headers.get('etag'));
      await expectInvalid(await t.read('/feed.atom?tag=%00&utm_source=x'), '/query/tag');
    });

    it('keeps an unknown parameter a 422 on the post list and a post, where a tracking parameter means a wrong link', async () => {
      const t = await site(make);
      const post = await publish(t, 'Strict');
      await expectInvalid(await t.read('/posts?utm_source=x'), '/query/utm_source');
      await expectInvalid(await t.read(`/posts/slug/${post.slug}?fbclid=1`), '/query/fbclid');
      await expectInvalid(await t.read(`/posts/${post.id}?include=html&ref=hn`), '/query/ref');
    });

    it('answers 429 with Retry-After past the per-address rate, and does not limit the admin API', async () => {
      const t = await site(make, { content: { ...SITE, rateLimitPerMinute: 3 } });
      for (let i = 0; i < 3; i += 1) expect((await t.read('/posts')).status).toBe(200);
      const limited = await t.read('/posts');
      const problem = await expectProblem(limited, 429, 'rate-limited');
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(limited.headers.get('access-control-allow-origin')).toBe('*');
      expect(problem.detail).toMatch(/more than 3 requests in a minute/);
      expect((await t.send('GET', '/posts')).status).toBe(200);
    });

    it('lets readers through when the rate-limit counter fails (the database away, its schema behind), instead of a 500', async () => {
      const broken = async () => {
        const store = await make();
        const hitMany = () => Promise.reject(new Error('relation "rate_limit_windows" does not exist'));
        return { ...store, rateLimits: Object.assign(Object.create(store.rateLimits) as typeof store.rateLimits, { hitMany }) };
      };
      const t = await site(broken, { content: { ...SITE, rateLimitPerMinute: 3 } });
      for (let i = 0; i < 5; i += 1) expect((await t.read('/posts')).status).toBe(200);
    });
  });
});
