import { createHash } from 'node:crypto';
import { unzipSync } from 'fflate';
import { expect, it } from 'vitest';
import { parse } from 'yaml';
import type { Store } from '../../src/domain/index.js';
import { describeOnEveryStore } from '../support/stores.js';
import { url } from '../support/http.js';
import { expectInvalid, expectUnauthorized, setup, type ApiPost } from './helpers.js';

interface Manifest {
  format: string;
  version: number;
  exportedAt: string;
  layout: string;
  filters: { status: string[] | null; tag: string | null };
  counts: Record<string, number>;
  files: { path: string; id: string; bytes: number; sha256: string }[];
}

const decoder = new TextDecoder('utf-8', { fatal: true });

/** The archive's entries, by path, and its manifest. */
async function unzipped(response: Response) {
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('application/zip');
  expect(response.headers.get('content-disposition')).toMatch(/^attachment; filename="margin-export-\d{4}-\d{2}-\d{2}\.zip"$/);
  const entries = unzipSync(new Uint8Array(await response.arrayBuffer()));
  const manifest = JSON.parse(decoder.decode(entries['manifest.json'])) as Manifest;
  const names = Object.keys(entries);
  expect(names.at(-1), 'the manifest comes last').toBe('manifest.json');
  return { entries, names, manifest };
}

/** Front matter and body of an exported file. */
function split(bytes: Uint8Array): { front: Record<string, unknown>; body: string } {
  const text = decoder.decode(bytes);
  const match = /^---\n([\s\S]*?\n)---\n([\s\S]*)$/.exec(text);
  expect(match, text.slice(0, 200)).not.toBeNull();
  return { front: parse(match![1]!) as Record<string, unknown>, body: match![2]! };
}

describeOnEveryStore('exportSite', (make) => {
  it('streams a zip with one markdown file per post, in id order, and a manifest whose sizes and checksums match', async () => {
    const t = await setup(make);
    const awkward = await t.create({
      title: 'Colons: "quotes", #hash and émoji 🎉 שלום',
      excerpt: 'Line one\nline two',
      body: '# Title\n\n---\n\nA rule above, not front matter.\n',
      tags: ['yaml', 'edge'],
    });
    const published = await t.create({ title: 'Published', body: 'Live.', status: 'published' });
    const empty = await t.create({ title: 'Empty body' });
    const archived = await t.patch(empty.id, 1, { status: 'archived' });

    const { entries, names, manifest } = await unzipped(await t.send('GET', '/export'));
    const byId = [awkward, published, archived].sort((a, b) => (a.id < b.id ? -1 : 1));
    expect(names).toEqual([...byId.map((p) => `${p.slug}.md`), 'manifest.json']);
    expect(manifest).toMatchObject({
      format: 'margincms-export',
      version: 1,
      layout: 'flat',
      filters: { status: null, tag: null },
      counts: { posts: 3, draft: 1, published: 1, archived: 1 },
    });
    expect(Date.parse(manifest.exportedAt)).not.toBeNaN();
    for (const file of manifest.files) {
      const bytes = entries[file.path]!;
      expect(file.bytes).toBe(bytes.byteLength);
      expect(file.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
    }
    expect(manifest.files.map((f) => f.id)).toEqual(byId.map((p) => p.id));

    const check = async (post: ApiPost) => {
      const stored = await t.getPost(post.id);
      const { front, body } = split(entries[`${post.slug}.md`]!);
      expect(front).toEqual({
        id: stored.id,
        title: stored.title,
        slug: stored.slug,
        excerpt: stored.excerpt,
        tags: stored.tags,
        status: stored.status,
        createdAt: stored.createdAt,
        updatedAt: stored.updatedAt,
        publishedAt: stored.publishedAt,
        publishAt: stored.publishAt ?? null,
      });
      expect(body).toBe(stored.body);
    };
    for (const post of byId) await check(post);
  });

  it('exports only the posts of the statuses and tag asked for', async () => {
    const t = await setup(make);
    const a = await t.create({ title: 'A', tags: ['keep'], status: 'published' });
    await t.create({ title: 'B', tags: ['keep'] });
    await t.create({ title: 'C', status: 'published' });
    const { manifest } = await unzipped(await t.send('GET', '/export?status=published&tag=KEEP'));
    expect(manifest.files.map((f) => f.id)).toEqual([a.id]);
    expect(manifest.filters).toEqual({ status: ['published'], tag: 'keep' });
    expect(manifest.counts).toEqual({ posts: 1, draft: 0, published: 1, archived: 0 });
    const drafts = await unzipped(await t.send('GET', '/export?status=draft&status=archived'));
    expect(drafts.manifest.counts.posts).toBe(1);
  });

  it('lays the files out for Hugo: content/posts/<slug>.md with draft, date, lastmod and the MarginCMS keys under margin', async () => {
    const t = await setup(make);
    const draft = await t.create({ title: 'Hugo draft', excerpt: 'Short', tags: ['x'] });
    const live = await t.create({ title: 'Hugo live', status: 'published' });
    const { entries, manifest } = await unzipped(await t.send('GET', '/export?layout=hugo'));
    expect(manifest.layout).toBe('hugo');
    const d = split(entries[`content/posts/${draft.slug}.md`]!).front;
    expect(d).toEqual({
      title: 'Hugo draft',
      slug: draft.slug,
      description: 'Short',
      date: draft.createdAt,
      lastmod: draft.updatedAt,
      draft: true,
      tags: ['x'],
      margin: { id: draft.id, status: 'draft', createdAt: draft.createdAt },
    });
    const l = split(entries[`content/posts/${live.slug}.md`]!).front;
    expect(l).toMatchObject({ draft: false, date: live.publishedAt });
  });

  it('exports an empty site as an archive holding only the manifest', async () => {
    const t = await setup(make);
    const { names, manifest } = await unzipped(await t.send('GET', '/export'));
    expect(names).toEqual(['manifest.json']);
    expect(manifest.files).toEqual([]);
    expect(manifest.counts).toEqual({ posts: 0, draft: 0, published: 0, archived: 0 });
  });

  it('answers 422 for an unknown layout or status or a malformed tag, and 401 without a token, before any archive', async () => {
    const t = await setup(make);
    await expectInvalid(await t.send('GET', '/export?layout=jekyll'), '/query/layout');
    await expectInvalid(await t.send('GET', '/export?status=deleted'), '/query/status/0');
    await expectInvalid(await t.send('GET', '/export?tag=%20'), '/query/tag');
    await expectInvalid(await t.send('GET', '/export?page=2'), '/query/page');
    await expectUnauthorized(await t.send('GET', '/export', { anonymous: true }));
  });

  it('reads a batch of posts only when the reader has taken the archive so far (never the whole site at once)', async () => {
    const walks: number[] = [];
    const wrap = (store: Store): Store => {
      const posts = store.posts;
      const counted = new Proxy(posts, {
        get(target, property) {
          if (property === 'walk') {
            return (...args: Parameters<typeof posts.walk>) => {
              walks.push(args[2]);
              return target.walk(...args);
            };
          }
          const value = Reflect.get(target, property, target) as unknown;
          return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
        },
      });
      return { ...store, posts: counted };
    };
    const t = await setup(make, { wrap });
    for (let i = 0; i < 250; i++) await t.store.posts.create(newPostFor(i));
    walks.length = 0;
    // The app itself, without the test's validating fetch (which would read the whole body first).
    const response = await t.app.fetch(
      new Request(url('/export'), { headers: { authorization: `Bearer ${(await t.login()).accessToken}` } }),
    );
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    const first = await reader.read();
    expect(first.done).toBe(false);
    expect(walks.length).toBeLessThanOrEqual(2);
    let bytes = first.value!.byteLength;
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) bytes += chunk.value.byteLength;
    expect(walks).toEqual([100, 100, 100, 100]);
    expect(bytes).toBeGreaterThan(250 * 100);
  });
});

function newPostFor(i: number) {
  const at = new Date(Date.UTC(2026, 0, 1, 0, 0, i));
  return {
    id: `01JB${String(i).padStart(22, '0')}`,
    title: `Post ${i}`,
    slug: `post-${i}`,
    excerpt: '',
    body: `Body ${i}\n${'word '.repeat(20)}\n`,
    tags: [],
    status: 'draft' as const,
    wordCount: 21,
    createdAt: at,
    publishedAt: null,
    publishAt: null,
  };
}
