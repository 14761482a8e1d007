import { createHash } from 'node:crypto';
import { unzipSync, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import type { components } from '../../generated/api.js';
import { zipOfFixture } from '../support/import-fixtures.js';
import { describeOnEveryStore } from '../support/stores.js';
import { expectInvalid, expectProblem, peek, setup, type ApiPost, type Setup } from './helpers.js';

type Report = components['schemas']['ImportReport'];
type Item = components['schemas']['ImportItem'];

const encoder = new TextEncoder();

const zipOf = (files: Record<string, string | Uint8Array>): Uint8Array =>
  zipSync(
    Object.fromEntries(
      Object.entries(files).map(([path, content]) => [path, typeof content === 'string' ? encoder.encode(content) : content]),
    ),
  );

async function importZip(
  t: Setup,
  zip: Uint8Array,
  mode: 'dry-run' | 'apply' | null = 'apply',
  headers: Record<string, string> = {},
): Promise<Response> {
  return t.fetch(`http://localhost/api/v1/import${mode === null ? '' : `?mode=${mode}`}`, {
    method: 'POST',
    headers: { ...t.auth, 'content-type': 'application/zip', ...headers },
    body: zip,
  });
}

async function reportOf(response: Response): Promise<Report> {
  expect(response.status, await peek(response)).toBe(200);
  return (await response.json()) as Report;
}

const byPath = (report: Report) => Object.fromEntries(report.items.map((item) => [item.path, item]));

async function exportFlat(t: Setup): Promise<Record<string, Uint8Array>> {
  const response = await t.send('GET', '/export');
  expect(response.status).toBe(200);
  return unzipSync(new Uint8Array(await response.arrayBuffer()));
}

/** The store's posts, whole, by slug. */
async function postsBySlug(t: Setup): Promise<Record<string, ApiPost>> {
  const page = await t.allPosts();
  const whole = await Promise.all(page.items.map((summary) => t.getPost(summary.id)));
  return Object.fromEntries(whole.map((post) => [post.slug, post]));
}

const skip = (reason: Item['reason']) => expect.objectContaining({ action: 'skip', reason });

describeOnEveryStore('importSite', (make) => {
  describe('sites written by static-site generators', () => {
    it('imports a Hugo site: YAML and TOML front matter, a page bundle named by its folder with its cover image, drafts; sections and pages skipped', async () => {
      const t = await setup(make);
      const report = await reportOf(await importZip(t, zipOfFixture('hugo')));
      expect(report).toMatchObject({
        mode: 'apply',
        source: 'markdown',
        counts: { files: 7, create: 4, update: 0, unchanged: 0, skip: 3 },
      });
      const items = byPath(report);
      expect(items['hugo.toml']).toEqual(skip('not_a_post'));
      expect(items['content/_index.md']).toEqual(skip('not_a_post'));
      expect(items['content/posts/bundle-post/cover.jpg']).toMatchObject({ action: 'create', id: null, reason: null });

      const posts = await postsBySlug(t);
      expect(Object.keys(posts).sort()).toEqual(['bundle-post', 'first-post', 'toml-front-matter']);
      expect(posts['first-post']).toMatchObject({
        title: 'Hugo: the first post',
        excerpt: 'What Hugo writes, read back.',
        tags: ['hugo', 'static sites'],
        status: 'published',
        createdAt: '2024-02-10T08:30:00.000Z',
        publishedAt: '2024-02-10T08:30:00.000Z',
        updatedAt: '2024-02-12T17:00:00.000Z',
        body: '\nHello from **Hugo**.\n\n<!--more-->\n\nThe rest of the post.\n',
      });
      expect(posts['toml-front-matter']).toMatchObject({
        title: 'Front matter in TOML',
        excerpt: 'TOML between +++ lines.',
        tags: ['toml', 'hugo'],
        status: 'draft',
        publishedAt: null,
        createdAt: '2024-03-01T10:00:00.000Z',
        body: 'A draft written with TOML front matter.\n',
      });
      expect(posts['bundle-post']).toMatchObject({
        title: 'A page bundle',
        tags: ['bundles'],
        status: 'published',
        publishedAt: '2024-04-05T00:00:00.000Z',
      });
      // The bundle's cover.jpg, stored in the media library: the body links it by its URL, and it is the cover.
      const bundle = (await t.store.posts.get(posts['bundle-post']!.id))!;
      const [, mediaId] = /^!\[Cover\]\(http:\/\/\S+\/api\/v1\/content\/media\/([a-z2-7]{26})\/original\.jpg\)\n/.exec(bundle.body) ?? [];
      expect(bundle.coverImage).toEqual({ mediaId, alt: 'An orange rectangle' });
      expect(items['content/posts/bundle-post/index.md']).toMatchObject({
        action: 'create',
        id: posts['bundle-post']!.id,
        slug: 'bundle-post',
      });
    });

    it('imports a Jekyll site: the date and slug from _posts file names, published: false and _drafts as drafts, tags in one string', async () => {
      const t = await setup(make);
      const report = await reportOf(await importZip(t, zipOfFixture('jekyll')));
      expect(report.counts).toEqual({ files: 6, create: 3, update: 0, unchanged: 0, skip: 3 });
      expect(byPath(report)['_config.yml']).toEqual(skip('not_a_post'));
      const posts = await postsBySlug(t);
      expect(posts['hello-jekyll']).toMatchObject({
        title: 'Welcome to Jekyll!',
        excerpt: "The post Jekyll's starter writes.",
        tags: ['ruby', 'static-sites', 'jekyll', 'update'],
        status: 'published',
        publishedAt: '2023-05-06T12:30:00.000Z',
      });
      expect(posts['hello-jekyll']!.body).toContain('{% highlight ruby %}');
      expect(posts['not-yet']).toMatchObject({
        title: 'Not published yet',
        status: 'draft',
        publishedAt: null,
        createdAt: '2023-07-01T00:00:00.000Z',
      });
      expect(posts['a-draft-idea']).toMatchObject({ title: 'A draft idea', status: 'draft', publishedAt: null });
    });

    it("imports an Astro content collection: pubDate in the starter's 'Jul 08 2022' form, updatedDate, draft; .mdx skipped", async () => {
      const t = await setup(make);
      const report = await reportOf(await importZip(t, zipOfFixture('astro')));
      expect(report.counts).toEqual({ files: 4, create: 2, update: 0, unchanged: 0, skip: 2 });
      expect(byPath(report)['src/content/blog/using-mdx.mdx']).toEqual(skip('not_a_post'));
      const posts = await postsBySlug(t);
      expect(posts['first-post']).toMatchObject({
        title: 'First post',
        excerpt: 'Lorem ipsum dolor sit amet',
        tags: ['astro', 'blogging'],
        status: 'published',
        publishedAt: '2022-07-08T00:00:00.000Z',
        updatedAt: '2022-07-10T00:00:00.000Z',
      });
      expect(posts['draft-post']).toMatchObject({ title: 'Still writing this', status: 'draft', publishedAt: null });
    });

    it.each([
      ['hugo', ['content/about.md']],
      ['jekyll', ['about.md', 'index.markdown']],
      ['astro', ['src/pages/about.md']],
    ] as const)(
      'skips the %s fixture site\'s pages (%j) as "page, not a post" (200): none reaches the Content API, its feeds or sitemap',
      async (site, pages) => {
        const t = await setup(make);
        for (const mode of ['dry-run', 'apply'] as const) {
          const items = byPath(await reportOf(await importZip(t, zipOfFixture(site), mode)));
          for (const page of pages) {
            expect(items[page], page).toEqual({
              path: page,
              action: 'skip',
              id: null,
              slug: null,
              changed: [],
              summary: mode === 'apply' ? 'Not imported.' : 'Will not be imported.',
              reason: 'page',
              detail: expect.stringMatching(/^A page, not a post: /) as unknown,
            });
          }
        }
        const read = async (path: string) => {
          const response = await t.send('GET', `/content${path}`, { anonymous: true });
          expect(response.status, path).toBe(200);
          return response.text();
        };
        const listed = JSON.parse(await read('/posts')) as { items: { slug: string; title: string }[] };
        expect(listed.items.length).toBeGreaterThan(0);
        expect(listed.items.map((post) => post.title)).not.toContain('About');
        expect(listed.items.map((post) => post.title)).not.toContain('About Me');
        expect((await t.allPosts()).items.map((post) => post.slug)).not.toContain('about');
        for (const path of ['/feed.atom', '/feed.rss', '/sitemap.xml']) expect(await read(path), path).not.toMatch(/\babout\b/i);
      },
    );

    it('reads Jekyll categories (words in one string, or a list) and category as tags, after the tags, normalised and once each (200)', async () => {
      const t = await setup(make);
      await reportOf(await importZip(t, zipOfFixture('jekyll')));
      const posts = await postsBySlug(t);
      expect(posts['hello-jekyll']!.tags).toEqual(['ruby', 'static-sites', 'jekyll', 'update']);
      expect(posts['not-yet']!.tags).toEqual(['ruby', 'site news', 'drafts']);
    });

    it.each(['hugo', 'jekyll', 'astro'] as const)(
      're-importing the %s site reports every post unchanged and writes nothing',
      async (site) => {
        const t = await setup(make);
        const first = await reportOf(await importZip(t, zipOfFixture(site)));
        const before = await postsBySlug(t);
        const events = (await t.activity()).length;
        const again = await reportOf(await importZip(t, zipOfFixture(site)));
        expect(again.counts).toEqual({ ...first.counts, create: 0, unchanged: first.counts.create });
        expect(again.items.filter((item) => item.action === 'unchanged').map((item) => item.id)).toEqual(
          first.items.filter((item) => item.action === 'create').map((item) => item.id),
        );
        expect(await postsBySlug(t)).toEqual(before);
        expect(await t.activity()).toHaveLength(events);
      },
    );
  });

  describe('dry run, then apply', () => {
    it('a dry run (the default mode) reports what would happen and writes nothing', async () => {
      const t = await setup(make);
      const taken = await t.create({ title: 'Taken', slug: 'first-post' });
      const report = await reportOf(await importZip(t, zipOfFixture('hugo'), null));
      expect(report.mode).toBe('dry-run');
      const items = byPath(report);
      // No id in a Hugo file: its slug names the post it updates.
      expect(items['content/posts/first-post.md']).toMatchObject({
        action: 'update',
        id: taken.id,
        changed: ['title', 'excerpt', 'body', 'tags', 'status'],
      });
      expect(items['content/posts/toml-post.md']).toMatchObject({ action: 'create', id: null, slug: 'toml-front-matter' });
      expect((await t.allPosts()).items.map((p) => p.id)).toEqual([taken.id]);
      expect(await t.getPost(taken.id)).toMatchObject({ title: 'Taken', version: 1 });
      expect(await t.activity()).toHaveLength(1);
    });

    it('applying updates a post file by file, each with its own revision and activity event by the importing user', async () => {
      const t = await setup(make);
      const post = await t.create({ title: 'Old title', slug: 'first-post', body: 'old', tags: ['hugo'] });
      const report = await reportOf(await importZip(t, zipOfFixture('hugo')));
      expect(byPath(report)['content/posts/first-post.md']).toMatchObject({ action: 'update', id: post.id });
      const after = await t.getPost(post.id);
      expect(after).toMatchObject({ version: 2, title: 'Hugo: the first post', status: 'published', tags: ['hugo', 'static sites'] });
      const revisions = await t.revisions(post.id);
      expect(revisions.map((r) => [r.version, r.actor.name])).toEqual([
        [2, 'Ada Lovelace'],
        [1, 'Ada Lovelace'],
      ]);
      const events = await t.activity();
      expect(events.filter((e) => e.postId === post.id).map((e) => e.type)).toEqual(['published', 'created']);
      // The posts created (the bundle's image, stored in the media library, has no post id).
      const created = report.items.filter((item) => item.action === 'create' && item.path.endsWith('.md'));
      for (const item of created) {
        const history = await t.activity(item.id!);
        expect(history.map((e) => [e.type, e.actor.id])).toEqual([['created', t.admin.id]]);
        expect(await t.revisions(item.id!)).toHaveLength(1);
      }
    });

    it('skips, with path and reason, invalid posts, bad front matter and a second file for one slug; the others go in', async () => {
      const t = await setup(make);
      const other = await t.create({ title: 'Somebody else', slug: 'mine' });
      const zip = zipOf({
        'content/posts/good.md': '---\ntitle: Good\n---\nfine\n',
        'content/posts/untitled.md': '---\ndraft: true\n---\nno title\n',
        'content/posts/long.md': `---\ntitle: ${'x'.repeat(201)}\n---\n`,
        'content/posts/bad-tag.md': `---\ntitle: Bad tag\ntags: ["${'t'.repeat(41)}"]\n---\n`,
        'content/posts/again/index.md': '---\ntitle: Good again\nslug: good\n---\nsecond\n',
        'exported.md': `---\nid: 01JDQ8Z4M6X2V7K9T3N5R8W1YB\ntitle: Claims a slug\n---\n`,
        'bad-date.md': '---\ntitle: Bad date\ndate: 2024-02-30\n---\n',
        'no-front-matter.md': '# Just markdown\n',
        'broken.md': '---\ntitle: [unclosed\n---\n',
      });
      // An id outside a MarginCMS export is not read: `exported.md` is a file like any other.
      const report = await reportOf(await importZip(t, zip));
      const items = byPath(report);
      expect(items['content/posts/good.md']).toMatchObject({ action: 'create', slug: 'good' });
      expect(items['content/posts/untitled.md']).toMatchObject({ action: 'skip', reason: 'invalid_post', slug: 'untitled' });
      expect(items['content/posts/untitled.md']!.detail).toMatch(/^\/title: /);
      expect(items['content/posts/long.md']).toMatchObject({ action: 'skip', reason: 'invalid_post' });
      expect(items['content/posts/bad-tag.md']).toMatchObject({ action: 'skip', reason: 'invalid_post' });
      expect(items['content/posts/again/index.md']).toMatchObject({ action: 'skip', reason: 'duplicate', slug: 'good' });
      expect(items['exported.md']).toMatchObject({ action: 'create', slug: 'exported' });
      expect(items['bad-date.md']).toMatchObject({ action: 'skip', reason: 'invalid_front_matter' });
      expect(items['bad-date.md']!.detail).toContain('date');
      expect(items['no-front-matter.md']).toMatchObject({ action: 'skip', reason: 'invalid_front_matter' });
      expect(items['broken.md']).toMatchObject({ action: 'skip', reason: 'invalid_front_matter' });
      const slugs = (await t.allPosts()).items.map((p) => p.slug).sort();
      expect(slugs).toEqual(['exported', 'good', 'mine']);

      // Without an id, a file is the post that holds its slug.
      const same = await reportOf(await importZip(t, zipOf({ 'mine.md': '---\ntitle: X\n---\n' })));
      expect(same.items[0]).toMatchObject({ action: 'update', id: other.id, changed: ['title', 'status'] });
    });

    it('skips a file over the per-file limit without inflating it, and imports the rest', async () => {
      const t = await setup(make, { bodyLimitBytes: 2048 });
      const report = await reportOf(
        await importZip(t, zipOf({ 'big.md': `---\ntitle: Big\n---\n${'a'.repeat(4096)}`, 'small.md': '---\ntitle: Small\n---\n' })),
      );
      expect(byPath(report)['big.md']).toMatchObject({ action: 'skip', reason: 'too_large' });
      expect(byPath(report)['small.md']).toMatchObject({ action: 'create' });
    });
  });

  describe('what an import writes', () => {
    it('skips, as deleted, a file whose id is that of a deleted post: the post stays deleted, the others are imported (200)', async () => {
      const t = await setup(make);
      const kept = await t.create({ title: 'Kept', slug: 'kept' });
      const gone = await t.create({ title: 'Gone', slug: 'gone' });
      const files = await exportFlat(t);
      expect((await t.send('DELETE', `/posts/${gone.id}`, { headers: { 'if-match': '"1"' } })).status).toBe(204);
      const events = (await t.activity()).length;
      for (const mode of ['dry-run', 'apply'] as const) {
        const report = await reportOf(await importZip(t, zipSync(files), mode));
        expect(byPath(report)['gone.md']).toMatchObject({ action: 'skip', reason: 'deleted', id: null, slug: 'gone' });
        expect(byPath(report)['gone.md']!.detail).toContain(gone.id);
        expect(byPath(report)['kept.md']).toMatchObject({ action: 'unchanged', id: kept.id });
      }
      expect((await t.send('GET', `/posts/${gone.id}`)).status).toBe(404);
      expect((await t.allPosts()).items.map((p) => p.id)).toEqual([kept.id]);
      expect(await t.activity()).toHaveLength(events);
      // Without its id (not an export: no manifest), the same file is a new post with a new id.
      const { 'gone.md': goneFile } = files;
      const asMarkdown = await reportOf(await importZip(t, zipSync({ 'gone.md': goneFile! })));
      expect(asMarkdown.items[0]).toMatchObject({ action: 'create', slug: 'gone' });
      expect(asMarkdown.items[0]!.id).not.toBe(gone.id);
    });

    it("stamps a created post's revision and created event with the time of the import; the post keeps its own dates", async () => {
      const t = await setup(make);
      const start = Date.now();
      const report = await reportOf(
        await importZip(
          t,
          zipOf({
            '_posts/1999-01-02-old.md': '---\ntitle: Old\ndate: 1999-01-02 03:04:05 +0000\nlast_modified_at: 1999-02-03\n---\nBody\n',
          }),
        ),
      );
      const id = report.items[0]!.id!;
      expect(await t.getPost(id)).toMatchObject({
        createdAt: '1999-01-02T03:04:05.000Z',
        publishedAt: '1999-01-02T03:04:05.000Z',
        updatedAt: '1999-02-03T00:00:00.000Z',
      });
      const [revision] = await t.revisions(id);
      const [event] = await t.activity(id);
      for (const at of [revision!.createdAt, event!.occurredAt]) {
        expect(Date.parse(at)).toBeGreaterThanOrEqual(start);
        expect(Date.parse(at)).toBeLessThanOrEqual(Date.now());
      }
    });
  });

  describe('a MarginCMS export', () => {
    it('export → import into an empty site → export gives the same files byte for byte, ids and timestamps kept', async () => {
      const source = await setup(make);
      const awkward = [
        { title: 'Colons: "double" and \'single\' quotes', body: 'a: b\n---\nnot front matter\n' },
        { title: '# Not a heading, a title', excerpt: 'Line one\nline two', body: '' },
        { title: 'A title on\ntwo lines', body: 'x' },
        { title: 'Emoji 🎉 and right-to-left שלום עולם', body: 'مرحبا\n', tags: ['émoji', 'rtl'] },
        { title: 'A very long body', body: `${'Lorem ipsum dolor sit amet. '.repeat(20_000)}\n` },
        { title: 'yes', excerpt: 'null', body: '---\n', tags: ['true', '1.0'] },
        { title: '  Leading and trailing spaces  ', body: '\r\nWindows line ends\r\n' },
      ];
      for (const [i, body] of awkward.entries()) await source.create({ ...body, status: i % 2 === 0 ? 'published' : 'draft' });
      const draft = await source.create({ title: 'Scheduled', publishAt: new Date(Date.now() + 86_400_000).toISOString() });
      const archived = await source.create({ title: 'Archived after publishing', status: 'published' });
      await source.patch(archived.id, 1, { status: 'archived' });
      const unpublished = await source.create({ title: 'Unpublished', status: 'published' });
      await source.patch(unpublished.id, 1, { status: 'draft', body: 'edited' });
      const exported = await exportFlat(source);
      expect(Object.keys(exported)).toHaveLength(awkward.length + 4);

      const target = await setup(make);
      const report = await reportOf(await importZip(target, zipSync(exported)));
      expect(report).toMatchObject({ source: 'margincms', counts: { files: awkward.length + 3, create: awkward.length + 3, skip: 0 } });
      const again = await exportFlat(target);
      const names = Object.keys(exported).filter((name) => name !== 'manifest.json');
      expect(Object.keys(again).filter((name) => name !== 'manifest.json')).toEqual(names);
      for (const name of names)
        expect(Buffer.from(again[name]!).toString('utf8'), name).toBe(Buffer.from(exported[name]!).toString('utf8'));
      const manifest = (bytes: Uint8Array) => {
        const { exportedAt: _exportedAt, ...rest } = JSON.parse(Buffer.from(bytes).toString('utf8')) as Record<string, unknown>;
        return rest;
      };
      expect(manifest(again['manifest.json']!)).toEqual(manifest(exported['manifest.json']!));
      expect(await target.getPost(draft.id)).toMatchObject({ status: 'draft', publishAt: draft.publishAt });

      const reimport = await reportOf(await importZip(target, zipSync(exported)));
      expect(reimport.counts).toMatchObject({ unchanged: awkward.length + 3, create: 0, update: 0 });
    });

    it('carries the SEO fields: export → import → export gives the same files, and an import that changes only them updates them', async () => {
      const source = await setup(make);
      const seo = {
        title: 'Cursors: "why" & how',
        description: 'Offsets skip rows.\nCursors do not.',
        canonicalUrl: 'https://first.example/cursors?a=1',
      };
      const full = await source.create({ title: 'Full', status: 'published', seo });
      await source.create({ title: 'Partial', seo: { canonicalUrl: 'http://first.example/partial' } });
      await source.create({ title: 'None' });
      const exported = await exportFlat(source);
      expect(Buffer.from(exported['full.md']!).toString('utf8')).toContain('canonical_url: https://first.example/cursors?a=1\n');

      const target = await setup(make);
      expect((await reportOf(await importZip(target, zipSync(exported)))).counts).toMatchObject({ create: 3, skip: 0 });
      expect((await target.getPost(full.id)).seo).toEqual(seo);
      const again = await exportFlat(target);
      for (const name of ['full.md', 'partial.md', 'none.md']) {
        expect(Buffer.from(again[name]!).toString('utf8'), name).toBe(Buffer.from(exported[name]!).toString('utf8'));
      }

      await target.patch(full.id, 1, { seo: { title: null } });
      const report = await reportOf(await importZip(target, zipSync(exported)));
      expect(byPath(report)['full.md']).toMatchObject({ action: 'update', changed: ['seo'] });
      expect(report.counts).toMatchObject({ update: 1, unchanged: 2 });
      expect((await target.getPost(full.id)).seo).toEqual(seo);
    });

    it('plans each file on the site the earlier files leave: a post renamed, then a new post at its old slug', async () => {
      const source = await setup(make);
      const moved = await source.create({ title: 'Moving', slug: 'old-home', status: 'published' });
      for (let i = 1; i <= 10; i++) await source.create({ title: `Neighbour ${i}` });
      const before = await exportFlat(source);
      await source.patch(moved.id, 1, { slug: 'new-home', title: 'Moved' });
      const after = await exportFlat(source);

      const target = await setup(make);
      expect((await reportOf(await importZip(target, zipSync(before)))).counts).toMatchObject({ create: 11, skip: 0 });
      // The export after the rename, and a post of another export for the slug the post left.
      const newcomer = encoder.encode(
        Buffer.from(after['neighbour-1.md']!)
          .toString('utf8')
          .replace(/^id: .*$/m, 'id: 01JDQ8Z4M6X2V7K9T3N5R8W1YB')
          .replace(/^title: .*$/m, 'title: A newcomer')
          .replace(/^slug: .*$/m, 'slug: old-home'),
      );
      const manifest = JSON.parse(Buffer.from(after['manifest.json']!).toString('utf8')) as { files: unknown[] };
      manifest.files.push({
        path: 'zz-newcomer.md',
        bytes: newcomer.byteLength,
        sha256: createHash('sha256').update(newcomer).digest('hex'),
      });
      // The newcomer right after the renamed post, so that it is read while the rename is written.
      const files: Record<string, Uint8Array> = {};
      for (const [path, bytes] of Object.entries(after)) {
        files[path] = path === 'manifest.json' ? encoder.encode(JSON.stringify(manifest)) : bytes;
        if (path === 'new-home.md') files['zz-newcomer.md'] = newcomer;
      }
      const zip = zipSync(files);
      const report = await reportOf(await importZip(target, zip));
      expect(report.counts).toEqual({ files: 12, create: 1, update: 1, unchanged: 10, skip: 0 });
      expect(byPath(report)['new-home.md']).toMatchObject({ action: 'update', id: moved.id, changed: ['title', 'slug'] });
      expect(byPath(report)['zz-newcomer.md']).toMatchObject({ action: 'create', slug: 'old-home' });
      const posts = await postsBySlug(target);
      expect(posts['new-home']).toMatchObject({ id: moved.id, title: 'Moved', version: 2 });
      expect(posts['old-home']).toMatchObject({ id: '01JDQ8Z4M6X2V7K9T3N5R8W1YB', title: 'A newcomer', version: 1 });
    });

    it('reads the manifest of a site whose manifest is larger than a post may be, as a MarginCMS export keeping the ids', async () => {
      const source = await setup(make);
      const ids: string[] = [];
      for (let i = 1; i <= 25; i++) ids.push((await source.create({ title: `Post number ${i}` })).id);
      const exported = await exportFlat(source);
      expect(exported['manifest.json']!.byteLength).toBeGreaterThan(2048);

      const target = await setup(make, { bodyLimitBytes: 2048 });
      const report = await reportOf(await importZip(target, zipSync(exported)));
      expect(report).toMatchObject({ source: 'margincms', counts: { files: 25, create: 25, skip: 0 } });
      expect(report.items.map((item) => item.id).sort()).toEqual(ids.sort());
    });

    it('imports the Hugo layout of an export back to the same posts (id, status, tags)', async () => {
      const source = await setup(make);
      const post = await source.create({ title: 'Hugo layout', tags: ['a', 'b'], status: 'published', excerpt: 'Summary' });
      const response = await source.send('GET', '/export?layout=hugo');
      const zip = new Uint8Array(await response.arrayBuffer());
      const target = await setup(make);
      const report = await reportOf(await importZip(target, zip));
      expect(report).toMatchObject({ source: 'margincms', counts: { create: 1 } });
      expect(await target.getPost(post.id)).toMatchObject({
        title: 'Hugo layout',
        tags: ['a', 'b'],
        status: 'published',
        excerpt: 'Summary',
        createdAt: post.createdAt,
      });
    });

    it('skips a post of the export whose slug another post of the site holds (slug_taken), and imports the others', async () => {
      const source = await setup(make);
      const clashing = await source.create({ title: 'Clashing', slug: 'about' });
      const free = await source.create({ title: 'Free' });
      const exported = await exportFlat(source);
      // On PGlite and PostgreSQL the second set-up empties the database the first one used.
      const target = await setup(make);
      const holder = await target.create({ title: 'Our about page', slug: 'about' });
      const report = await reportOf(await importZip(target, zipSync(exported)));
      expect(byPath(report)['about.md']).toMatchObject({ action: 'skip', reason: 'slug_taken', slug: 'about', id: null });
      expect(byPath(report)['about.md']!.detail).toContain(holder.id);
      expect(byPath(report)['free.md']).toMatchObject({ action: 'create', id: free.id });
      expect(await target.getPost(holder.id)).toMatchObject({ title: 'Our about page', version: 1 });
      expect((await target.send('GET', `/posts/${clashing.id}`)).status).toBe(404);
    });

    it('reads a file that is not what the manifest lists by its own front matter, saying so, and refuses a manifest of another version', async () => {
      const t = await setup(make);
      await t.create({ title: 'Listed', status: 'published' });
      const exported = await exportFlat(t);
      const target = await setup(make);
      const tampered = {
        ...exported,
        'listed.md': encoder.encode('---\ntitle: Tampered\n---\n'),
        'extra.md': encoder.encode('---\ntitle: Extra\nstatus: draft\n---\n'),
      };
      const report = await reportOf(await importZip(target, zipSync(tampered)));
      expect(report.source).toBe('margincms');
      expect(byPath(report)['listed.md']).toMatchObject({
        action: 'create',
        slug: 'listed',
        summary: 'Created as a published post.',
        reason: null,
        detail: expect.stringMatching(/^The file is not what the manifest lists \(.*\): read by its own front matter\.$/) as unknown,
      });
      expect(byPath(report)['extra.md']).toMatchObject({
        action: 'create',
        slug: 'extra',
        summary: 'Created as a draft.',
        detail: 'The file is not listed in the manifest: read by its own front matter.',
      });
      expect((await postsBySlug(target)).extra).toMatchObject({ title: 'Extra', status: 'draft' });

      const manifest = JSON.parse(Buffer.from(exported['manifest.json']!).toString('utf8')) as Record<string, unknown>;
      const future = { ...exported, 'manifest.json': encoder.encode(JSON.stringify({ ...manifest, version: 2 })) };
      const refused = await expectProblem(await importZip(target, zipSync(future)), 422, 'archive-refused');
      expect(refused).toMatchObject({ reason: 'unsupported_manifest', entry: 'manifest.json' });
      expect((await target.allPosts()).total).toBe(2);
    });
  });

  describe('hostile archives are refused whole, and nothing is written', () => {
    const good = { 'a-good-post.md': '---\ntitle: Good\n---\n' };
    it.each([
      [
        'a path that climbs out',
        { ...good, 'content/../../etc/evil.md': '---\ntitle: x\n---\n' },
        'unsafe_path',
        'content/../../etc/evil.md',
      ],
      ['an absolute path', { ...good, '/etc/evil.md': '---\ntitle: x\n---\n' }, 'unsafe_path', '/etc/evil.md'],
      ['a drive letter', { ...good, 'C:/evil.md': '---\ntitle: x\n---\n' }, 'unsafe_path', 'C:/evil.md'],
    ])('%s', async (_name, files, reason, entry) => {
      const t = await setup(make);
      const problem = await expectProblem(await importZip(t, zipOf(files)), 422, 'archive-refused');
      expect(problem).toMatchObject({ reason, entry });
      expect(problem.detail).toContain(entry);
      expect((await t.allPosts()).total).toBe(0);
    });

    it('a symbolic link', async () => {
      const t = await setup(make);
      const zip = zipSync({
        'a-good-post.md': encoder.encode(good['a-good-post.md']),
        'link.md': [encoder.encode('/etc/passwd'), { os: 3, attrs: (0o120777 << 16) >>> 0 }],
      });
      expect(await expectProblem(await importZip(t, zip), 422, 'archive-refused')).toMatchObject({ reason: 'symlink', entry: 'link.md' });
      expect((await t.allPosts()).total).toBe(0);
    });

    it('a zip bomb whose entry inflates past the size it declares, even after good files', async () => {
      const t = await setup(make);
      const zip = zipSync({ 'a-good-post.md': encoder.encode(good['a-good-post.md']), 'bomb.md': new Uint8Array(4 << 20) }, { level: 9 });
      lieAboutSize(zip, 'bomb.md', 100);
      expect(await expectProblem(await importZip(t, zip), 422, 'archive-refused')).toMatchObject({
        reason: 'size_mismatch',
        entry: 'bomb.md',
      });
      expect((await t.allPosts()).total).toBe(0);
    });

    it('more entries, or more inflated bytes, than the server allows', async () => {
      const t = await setup(make, { imports: { maxEntries: 3, maxInflatedBytes: 1024 } });
      const many = await expectProblem(
        await importZip(t, zipOf({ 'a.md': '', 'b.md': '', 'c.md': '', 'd.md': '' })),
        422,
        'archive-refused',
      );
      expect(many).toMatchObject({ reason: 'too_many_entries', entry: null });
      const large = await expectProblem(
        await importZip(t, zipOf({ 'a.md': 'a'.repeat(600), 'b.md': 'b'.repeat(600) })),
        422,
        'archive-refused',
      );
      expect(large).toMatchObject({ reason: 'too_large', entry: null });
      expect((await t.allPosts()).total).toBe(0);
    });

    it('a body that is not a zip', async () => {
      const t = await setup(make);
      const problem = await expectProblem(await importZip(t, encoder.encode('---\ntitle: not a zip\n---\n')), 422, 'archive-refused');
      expect(problem).toMatchObject({ reason: 'not_a_zip', entry: null });
    });
  });

  describe('the request', () => {
    it('answers 413 to an archive over the import limit, which is not the JSON body limit', async () => {
      const t = await setup(make, { bodyLimitBytes: 1024, imports: { limitBytes: 4096 } });
      const zip = zipOf({
        'post.md': `---\ntitle: Fits\n---\n${Array.from({ length: 200 }, (_, i) => `line ${i} ${i * 7919}`).join('\n')}`,
      });
      expect(zip.byteLength).toBeGreaterThan(1024);
      expect(zip.byteLength).toBeLessThan(4096);
      await reportOf(await importZip(t, zip));
      const big = zipSync({ 'noise.md': crypto.getRandomValues(new Uint8Array(6000)) }, { level: 0 });
      await expectProblem(await importZip(t, big), 413, 'payload-too-large');
    });

    it('refuses a body sent as anything but application/zip with 400, an unknown mode with 422, and no token with 401', async () => {
      const t = await setup(make);
      const zip = zipOf({ 'post.md': '---\ntitle: x\n---\n' });
      await expectProblem(await importZip(t, zip, 'apply', { 'content-type': 'application/json' }), 400, 'malformed-request');
      await expectInvalid(await importZip(t, zip, 'sideways' as 'apply'), '/query/mode');
      const anonymous = await t.fetch('http://localhost/api/v1/import', {
        method: 'POST',
        headers: { 'content-type': 'application/zip' },
        body: zip,
      });
      expect(anonymous.status).toBe(401);
      expect((await t.allPosts()).total).toBe(0);
    });
  });
});

/** Rewrites the inflated size an entry declares, in its local header and in the central directory. */
function lieAboutSize(zip: Uint8Array, name: string, size: number): void {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  const nameBytes = encoder.encode(name);
  const matches = (at: number) => nameBytes.every((byte, i) => zip[at + i] === byte);
  for (let at = 0; at + 4 <= zip.byteLength; at++) {
    const signature = view.getUint32(at, true);
    if (signature === 0x04034b50 && view.getUint16(at + 26, true) === nameBytes.length && matches(at + 30))
      view.setUint32(at + 22, size, true);
    if (signature === 0x02014b50 && view.getUint16(at + 28, true) === nameBytes.length && matches(at + 46))
      view.setUint32(at + 24, size, true);
  }
}
