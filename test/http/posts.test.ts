import { describe, expect, it } from 'vitest';
import { FixedClock } from '../../src/domain/index.js';
import { storedMedia } from '../support/media-records.js';
import { describeOnEveryStore } from '../support/stores.js';
import { expectInvalid, expectProblem, expectUnauthorized, peek, setup, UNKNOWN_ID, type ApiPost } from './helpers.js';

const BODY = "Hello **world**, don't panic.\n\n```js\nconst ignored = 1;\n```\n\n[a link](https://example.com) ![alt text](i.png)";

describeOnEveryStore('posts: create, get, list', (make) => {
  describe('createPost', () => {
    it('creates a draft by default: 201 with ETag "1", Location and the stored post', async () => {
      const t = await setup(make);
      const { data, response } = await t.api.POST('/posts', {
        body: { title: 'Writing markdown that ages well', body: BODY, tags: [' Markdown ', 'markdown', 'API'] },
      });
      expect(response.status).toBe(201);
      expect(response.headers.get('etag')).toBe('"1"');
      expect(response.headers.get('location')).toBe(`/api/v1/posts/${data!.id}`);
      expect(data).toMatchObject({
        title: 'Writing markdown that ages well',
        slug: 'writing-markdown-that-ages-well',
        excerpt: '',
        body: BODY,
        tags: ['markdown', 'api'],
        status: 'draft',
        version: 1,
        wordCount: 8,
        publishedAt: null,
      });
      expect(data!.updatedAt).toBe(data!.createdAt);
      expect(await t.getPost(data!.id)).toEqual(data);
    });

    it('creates a published post with publishedAt set when status says published', async () => {
      const t = await setup(make);
      const post = await t.create({ title: 'Out now', status: 'published' });
      expect(post.status).toBe('published');
      expect(post.publishedAt).toBe(post.createdAt);
    });

    it('records revision 1 and a created event with the actor and the title', async () => {
      const t = await setup(make);
      const post = await t.create({ title: 'First', excerpt: 'An excerpt' });
      const revisions = await t.revisions(post.id);
      expect(revisions).toHaveLength(1);
      expect(revisions[0]).toMatchObject({
        version: 1,
        title: 'First',
        excerpt: 'An excerpt',
        status: 'draft',
        actor: { id: t.admin.id, name: 'Ada Lovelace' },
      });
      const events = await t.activity(post.id);
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({
        type: 'created',
        postId: post.id,
        postTitle: 'First',
        postVersion: 1,
        actor: { id: t.admin.id, name: 'Ada Lovelace' },
      });
    });

    it('derives the slug from the title and takes the next free -2, -3 when it collides', async () => {
      const t = await setup(make);
      const slugs = [];
      for (let i = 0; i < 3; i++) slugs.push((await t.create({ title: 'Été à Paris!' })).slug);
      expect(slugs).toEqual(['ete-a-paris', 'ete-a-paris-2', 'ete-a-paris-3']);
      expect((await t.create({ title: '日本語' })).slug).toBe('post');
    });

    it('keeps finding free slugs for titles longer than a slug (the base is cut to fit the suffix)', async () => {
      const t = await setup(make);
      const title = 'a'.repeat(120);
      const slugs = [];
      for (let i = 0; i < 4; i++) slugs.push((await t.create({ title })).slug);
      expect(slugs).toEqual(['a'.repeat(100), `${'a'.repeat(98)}-2`, `${'a'.repeat(98)}-3`, `${'a'.repeat(98)}-4`]);
      const response = await t.send('POST', '/posts', { body: { title: 'Other', slug: `${'a'.repeat(98)}-2` } });
      expect((await expectProblem(response, 409, 'slug-taken')).suggestedSlug).toBe(`${'a'.repeat(98)}-5`);
    });

    it('answers 409 slug-taken with a free suggestedSlug when an explicit slug is taken', async () => {
      const t = await setup(make);
      await t.create({ title: 'Hello' });
      await t.create({ title: 'Hello' });
      const response = await t.send('POST', '/posts', { body: { title: 'Another', slug: 'hello' } });
      const problem = await expectProblem(response, 409, 'slug-taken');
      expect(problem.suggestedSlug).toBe('hello-3');
      expect((await t.allPosts()).total).toBe(2);
      expect((await t.create({ title: 'Another', slug: problem.suggestedSlug })).slug).toBe('hello-3');
    });

    it('answers 400 for a body that is not JSON', async () => {
      const t = await setup(make);
      await expectProblem(await t.send('POST', '/posts', { raw: '{"title": "oops"' }), 400, 'malformed-request');
      await expectProblem(
        await t.send('POST', '/posts', { raw: 'title=oops', headers: { 'content-type': 'text/plain' } }),
        400,
        'malformed-request',
      );
    });

    it('answers 401 with a bearer challenge without a token', async () => {
      const t = await setup(make);
      await expectUnauthorized(await t.send('POST', '/posts', { body: { title: 'x' }, anonymous: true }));
      await expectUnauthorized(
        await t.send('POST', '/posts', { body: { title: 'x' }, anonymous: true, headers: { authorization: 'Bearer forged.token.here' } }),
      );
    });

    it('answers 413 for a body over the configured limit', async () => {
      const t = await setup(make, { bodyLimitBytes: 1024 });
      await expectProblem(await t.send('POST', '/posts', { body: { title: 'Big', body: 'x'.repeat(2000) } }), 413, 'payload-too-large');
      expect((await t.allPosts()).total).toBe(0);
    });

    it('answers 422 listing every field that breaks the schema', async () => {
      const t = await setup(make);
      const problem = await expectInvalid(
        await t.send('POST', '/posts', {
          body: { title: '', slug: 'Not A Slug', colour: 'red', tags: ['x'.repeat(41)], status: 'archived' },
        }),
        '/body/title',
        '/body/slug',
        '/body/colour',
        '/body/tags/0',
        '/body/status',
      );
      expect(problem.errors.length).toBeGreaterThanOrEqual(5);
      await expectInvalid(await t.send('POST', '/posts', { body: {} }), '/body/title');
      await expectInvalid(
        await t.send('POST', '/posts', { body: { title: 'Too many', tags: Array.from({ length: 21 }, (_, i) => `t${i}`) } }),
        '/body/tags',
      );
      await expectInvalid(await t.send('POST', '/posts', { body: { title: 'x'.repeat(201) } }), '/body/title');
      await expectInvalid(await t.send('POST', '/posts', { body: { title: 'x', excerpt: 'x'.repeat(501) } }), '/body/excerpt');
    });

    it('answers 422 with each field error in words, and counts the fields, not the errors: an empty slug is only empty', async () => {
      const t = await setup(make);
      const response = await t.send('POST', '/posts', {
        body: { title: '', slug: 'Not A Slug', excerpt: 'x'.repeat(501), seo: { canonicalUrl: 'ftp://example.com/' } },
      });
      const problem = await expectInvalid(response);
      expect(problem.errors).toEqual([
        { pointer: '/body/title', message: 'must not be empty' },
        { pointer: '/body/slug', message: 'may contain only lowercase letters, digits and single hyphens between them' },
        { pointer: '/body/excerpt', message: 'must be at most 500 characters long' },
        { pointer: '/body/seo/canonicalUrl', message: 'must start with http:// or https://' },
      ]);
      expect(problem.detail).toBe('The request has 4 invalid fields.');
      const empty = await expectInvalid(await t.send('POST', '/posts', { body: { title: 'Empty slug', slug: '' } }));
      expect([empty.errors, empty.detail]).toEqual([
        [{ pointer: '/body/slug', message: 'must not be empty' }],
        'The request has 1 invalid field.',
      ]);
      const long = await expectInvalid(await t.send('POST', '/posts', { body: { title: 'Long slug', slug: `A${'a'.repeat(100)}` } }));
      expect([long.errors.map((e: { message: string }) => e.message), long.detail]).toEqual([
        ['must be at most 100 characters long', 'may contain only lowercase letters, digits and single hyphens between them'],
        'The request has 1 invalid field.',
      ]);
      const when = await expectInvalid(await t.send('POST', '/posts', { body: { title: 'When', status: 'draft', publishAt: 'soon' } }));
      expect(when.errors).toContainEqual({
        pointer: '/body/publishAt',
        message: 'must be a date and time with its offset from UTC (RFC 3339, e.g. 2026-05-01T09:00:00Z)',
      });
    });

    it('answers 422 for tags that break the domain rules once normalised', async () => {
      const t = await setup(make);
      // Blank once trimmed.
      await expectInvalid(await t.send('POST', '/posts', { body: { title: 'Blank', tags: ['ok', '   '] } }), '/body/tags/1');
      // 40 characters as sent, 80 once lowercased ('İ' lowercases to 'i' + a combining dot).
      await expectInvalid(await t.send('POST', '/posts', { body: { title: 'Long', tags: ['İ'.repeat(40)] } }), '/body/tags/0');
      expect((await t.allPosts()).total).toBe(0);
    });

    it('stores tags trimmed, lowercased and without duplicates, 20 distinct at most', async () => {
      const t = await setup(make);
      const tags = Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? ` Tag${i % 10} ` : `tag${i % 10}`));
      const post = await t.create({ title: 'Tags', tags });
      expect(post.tags).toEqual(['tag0', 'tag1', 'tag2', 'tag3', 'tag4', 'tag5', 'tag6', 'tag7', 'tag8', 'tag9']);
    });

    it('answers 422 for a NUL character in the title, excerpt, body or a tag', async () => {
      const t = await setup(make);
      for (const [field, body] of [
        ['title', { title: 'a\u0000b' }],
        ['excerpt', { title: 'ok', excerpt: 'a\u0000b' }],
        ['body', { title: 'ok', body: 'a\u0000b' }],
        ['tags/0', { title: 'ok', tags: ['a\u0000b'] }],
      ] as const) {
        await expectInvalid(await t.send('POST', '/posts', { body }), `/body/${field}`);
      }
      expect((await t.allPosts()).total).toBe(0);
    });

    it('answers 422 for an unpaired surrogate, which PostgreSQL would store as U+FFFD', async () => {
      const t = await setup(make);
      await expectInvalid(
        await t.send('POST', '/posts', { raw: '{"title":"a\\ud800b","body":"\\udc00","tags":["ok","x\\udbff"]}' }),
        '/body/title',
        '/body/body',
        '/body/tags/1',
      );
      expect((await t.allPosts()).total).toBe(0);
      expect((await t.create({ title: 'Paired 🎉 \ud83c\udf89' })).title).toBe('Paired 🎉 🎉');
    });

    it('keeps quotes, emoji, other control characters and non-ASCII text as sent', async () => {
      const t = await setup(make);
      const title = 'She said "hi" — ünïcödé 🎉\ttab';
      const post = await t.create({ title, excerpt: 'line\r\nbreak', body: '# Ünïcödé\n\n🎉' });
      expect(await t.getPost(post.id)).toMatchObject({ title, excerpt: 'line\r\nbreak', body: '# Ünïcödé\n\n🎉' });
    });
  });

  describe('cover image and SEO fields', () => {
    const HARBOUR = 'harbourharbourharbourharbo';
    const NONE = { title: null, description: null, canonicalUrl: null };

    it('createPost takes a cover (its alt text the media’s unless given) and SEO fields, answered by getPost and listPosts', async () => {
      const t = await setup(make);
      await storedMedia(t.store, HARBOUR, 'A harbour at dawn');
      const seo = { title: 'Harbours at dawn', description: '', canonicalUrl: 'https://blog.example.com/harbours' };
      const post = await t.create({ title: 'Harbours', coverImage: { mediaId: HARBOUR }, seo });
      expect(post.coverImage).toEqual({ mediaId: HARBOUR, alt: 'A harbour at dawn' });
      expect(post.seo).toEqual({ ...seo, description: null });
      expect(await t.getPost(post.id)).toEqual(post);
      const listed = (await t.allPosts()).items.find((p) => p.id === post.id);
      expect([listed?.coverImage, listed?.seo]).toEqual([post.coverImage, post.seo]);
      const own = await t.create({ title: 'Own alt', coverImage: { mediaId: HARBOUR, alt: 'Boats' }, seo: { title: 'Only a title' } });
      expect([own.coverImage, own.seo]).toEqual([
        { mediaId: HARBOUR, alt: 'Boats' },
        { ...NONE, title: 'Only a title' },
      ]);
      const bare = await t.create({ title: 'Bare', coverImage: null });
      expect([bare.coverImage, bare.seo]).toEqual([null, NONE]);
    });

    it('updatePost changes the cover and the SEO fields it names, keeps the others, and null removes the cover', async () => {
      const t = await setup(make);
      await storedMedia(t.store, HARBOUR, 'A harbour at dawn');
      const post = await t.create({ title: 'Harbours', seo: { title: 'T', description: 'D' } });
      const covered = await t.patch(post.id, 1, {
        coverImage: { mediaId: HARBOUR, alt: '' },
        seo: { canonicalUrl: 'http://example.com/a' },
      });
      expect([covered.version, covered.coverImage, covered.seo]).toEqual([
        2,
        { mediaId: HARBOUR, alt: '' },
        { title: 'T', description: 'D', canonicalUrl: 'http://example.com/a' },
      ]);
      const renamed = await t.patch(post.id, 2, { title: 'Renamed' });
      expect([renamed.coverImage, renamed.seo]).toEqual([covered.coverImage, covered.seo]);
      const cleared = await t.patch(post.id, 3, { coverImage: null, seo: { title: '', description: null } });
      expect([cleared.coverImage, cleared.seo]).toEqual([null, { ...NONE, canonicalUrl: 'http://example.com/a' }]);
      expect((await t.revisions(post.id)).map((r) => r.changed)).toEqual([['coverImage', 'seo'], ['title'], ['coverImage', 'seo'], []]);
    });

    it('answers 422 at /body/coverImage/mediaId for a media that does not exist, on a create and an update, storing nothing', async () => {
      const t = await setup(make);
      const refused = await t.send('POST', '/posts', { body: { title: 'Nope', coverImage: { mediaId: HARBOUR } } });
      const problem = await expectInvalid(refused, '/body/coverImage/mediaId');
      expect(problem.errors).toEqual([{ pointer: '/body/coverImage/mediaId', message: 'names no media' }]);
      expect((await t.allPosts()).items).toEqual([]);
      const post = await t.create({ title: 'Plain' });
      const edit = await t.send('PATCH', `/posts/${post.id}`, {
        body: { coverImage: { mediaId: HARBOUR } },
        headers: { 'if-match': '"1"' },
      });
      await expectInvalid(edit, '/body/coverImage/mediaId');
      expect(await t.getPost(post.id)).toEqual(post);
    });

    it('answers 422 for SEO fields too long or a canonical URL that is not an absolute http(s) URL, and an alt text over 1000 characters', async () => {
      const t = await setup(make);
      await storedMedia(t.store, HARBOUR, 'A harbour');
      const send = (body: Record<string, unknown>) => t.send('POST', '/posts', { body: { title: 'Bad', ...body } });
      await expectInvalid(await send({ seo: { title: 'a'.repeat(201) } }), '/body/seo/title');
      await expectInvalid(await send({ seo: { description: 'a'.repeat(501) } }), '/body/seo/description');
      for (const canonicalUrl of ['/relative', 'ftp://example.com/', 'javascript:alert(1)', `https://example.com/${'a'.repeat(2030)}`]) {
        await expectInvalid(await send({ seo: { canonicalUrl } }), '/body/seo/canonicalUrl');
      }
      await expectInvalid(await send({ coverImage: { mediaId: HARBOUR, alt: 'a'.repeat(1001) } }), '/body/coverImage/alt');
      expect((await t.allPosts()).items).toEqual([]);
    });
  });

  describe('getPost', () => {
    it('answers 200 with the post and its ETag', async () => {
      const t = await setup(make);
      const created = await t.create({ title: 'Read me' });
      const { data, response } = await t.api.GET('/posts/{id}', { params: { path: { id: created.id } } });
      expect(response.status).toBe(200);
      expect(response.headers.get('etag')).toBe('"1"');
      expect(data).toEqual(created);
    });

    it('answers 304 with the ETag and no body when If-None-Match matches the current ETag', async () => {
      const t = await setup(make);
      const post = await t.create({ title: 'Cached' });
      await t.patch(post.id, 1, { title: 'Cached again' });
      for (const header of ['"2"', 'W/"2"', '"1", "2"', '*']) {
        const response = await t.send('GET', `/posts/${post.id}`, { headers: { 'if-none-match': header } });
        expect(response.status, header).toBe(304);
        expect(response.headers.get('etag')).toBe('"2"');
        expect(await response.text()).toBe('');
      }
    });

    it('answers 200 when If-None-Match names an older version', async () => {
      const t = await setup(make);
      const post = await t.create({ title: 'Cached' });
      await t.patch(post.id, 1, { title: 'Changed' });
      const response = await t.send('GET', `/posts/${post.id}`, { headers: { 'if-none-match': '"1"' } });
      expect(response.status).toBe(200);
      expect(response.headers.get('etag')).toBe('"2"');
      expect(((await response.json()) as ApiPost).title).toBe('Changed');
    });

    it('answers 404 for an unknown post, 422 for a malformed id and 401 without a token', async () => {
      const t = await setup(make);
      await expectProblem(await t.send('GET', `/posts/${UNKNOWN_ID}`), 404, 'not-found');
      await expectInvalid(await t.send('GET', '/posts/not-a-ulid'), '/path/id');
      await expectInvalid(
        await t.send('GET', `/posts/${UNKNOWN_ID}`, { headers: { 'if-none-match': `"${'1'.repeat(199)}"` } }),
        '/headers/if-none-match',
      );
      await expectUnauthorized(await t.send('GET', `/posts/${UNKNOWN_ID}`, { anonymous: true }));
    });
  });

  describe('listPosts', () => {
    it('answers an empty page when there are no posts', async () => {
      const t = await setup(make);
      const { data, response } = await t.api.GET('/posts');
      expect(response.status).toBe(200);
      expect(data).toEqual({ items: [], nextCursor: null, total: 0, totalExact: true });
    });

    it("pages 20 posts at a time without a limit, the contract's default filled in by validation", async () => {
      const t = await setup(make);
      for (let i = 0; i < 21; i += 1) await t.create({ title: `Post ${i}` });
      const { data, response } = await t.api.GET('/posts');
      expect(response.status).toBe(200);
      expect(data!.items).toHaveLength(20);
      expect(data!.nextCursor).not.toBeNull();
      expect(data!.total).toBe(21);
    });

    it('lists summaries without bodies, most recently updated first', async () => {
      // A driven clock: on the wall clock, the patch and the create before it can share a
      // millisecond, and the tie then goes to the newer id (the port's rule), not the patch.
      const clock = new FixedClock(new Date('2026-03-01T09:00:00.000Z'));
      const t = await setup(make, { clock });
      const a = await t.create({ title: 'A', body: 'one two' });
      clock.advance(1_000);
      const b = await t.create({ title: 'B' });
      clock.advance(1_000);
      const c = await t.create({ title: 'C' });
      clock.advance(1_000);
      const a2 = await t.patch(a.id, 1, { excerpt: 'touched' });
      const page = await t.allPosts();
      expect(page.total).toBe(3);
      expect(page.items.map((p) => p.id)).toEqual([a.id, c.id, b.id]);
      const { body: _body, ...summary } = a2;
      expect(page.items[0]).toEqual(summary);
    });

    it('filters by status (repeated), by normalised tag and by a full-text q (folded; punctuation only separates words)', async () => {
      const t = await setup(make);
      const draft = await t.create({ title: 'Draft about Été', tags: ['Travel'] });
      const published = await t.create({ title: 'Published', excerpt: '100% pure_fun', status: 'published', tags: ['travel', 'food'] });
      const archived = await t.create({ title: 'Archived', body: 'Deep in the body: NEEDLE' });
      await t.patch(archived.id, 1, { status: 'archived' });
      const ids = async (query: string) => {
        const response = await t.send('GET', `/posts?${query}`);
        expect(response.status, await peek(response)).toBe(200);
        const page = (await response.json()) as { items: { id: string }[]; total: number };
        expect(page.total).toBe(page.items.length);
        return page.items.map((p) => p.id).sort();
      };
      expect(await ids('status=draft')).toEqual([draft.id]);
      expect(await ids('status=draft&status=archived')).toEqual([draft.id, archived.id].sort());
      expect(await ids(`tag=${encodeURIComponent('  TRAVEL ')}`)).toEqual([draft.id, published.id].sort());
      expect(await ids('tag=food&status=draft')).toEqual([]);
      expect(await ids(`q=${encodeURIComponent('ÉTÉ')}`)).toEqual([draft.id]);
      expect(await ids('q=needle')).toEqual([archived.id]);
      expect(await ids(`q=${encodeURIComponent('100%')}`)).toEqual([published.id]);
      expect(await ids(`q=${encodeURIComponent('pure_fun')}`)).toEqual([published.id]);
      expect(await ids(`q=${encodeURIComponent('%')}`)).toEqual([]);
      expect(await ids(`q=${encodeURIComponent('_')}`)).toEqual([]);
    });

    it('finds two words far apart in either order with q, best matches first when no sort is given', async () => {
      const t = await setup(make);
      const far = await t.create({
        title: 'Running it',
        body: `We use postgres. ${'Some filler words here. '.repeat(60)}Then production.`,
      });
      const titled = await t.create({ title: 'Postgres in production', body: 'A short one.' });
      await t.create({ title: 'Postgres only', body: 'No such word.' });
      for (const q of ['postgres production', 'production postgres']) {
        const response = await t.send('GET', `/posts?q=${encodeURIComponent(q)}`);
        expect(response.status, await peek(response)).toBe(200);
        const page = (await response.json()) as { items: { id: string }[]; total: number };
        expect(page.items.map((p) => p.id)).toEqual([titled.id, far.id]);
        expect(page.total).toBe(2);
      }
      const byDate = (await (await t.send('GET', `/posts?q=postgres&sort=createdAt`)).json()) as { items: { id: string }[] };
      expect(byDate.items[0]!.id).toBe(far.id);
      const first = (await (await t.send('GET', '/posts?q=postgres&sort=relevance&limit=1')).json()) as { nextCursor: string };
      const second = await t.send('GET', `/posts?q=postgres&sort=relevance&limit=1&cursor=${first.nextCursor}`);
      expect(second.status).toBe(200);
    });

    it('creates a post whose body has 140,000 distinct words (940 KB, under the request limit): its first 50,000 words are searchable, later ones not', async () => {
      const t = await setup(make);
      const body = Array.from({ length: 140_000 }, (_, i) => `w${i}`).join(' ');
      const post = await t.create({ title: 'w0', body });
      const ids = async (q: string) => {
        const response = await t.send('GET', `/posts?q=${encodeURIComponent(q)}`);
        expect(response.status, await peek(response)).toBe(200);
        return ((await response.json()) as { items: { id: string }[] }).items.map((p) => p.id);
      };
      expect(await ids('w1 ')).toEqual([post.id]);
      expect(await ids('w49999 ')).toEqual([post.id]);
      expect(await ids('w50000 ')).toEqual([]);
    });

    it('matches a last word of fewer than 3 characters as a whole word, not a prefix: q=po finds Po, not postgres', async () => {
      const t = await setup(make);
      const river = await t.create({ title: 'The Po river' });
      const postgres = await t.create({ title: 'Postgres' });
      const ids = async (q: string) =>
        ((await (await t.send('GET', `/posts?q=${encodeURIComponent(q)}&sort=createdAt`)).json()) as { items: { id: string }[] }).items.map(
          (p) => p.id,
        );
      expect(await ids('po')).toEqual([river.id]);
      expect(await ids('pos')).toEqual([postgres.id]);
    });

    it('answers 422 for sort=relevance without q', async () => {
      const t = await setup(make);
      await expectInvalid(await t.send('GET', '/posts?sort=relevance'), '/query/sort');
    });

    it('sorts by title in byte order and by publishedAt with never-published posts last', async () => {
      const t = await setup(make);
      const b = await t.create({ title: 'b', status: 'published' });
      const upper = await t.create({ title: 'Z' });
      const accent = await t.create({ title: 'é', status: 'published' });
      const a = await t.create({ title: 'a' });
      const titles = async (sort: string) => {
        const { data } = await t.api.GET('/posts', { params: { query: { sort: sort as 'title' } } });
        return data!.items.map((p) => p.title);
      };
      expect(await titles('title')).toEqual(['Z', 'a', 'b', 'é']);
      expect(await titles('-title')).toEqual(['é', 'b', 'a', 'Z']);
      const published = async (sort: string) => {
        const { data } = await t.api.GET('/posts', { params: { query: { sort: sort as 'publishedAt' } } });
        return data!.items.map((p) => p.id);
      };
      expect((await published('publishedAt')).slice(0, 2)).toEqual([b.id, accent.id]);
      expect((await published('-publishedAt')).slice(0, 2)).toEqual([accent.id, b.id]);
      expect((await published('publishedAt')).slice(2).sort()).toEqual([upper.id, a.id].sort());
      expect((await published('-publishedAt')).slice(2).sort()).toEqual([upper.id, a.id].sort());
    });

    it('lists the scheduled drafts with scheduled=true, soonest first by publishAt, and the rest with scheduled=false (200)', async () => {
      const clock = new FixedClock(new Date('2026-03-01T09:00:00.000Z'));
      const t = await setup(make, { clock });
      const later = await t.create({ title: 'Later', publishAt: '2026-03-09T09:00:00.000Z' });
      const draft = await t.create({ title: 'Plain draft' });
      const soon = await t.create({ title: 'Soon', publishAt: '2026-03-02T09:00:00.000Z' });
      const published = await t.create({ title: 'Out', status: 'published' });
      const ids = async (query: string) => {
        const response = await t.send('GET', `/posts?${query}`);
        expect(response.status, await peek(response)).toBe(200);
        const page = (await response.json()) as { items: { id: string }[]; total: number };
        expect(page.total).toBe(page.items.length);
        return page.items.map((p) => p.id);
      };
      expect(await ids('scheduled=true&sort=publishAt')).toEqual([soon.id, later.id]);
      expect(await ids('scheduled=true&sort=-publishAt')).toEqual([later.id, soon.id]);
      expect(await ids('scheduled=false&status=draft')).toEqual([draft.id]);
      expect((await ids('scheduled=false')).sort()).toEqual([draft.id, published.id].sort());
      expect(await ids('scheduled=true&status=published')).toEqual([]);
      expect((await ids('sort=publishAt')).slice(0, 2)).toEqual([soon.id, later.id]);
      const { data } = await t.api.GET('/posts', { params: { query: { scheduled: true, sort: 'publishAt', limit: 1 } } });
      expect(data!.items.map((p) => p.publishAt)).toEqual(['2026-03-02T09:00:00.000Z']);
      await expectInvalid(
        await t.send('GET', `/posts?scheduled=false&sort=publishAt&limit=1&cursor=${data!.nextCursor!}`),
        '/query/cursor',
      );
      await expectInvalid(await t.send('GET', '/posts?scheduled=soon'), '/query/scheduled');
    });

    it('pages with nextCursor, each post exactly once, null on the last page', async () => {
      const t = await setup(make);
      const created: string[] = [];
      for (let i = 0; i < 7; i++) created.push((await t.create({ title: `Post ${i}` })).id);
      for (const sort of ['-updatedAt', 'createdAt', 'title', '-publishedAt'] as const) {
        const seen: string[] = [];
        let cursor: string | undefined;
        for (let pages = 0; pages < 10; pages++) {
          const { data, response } = await t.api.GET('/posts', { params: { query: { limit: 3, sort, ...(cursor ? { cursor } : {}) } } });
          expect(response.status).toBe(200);
          expect(data!.total).toBe(7);
          seen.push(...data!.items.map((p) => p.id));
          if (data!.nextCursor === null) break;
          cursor = data!.nextCursor;
        }
        expect(seen, sort).toHaveLength(7);
        expect(new Set(seen).size, sort).toBe(7);
        expect([...seen].sort()).toEqual([...created].sort());
      }
    });

    it('answers 422 for a limit out of range, an unknown status or sort and a cursor that is not one', async () => {
      const t = await setup(make);
      await expectInvalid(await t.send('GET', '/posts?limit=0'), '/query/limit');
      await expectInvalid(await t.send('GET', '/posts?limit=101'), '/query/limit');
      await expectInvalid(await t.send('GET', '/posts?status=deleted'), '/query/status/0');
      await expectInvalid(await t.send('GET', '/posts?sort=wordCount'), '/query/sort');
      await expectInvalid(await t.send('GET', '/posts?cursor=not%20a%20cursor'), '/query/cursor');
      await expectInvalid(await t.send('GET', '/posts?cursor=bm90LWEtY3Vyc29y'), '/query/cursor');
    });

    it('answers 422 for a cursor issued for another sort or other filters', async () => {
      const t = await setup(make);
      for (let i = 0; i < 3; i++) await t.create({ title: `Post ${i}`, tags: ['x'] });
      const { data } = await t.api.GET('/posts', { params: { query: { limit: 1, tag: 'x' } } });
      const cursor = data!.nextCursor!;
      expect(cursor).toEqual(expect.any(String));
      expect((await t.send('GET', `/posts?limit=1&tag=x&cursor=${cursor}`)).status).toBe(200);
      await expectInvalid(await t.send('GET', `/posts?limit=1&cursor=${cursor}`), '/query/cursor');
      await expectInvalid(await t.send('GET', `/posts?limit=1&tag=x&sort=title&cursor=${cursor}`), '/query/cursor');
      await expectInvalid(await t.send('GET', `/posts?limit=1&tag=x&status=draft&cursor=${cursor}`), '/query/cursor');
      await expectInvalid(await t.send('GET', `/posts?limit=1&tag=x&q=post&cursor=${cursor}`), '/query/cursor');
    });

    it('answers 422 for a q with a line break or another control character, so it never matches across fields', async () => {
      const t = await setup(make);
      await t.create({ title: 'alpha', excerpt: 'beta', body: 'gamma' });
      for (const q of ['alpha\nbeta', 'beta\ngamma', 'a\tb', 'nul\u0000', '\u007f', '\u0085']) {
        await expectInvalid(await t.send('GET', `/posts?q=${encodeURIComponent(q)}`), '/query/q');
      }
      await expectInvalid(await t.send('GET', `/posts?q=${encodeURIComponent('x'.repeat(201))}`), '/query/q');
    });

    it('answers 422 for a tag filter that is blank once normalised', async () => {
      const t = await setup(make);
      await expectInvalid(await t.send('GET', `/posts?tag=${encodeURIComponent('   ')}`), '/query/tag');
      await expectInvalid(await t.send('GET', `/posts?tag=${encodeURIComponent('a\u0000b')}`), '/query/tag');
    });
  });
});
