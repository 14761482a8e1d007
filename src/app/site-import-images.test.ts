import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createMemoryStore } from '../adapters/memory/store.js';
import { FixedClock, MediaRefusedError, SequentialIds, type Media } from '../domain/index.js';
import { createPostUseCases } from './post-use-cases.js';
import type { ImportFile, ImportedPost } from './site-import.js';
import type { ArchiveImage, ImageImportDeps, PostImages } from './site-import-images.js';

const actor = { id: 'U1', name: 'Ada' };
const encoder = new TextEncoder();
const API = 'https://api.example.com/api/v1/content/media';

/**
 * A media library in a map: the same bytes are the same media; bytes starting with "bad" are
 * refused; an image's header says it has as many pixels as the number in its bytes (1 without).
 * It counts the headers read and the uploads (the only decoding).
 */
function fakeLibrary(limits: ImageImportDeps['limits'] = { images: 100, pixels: 1e9 }) {
  const byHash = new Map<string, Media>();
  const uploads: { alt: string }[] = [];
  const headers: string[] = [];
  const sha = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
  const refuse = (bytes: Uint8Array) => {
    if (Buffer.from(bytes).toString().startsWith('bad')) throw new MediaRefusedError('unsupported-type', 'Not an image we take.');
  };
  const deps: ImageImportDeps = {
    upload(bytes, { alt }) {
      const known = byHash.get(sha(bytes));
      if (known) return Promise.resolve({ media: known, created: false });
      refuse(bytes);
      uploads.push({ alt });
      const id = String.fromCharCode(97 + byHash.size).repeat(26);
      const media = { id, contentType: 'image/png', alt, sha256: sha(bytes) } as Media;
      byHash.set(sha(bytes), media);
      return Promise.resolve({ media, created: true });
    },
    find: (bytes) => Promise.resolve({ sha256: sha(bytes), media: byHash.get(sha(bytes)) ?? null }),
    inspect(bytes) {
      const text = Buffer.from(bytes).toString();
      headers.push(text);
      refuse(bytes);
      return Promise.resolve({ pixels: Number(/\d+/.exec(text)?.[0] ?? 1) });
    },
    url: (media) => `${API}/${media.id}/original.png`,
    limits,
  };
  return { deps, uploads, headers, size: () => byHash.size };
}

function setup() {
  const store = createMemoryStore();
  const posts = createPostUseCases({
    store,
    clock: new FixedClock(new Date('2026-01-01T00:00:00.000Z')),
    ids: new SequentialIds(1),
    idempotency: { leaseMs: 30_000, ttlMs: 86_400_000 },
  });
  return { store, posts };
}

const image = (path: string, text: string): ArchiveImage => ({ path, read: () => Promise.resolve({ bytes: encoder.encode(text) }) });

function post(slug: string, body: string): ImportedPost {
  return {
    id: null,
    title: slug,
    slug,
    excerpt: '',
    body,
    tags: [],
    status: 'draft',
    createdAt: null,
    updatedAt: null,
    publishedAt: null,
    publishAt: null,
  };
}

/** A post showing `links` (each `![alt](path)` in its body, in order) and a cover. */
function postFile(
  slug: string,
  links: { image: ArchiveImage; alt: string }[],
  cover: { image: ArchiveImage; alt: string } | null,
): ImportFile {
  const body = links.map(({ image: { path }, alt }) => `![${alt}](${path})`).join('\n');
  const images: PostImages = {
    links,
    cover,
    bodyWith: (urls) => links.reduce((text, { image: { path } }) => text.replace(`(${path})`, `(${urls.get(path) ?? path})`), body),
  };
  return { path: `${slug}.md`, post: post(slug, body), images };
}

async function* filesOf(files: ImportFile[]) {
  yield* files;
}

describe('SiteImport with images', () => {
  const cover = image('a/cover.png', 'cover bytes');
  const map = image('a/map.png', 'map bytes');
  const copy = image('b/copy.png', 'map bytes');
  const unused = image('unused.png', 'unused bytes');
  const evil = image('evil.svg', 'bad <svg>');
  const archive = () => [
    { path: cover.path, image: cover },
    { path: map.path, image: map },
    postFile('first', [{ image: map, alt: 'A map' }], { image: cover, alt: 'The cover' }),
    postFile('second', [{ image: copy, alt: 'Same map' }], null),
    { path: copy.path, image: copy },
    { path: unused.path, image: unused },
    postFile('third', [{ image: evil, alt: 'x' }], { image: evil, alt: 'x' }),
    { path: evil.path, image: evil },
  ];

  it('stores each image once when a post shows it, whatever the order of the archive, links it by URL and sets the cover', async () => {
    const { store, posts } = setup();
    const library = fakeLibrary();
    const report = await posts.imports.run(filesOf(archive()), 'apply', actor, library.deps);
    const items = Object.fromEntries(report.items.map((item) => [item.path, item]));
    expect(report.items.map((item) => item.path)).toEqual(archive().map((file) => file.path));
    expect(items['a/cover.png']).toMatchObject({ action: 'create', id: null, reason: null });
    expect(items['a/map.png']).toMatchObject({ action: 'create' });
    expect(items['b/copy.png']).toMatchObject({ action: 'unchanged' });
    expect(items['unused.png']).toMatchObject({ action: 'skip', reason: 'not_a_post', detail: 'An image no post of the archive shows.' });
    expect(items['evil.svg']).toMatchObject({ action: 'skip', detail: expect.stringContaining('unsupported-type') as unknown });
    expect(items['third.md']).toMatchObject({ action: 'create' });
    expect(report.counts).toEqual({ files: 8, create: 5, update: 0, unchanged: 1, skip: 2 });
    expect(library.uploads).toEqual([{ alt: 'A map' }, { alt: 'The cover' }]);

    const first = await store.posts.getBySlug('first');
    expect(first).toMatchObject({
      body: `![A map](${API}/aaaaaaaaaaaaaaaaaaaaaaaaaa/original.png)`,
      coverImage: { mediaId: 'b'.repeat(26), alt: 'The cover' },
    });
    expect(await store.posts.getBySlug('second')).toMatchObject({ body: `![Same map](${API}/${'a'.repeat(26)}/original.png)` });
    expect(await store.posts.getBySlug('third')).toMatchObject({ body: '![x](evil.svg)', coverImage: null });
  });

  it('importing the same archive again stores nothing and leaves every post and image unchanged', async () => {
    const { store, posts } = setup();
    const library = fakeLibrary();
    await posts.imports.run(filesOf(archive()), 'apply', actor, library.deps);
    const before = await store.posts.getBySlug('first');
    const again = await posts.imports.run(filesOf(archive()), 'apply', actor, library.deps);
    expect(again.counts).toEqual({ files: 8, create: 0, update: 0, unchanged: 6, skip: 2 });
    expect(library.size()).toBe(2);
    expect(await store.posts.getBySlug('first')).toEqual(before);
  });

  it('a cover changed in the archive updates the post', async () => {
    const { store, posts } = setup();
    const library = fakeLibrary();
    await posts.imports.run(filesOf(archive()), 'apply', actor, library.deps);
    const other = image('a/other.png', 'other cover');
    const report = await posts.imports.run(
      filesOf([postFile('first', [{ image: map, alt: 'A map' }], { image: other, alt: 'Another cover' })]),
      'apply',
      actor,
      library.deps,
    );
    expect(report.items[0]).toMatchObject({ action: 'update' });
    expect((await store.posts.getBySlug('first'))!.coverImage).toEqual({ mediaId: 'c'.repeat(26), alt: 'Another cover' });
  });

  it('a file that names no cover, or a refused one, leaves the post its cover; a file stating no cover (a MarginCMS export) removes it', async () => {
    const { store, posts } = setup();
    const library = fakeLibrary();
    await posts.imports.run(filesOf(archive()), 'apply', actor, library.deps);
    const cover = (await store.posts.getBySlug('first'))!.coverImage;
    expect(cover).not.toBeNull();
    const run = (file: ImportFile) => posts.imports.run(filesOf([file]), 'apply', actor, library.deps);
    expect((await run(postFile('first', [{ image: map, alt: 'A map' }], null))).items[0]).toMatchObject({ action: 'unchanged' });
    expect((await run(postFile('first', [{ image: map, alt: 'A map' }], { image: evil, alt: 'x' }))).items[0]).toMatchObject({
      action: 'unchanged',
    });
    expect((await store.posts.getBySlug('first'))!.coverImage).toEqual(cover);
    const stated = postFile('first', [{ image: map, alt: 'A map' }], null) as Extract<ImportFile, { post: unknown }>;
    const report = await run({ ...stated, post: { ...stated.post, coverImage: null } });
    expect(report.items[0]).toMatchObject({ action: 'update' });
    expect((await store.posts.getBySlug('first'))!.coverImage).toBeNull();
  });

  it('a dry run stores nothing and reports what would be stored', async () => {
    const { store, posts } = setup();
    const library = fakeLibrary();
    const report = await posts.imports.run(filesOf(archive()), 'dry-run', actor, library.deps);
    const items = Object.fromEntries(report.items.map((item) => [item.path, item]));
    expect(items['a/cover.png']).toMatchObject({ action: 'create' });
    expect(items['evil.svg']).toMatchObject({ action: 'skip', reason: 'image_refused' });
    expect(library.uploads).toEqual([]);
    expect(await store.posts.getBySlug('first')).toBeNull();
  });

  it("a dry run reads each image's header once and uploads none: what it reports is what the apply does", async () => {
    const dry = fakeLibrary();
    const { posts } = setup();
    const planned = await posts.imports.run(filesOf(archive()), 'dry-run', actor, dry.deps);
    expect(dry.uploads).toEqual([]);
    // The map's copy is the same bytes: found as the image the run would store, its header not read again.
    expect(dry.headers).toEqual(['map bytes', 'cover bytes', 'bad <svg>']);
    const applied = await setup().posts.imports.run(filesOf(archive()), 'apply', actor, fakeLibrary().deps);
    const outcomes = (report: typeof planned) => report.items.map(({ path, action, reason, detail }) => ({ path, action, reason, detail }));
    expect(outcomes(planned)).toEqual(outcomes(applied));
  });

  it('decodes at most the images and pixels of its limits, in the order the posts show them; the rest are skipped as image_limit, dry run and apply alike', async () => {
    const big = image('big.png', 'png 800');
    const small = image('small.png', 'png 300');
    const third = image('third.png', 'png 100');
    const files = [
      postFile('one', [{ image: big, alt: '' }], null),
      postFile(
        'two',
        [
          { image: small, alt: '' },
          { image: big, alt: '' },
          { image: third, alt: '' },
        ],
        null,
      ),
      postFile('three', [{ image: third, alt: '' }], null),
      { path: big.path, image: big },
      { path: small.path, image: small },
      { path: third.path, image: third },
    ];
    for (const mode of ['dry-run', 'apply'] as const) {
      const { store, posts } = setup();
      const byPixels = fakeLibrary({ images: 10, pixels: 1000 });
      const report = await posts.imports.run(filesOf(files), mode, actor, byPixels.deps);
      const items = Object.fromEntries(report.items.map((item) => [item.path, item]));
      expect(items['big.png']).toMatchObject({ action: 'create' });
      expect(items['small.png']).toMatchObject({
        action: 'skip',
        reason: 'image_limit',
        detail:
          'Its 300 pixels are beyond the 1000 an import decodes (IMPORT_MAX_IMAGE_PIXELS; 800 spent); the posts that show it are imported without it: import the archive again to store it.',
      });
      expect(items['third.png']).toMatchObject({ action: 'create' });
      expect(byPixels.uploads).toHaveLength(mode === 'apply' ? 2 : 0);
      if (mode === 'apply') expect((await store.posts.getBySlug('two'))!.body).toContain('![](small.png)');

      const byCount = fakeLibrary({ images: 1, pixels: 1e9 });
      const counted = await setup().posts.imports.run(filesOf(files), mode, actor, byCount.deps);
      expect(counted.items.filter((item) => item.reason === 'image_limit').map((item) => item.path)).toEqual(['small.png', 'third.png']);
      expect(counted.items.find((item) => item.path === 'third.png')!.detail).toMatch(
        /^Beyond the 1 image an import decodes \(IMPORT_MAX_IMAGES\)/,
      );
    }
  });

  it('an image the library holds already costs nothing of the limits: importing again stores the next ones', async () => {
    const { posts } = setup();
    const library = fakeLibrary({ images: 1, pixels: 1e9 });
    const first = image('first.png', 'png 10');
    const second = image('second.png', 'png 20');
    const files = [
      postFile(
        'gallery',
        [
          { image: first, alt: '' },
          { image: second, alt: '' },
        ],
        null,
      ),
      { path: first.path, image: first },
      { path: second.path, image: second },
    ];
    const once = await posts.imports.run(filesOf(files), 'apply', actor, library.deps);
    expect(once.items.map((item) => item.action)).toEqual(['create', 'create', 'skip']);
    const twice = await posts.imports.run(filesOf(files), 'apply', actor, library.deps);
    expect(twice.items.map((item) => item.action)).toEqual(['update', 'unchanged', 'create']);
    expect(library.uploads).toHaveLength(2);
  });

  it('without the media library, image files are skipped as before and links left as written', async () => {
    const { store, posts } = setup();
    const report = await posts.imports.run(filesOf(archive()), 'apply', actor);
    expect(report.items.find((item) => item.path === 'a/cover.png')).toMatchObject({ action: 'skip', reason: 'not_a_post' });
    expect(await store.posts.getBySlug('first')).toMatchObject({ body: '![A map](a/map.png)', coverImage: null });
  });
});
