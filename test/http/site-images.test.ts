/**
 * Images through the site's export and import (issue #31 item 6): each post's cover and body
 * images written beside it, read back from generators' layouts, stored once, and the round trip
 * export → import → export identical file for file.
 */
import { createHash } from 'node:crypto';
import { crc32, deflateSync } from 'node:zlib';
import { unzipSync, zipSync } from 'fflate';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import type { components } from '../../generated/api.js';
import { createSharpImageProcessor } from '../../src/adapters/images/sharp-image-processor.js';
import { blackPng } from '../../src/adapters/images/test-images.js';
import { loadConfig } from '../../src/config.js';
import type { ImageProcessor } from '../../src/domain/index.js';
import { describeOnEveryStore } from '../support/stores.js';
import { peek, setup, type Setup } from './helpers.js';

type Report = components['schemas']['ImportReport'];
type ApiMedia = components['schemas']['Media'];

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** Real images, made once: a PNG and a JPEG with nothing to strip (so the library keeps them byte for byte), and a third. */
const png = new Uint8Array(
  await sharp({ create: { width: 700, height: 400, channels: 3, background: { r: 200, g: 40, b: 40 } } })
    .png()
    .toBuffer(),
);
const jpeg = new Uint8Array(
  await sharp({ create: { width: 500, height: 300, channels: 3, background: { r: 20, g: 90, b: 200 } } })
    .jpeg()
    .toBuffer(),
);
const gif = new Uint8Array(
  await sharp({ create: { width: 40, height: 40, channels: 3, background: { r: 0, g: 160, b: 0 } } })
    .gif()
    .toBuffer(),
);

/** A PNG whose header says 10,000 × 10,000 pixels (a decompression bomb), with a few rows of data. */
function bombPng(): Uint8Array {
  const chunk = (type: string, data: Uint8Array) => {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(data.byteLength, 0);
    head.write(type, 4, 'latin1');
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])) >>> 0, 0);
    return Buffer.concat([head, data, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(10_000, 0);
  ihdr.writeUInt32BE(10_000, 4);
  ihdr.set([8, 0, 0, 0, 0], 8); // 8-bit greyscale
  return new Uint8Array(
    Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      chunk('IHDR', ihdr),
      chunk('IDAT', deflateSync(Buffer.alloc(10 * 10_001), { level: 9 })),
      chunk('IEND', Buffer.alloc(0)),
    ]),
  );
}

const SVG = encoder.encode('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script><rect width="10" height="10"/></svg>');

async function upload(t: Setup, bytes: Uint8Array, type: string, alt: string): Promise<ApiMedia> {
  const response = await t.fetch(`http://localhost/api/v1/media?alt=${encodeURIComponent(alt)}`, {
    method: 'POST',
    headers: { ...t.auth, 'content-type': type },
    body: bytes,
  });
  expect(response.status, await peek(response)).toBeLessThan(300);
  return (await response.json()) as ApiMedia;
}

async function importZip(t: Setup, zip: Uint8Array, mode: 'dry-run' | 'apply' = 'apply'): Promise<Report> {
  const response = await t.fetch(`http://localhost/api/v1/import?mode=${mode}`, {
    method: 'POST',
    headers: { ...t.auth, 'content-type': 'application/zip' },
    body: zip,
  });
  expect(response.status, await peek(response)).toBe(200);
  return (await response.json()) as Report;
}

async function exported(t: Setup, layout: 'flat' | 'hugo'): Promise<Record<string, Uint8Array>> {
  const response = await t.send('GET', `/export?layout=${layout}`);
  expect(response.status).toBe(200);
  return unzipSync(new Uint8Array(await response.arrayBuffer()));
}

const byPath = (report: Report) => Object.fromEntries(report.items.map((item) => [item.path, item]));

/** Every media of the library (one page is enough here). */
async function library(t: Setup): Promise<ApiMedia[]> {
  const response = await t.send('GET', '/media?limit=100');
  expect(response.status).toBe(200);
  return ((await response.json()) as { items: ApiMedia[] }).items;
}

/** The stored post with this slug, as the domain holds it (its cover included). */
async function stored(t: Setup, slug: string) {
  const post = await t.store.posts.getBySlug(slug);
  expect(post, slug).not.toBeNull();
  return post!;
}

const MEDIA_URL = /^http:\/\/localhost(?::\d+)?\/api\/v1\/content\/media\/([a-z2-7]{26})\/original\.(png|jpg|gif)$/;

/** A fixed clock: two sites set up with it export the same manifest (`exportedAt` included). */
const fixedClock = () => {
  const at = new Date('2026-05-06T07:08:09.000Z');
  return { now: () => new Date(at) };
};

/** A site of two posts, each with a cover and a body image (one linked by a variant), and a plain one. */
async function siteWithImages(t: Setup) {
  const red = await upload(t, png, 'image/png', 'A red rectangle');
  const blue = await upload(t, jpeg, 'image/jpeg', 'A blue rectangle');
  const variant = red.variants.find((v) => v.url.endsWith('.webp'))!.url;
  const first = await t.create({ title: 'First with images', body: `Intro.\n\n![Blue](${blue.url})\n\nMore: ![red small](${variant})\n` });
  const second = await t.create({ title: 'Second with images', body: `![Red](${red.url} "the red one")\n` });
  const plain = await t.create({ title: 'No image at all', body: 'Words only.\n' });
  const at = (post: { updatedAt: string }) => new Date(post.updatedAt);
  await t.store.posts.update(first.id, 1, { coverImage: { mediaId: red.id, alt: 'Cover of the first' } }, at(first));
  await t.store.posts.update(second.id, 1, { coverImage: { mediaId: blue.id, alt: 'Cover of the second' } }, at(second));
  return { red, blue, first, second, plain };
}

describeOnEveryStore('images in the site export and import', (make) => {
  describe('export', () => {
    it('flat: writes each original once into media/, links every file of it relatively, and lists it in the manifest with its SHA-256', async () => {
      const t = await setup(make);
      const { first, second, plain } = await siteWithImages(t);
      const files = await exported(t, 'flat');
      const pngName = `media/${sha256(png).slice(0, 16)}.png`;
      const jpegName = `media/${sha256(jpeg).slice(0, 16)}.jpg`;
      expect(Object.keys(files).sort()).toEqual(
        [pngName, jpegName, `${first.slug}.md`, `${second.slug}.md`, `${plain.slug}.md`, 'manifest.json'].sort(),
      );
      expect(files[pngName]).toEqual(png);
      expect(files[jpegName]).toEqual(jpeg);
      const text = decoder.decode(files[`${first.slug}.md`]);
      expect(text).toContain(`cover_image: ${pngName}\ncover_alt: Cover of the first\n`);
      expect(text).toContain(`![Blue](${jpegName})\n\nMore: ![red small](${pngName})\n`);
      expect(decoder.decode(files[`${second.slug}.md`])).toContain(`![Red](${pngName} "the red one")\n`);
      const manifest = JSON.parse(decoder.decode(files['manifest.json'])) as { files: { path: string; sha256: string; kind?: string }[] };
      for (const entry of manifest.files) expect(entry.sha256, entry.path).toBe(sha256(files[entry.path]!));
      expect(
        manifest.files
          .filter((entry) => entry.kind === 'image')
          .map((entry) => entry.path)
          .sort(),
      ).toEqual([pngName, jpegName].sort());
    });

    it('hugo: a post with images becomes a page bundle, its images beside index.md and linked by name', async () => {
      const t = await setup(make);
      const { first, plain } = await siteWithImages(t);
      const files = await exported(t, 'hugo');
      const bundle = `content/posts/${first.slug}`;
      expect(files[`${bundle}/${sha256(png).slice(0, 16)}.png`]).toEqual(png);
      expect(files[`${bundle}/${sha256(jpeg).slice(0, 16)}.jpg`]).toEqual(jpeg);
      const text = decoder.decode(files[`${bundle}/index.md`]);
      expect(text).toContain(`cover_image: ${sha256(png).slice(0, 16)}.png\n`);
      expect(text).toContain(`![Blue](${sha256(jpeg).slice(0, 16)}.jpg)`);
      expect(files[`content/posts/${plain.slug}.md`]).toBeDefined();
    });
  });

  describe('round trip', () => {
    it.each(['flat', 'hugo'] as const)(
      '%s: export → import into an empty site → export gives files of the same SHA-256, every one, the manifest included',
      async (layout) => {
        const source = await setup(make, { clock: fixedClock() });
        await siteWithImages(source);
        const before = await exported(source, layout);
        const target = await setup(make, { clock: fixedClock() });
        const report = await importZip(target, zipSync(before));
        expect(report).toMatchObject({ source: 'margincms', counts: { skip: 0 } });
        expect(await library(target)).toHaveLength(2);
        const after = await exported(target, layout);
        const digests = (files: Record<string, Uint8Array>) =>
          Object.fromEntries(Object.entries(files).map(([path, bytes]) => [path, sha256(bytes)]));
        expect(digests(after)).toEqual(digests(before));

        const again = await importZip(target, zipSync(before));
        expect(again.counts).toMatchObject({ create: 0, update: 0, skip: 0 });
        expect(await library(target)).toHaveLength(2);
      },
    );
  });

  it("re-importing a MarginCMS export removes a cover the export's post does not have: its file states the post whole", async () => {
    const t = await setup(make);
    const { red, plain } = await siteWithImages(t);
    const files = await exported(t, 'flat');
    await t.store.posts.update(plain.id, 1, { coverImage: { mediaId: red.id, alt: 'Added after the export' } }, new Date(plain.updatedAt));
    const report = await importZip(t, zipSync(files));
    expect(byPath(report)[`${plain.slug}.md`]).toMatchObject({ action: 'update' });
    // (The first post is updated too: its link to a variant comes back as a link to the original.)
    expect(report.counts).toMatchObject({ update: 2, create: 0, skip: 0 });
    expect((await stored(t, plain.slug)).coverImage).toBeNull();
  });

  describe('import', () => {
    it('stores the images of a Hugo bundle, static/, Jekyll assets/ and Astro public/ and src/assets, links them by URL and sets the covers', async () => {
      const t = await setup(make);
      const hugo = zipSync({
        'content/posts/trip/index.md': encoder.encode(
          '---\ntitle: Trip\ncover:\n  image: cover.png\n  alt: The view\n---\n![Map](map.jpg)\n',
        ),
        'content/posts/trip/cover.png': png,
        'content/posts/trip/map.jpg': jpeg,
        'content/posts/logo.md': encoder.encode('---\ntitle: Logo\nimage: /images/logo.gif\n---\nSee ![logo](/images/logo.gif).\n'),
        'static/images/logo.gif': gif,
        'static/unused.png': png,
      });
      const jekyll = zipSync({
        '_config.yml': encoder.encode('title: A Jekyll site\n'),
        '_posts/2024-01-02-jekyll.md': encoder.encode(
          '---\ntitle: Jekyll\ncover_image: /assets/img/j.png\ncover_alt: J\n---\n![j](/assets/img/j.png)\n',
        ),
        'assets/img/j.png': png,
      });
      const astro = zipSync({
        'src/content/blog/astro.md': encoder.encode('---\ntitle: Astro\n---\n![a](../../assets/a.jpg) ![b](/b.gif)\n'),
        'src/assets/a.jpg': jpeg,
        'public/b.gif': gif,
      });
      const items = { ...byPath(await importZip(t, hugo)), ...byPath(await importZip(t, jekyll)), ...byPath(await importZip(t, astro)) };
      expect(items['content/posts/trip/cover.png']).toMatchObject({ action: 'create' });
      expect(items['content/posts/trip/map.jpg']).toMatchObject({ action: 'create' });
      expect(items['static/images/logo.gif']).toMatchObject({ action: 'create' });
      // The same bytes as an image stored already in this import: that media, unchanged.
      expect(items['assets/img/j.png']).toMatchObject({ action: 'unchanged' });
      expect(items['src/assets/a.jpg']).toMatchObject({ action: 'unchanged' });
      expect(items['public/b.gif']).toMatchObject({ action: 'unchanged' });
      expect(items['static/unused.png']).toMatchObject({ action: 'skip', reason: 'not_a_post' });
      expect(await library(t)).toHaveLength(3);

      const trip = await stored(t, 'trip');
      const [, mapLink] = /^!\[Map\]\((.*)\)\n$/.exec(trip.body)!;
      expect(mapLink).toMatch(MEDIA_URL);
      const served = await t.fetch(mapLink!);
      expect(served.status).toBe(200);
      expect(new Uint8Array(await served.arrayBuffer())).toEqual(jpeg);
      expect(trip.coverImage).toEqual({ mediaId: expect.stringMatching(/^[a-z2-7]{26}$/) as unknown, alt: 'The view' });
      expect((await stored(t, 'logo')).coverImage).not.toBeNull();
      expect((await stored(t, 'logo')).body).toMatch(/^See !\[logo\]\(http:\/\/localhost\S+\/original\.gif\)\.\n$/);
      expect((await stored(t, 'jekyll')).coverImage).toEqual({ mediaId: trip.coverImage!.mediaId, alt: 'J' });
      expect((await stored(t, 'astro')).body).not.toContain('assets/a.jpg');
    });

    it('a dry run stores nothing and reports what would be stored; importing twice changes nothing the second time', async () => {
      const t = await setup(make);
      const zip = zipSync({
        'content/posts/trip/index.md': encoder.encode('---\ntitle: Trip\ncover_image: cover.png\n---\n![Map](map.jpg)\n'),
        'content/posts/trip/cover.png': png,
        'content/posts/trip/map.jpg': jpeg,
      });
      const dry = await importZip(t, zip, 'dry-run');
      expect(byPath(dry)['content/posts/trip/cover.png']).toMatchObject({ action: 'create' });
      expect(byPath(dry)['content/posts/trip/index.md']).toMatchObject({ action: 'create' });
      expect(await library(t)).toHaveLength(0);
      expect((await t.allPosts()).total).toBe(0);

      await importZip(t, zip);
      const post = await stored(t, 'trip');
      const events = (await t.activity()).length;
      const again = await importZip(t, zip);
      expect(again.counts).toEqual({ files: 3, create: 0, update: 0, unchanged: 3, skip: 0 });
      expect(await stored(t, 'trip')).toEqual(post);
      expect(await library(t)).toHaveLength(2);
      expect(await t.activity()).toHaveLength(events);
      const dryAgain = await importZip(t, zip, 'dry-run');
      expect(dryAgain.counts).toMatchObject({ create: 0, update: 0, unchanged: 3 });
    });
  });

  describe('decoding bounded', () => {
    /** sharp with the default limits, counting the images it decodes (process) and the headers it reads (inspect). */
    const countingImages = () => {
      const sharpImages = createSharpImageProcessor(loadConfig({}).media);
      const counts = { process: 0, inspect: 0 };
      const images: ImageProcessor = {
        process: (bytes) => (counts.process++, sharpImages.process(bytes)),
        inspect: (bytes) => (counts.inspect++, sharpImages.inspect(bytes)),
      };
      return { images, counts };
    };
    /** `count` black PNGs of `width` × (`height` − i) pixels (distinct files of a few KB each), and one post that shows them all. */
    const pngs = (count: number, width: number, height: number) => {
      const files: Record<string, Uint8Array> = {};
      const links: string[] = [];
      for (let i = 0; i < count; i++) {
        files[`posts/image-${i}.png`] = blackPng(width, height - i);
        links.push(`![Image ${i}](image-${i}.png)`);
      }
      files['posts/gallery.md'] = encoder.encode(`---\ntitle: Gallery\n---\n${links.join('\n\n')}\n`);
      return zipSync(files, { level: 0 });
    };

    it('a dry run of 30 PNGs of some 49 MP each decodes none: each header read once, each image reported, those past the default 1 GP as image_limit (200)', async () => {
      const { images, counts } = countingImages();
      const t = await setup(make, { images });
      const dry = await importZip(t, pngs(30, 7000, 7000), 'dry-run');
      expect(counts).toEqual({ process: 0, inspect: 30 });
      // 7000 × (7000 − i) pixels each: 20 of them (979,860,000 pixels) fit in 1,000,000,000.
      expect(loadConfig({}).imports.maxImagePixels).toBe(1_000_000_000);
      const items = byPath(dry);
      for (let i = 0; i < 30; i++) {
        expect(items[`posts/image-${i}.png`]).toMatchObject(i < 20 ? { action: 'create' } : { action: 'skip', reason: 'image_limit' });
      }
      expect(dry.counts).toEqual({ files: 31, create: 21, update: 0, unchanged: 0, skip: 10 });
      expect(await library(t)).toHaveLength(0);
    });

    it('a dry run reports each image as the apply then does, IMPORT_MAX_IMAGES applied alike, and decodes none', async () => {
      const { images, counts } = countingImages();
      const t = await setup(make, { images, imports: { maxImages: 3 } });
      const zip = pngs(5, 800, 600);
      const dry = byPath(await importZip(t, zip, 'dry-run'));
      expect(counts.process).toBe(0);
      const apply = byPath(await importZip(t, zip, 'apply'));
      expect(counts.process).toBe(3);
      for (let i = 0; i < 5; i++) {
        const path = `posts/image-${i}.png`;
        expect(dry[path], path).toMatchObject(
          i < 3
            ? { action: 'create' }
            : { action: 'skip', reason: 'image_limit', detail: expect.stringContaining('Beyond the 3 images an import decodes') },
        );
        expect({ ...dry[path], summary: null }).toEqual({ ...apply[path], summary: null });
        expect(dry[path]!.summary).toBe(i < 3 ? 'Will be stored in the media library.' : 'Will not be imported.');
        expect(apply[path]!.summary).toBe(i < 3 ? 'Stored in the media library.' : 'Not imported.');
      }
      expect(await library(t)).toHaveLength(3);
    });

    it('an import decodes at most IMPORT_MAX_IMAGE_PIXELS pixels together; beyond, images are skipped as image_limit and the next import stores them', async () => {
      const { images, counts } = countingImages();
      const t = await setup(make, { images, imports: { maxImagePixels: 1_000_000 } });
      const zip = pngs(3, 1000, 500);
      const first = byPath(await importZip(t, zip, 'apply'));
      expect(first['posts/image-2.png']).toMatchObject({
        action: 'skip',
        reason: 'image_limit',
        detail: expect.stringContaining(
          'Its 498000 pixels are beyond the 1000000 an import decodes (IMPORT_MAX_IMAGE_PIXELS; 999000 spent)',
        ),
      });
      expect(first['posts/gallery.md']!.action).toBe('create');
      expect((await stored(t, 'gallery')).body).toContain('](image-2.png)');
      const second = byPath(await importZip(t, zip, 'apply'));
      expect([0, 1, 2].map((i) => second[`posts/image-${i}.png`]!.action)).toEqual(['unchanged', 'unchanged', 'create']);
      expect(second['posts/gallery.md']).toMatchObject({ action: 'update', changed: ['body'] });
      expect((await stored(t, 'gallery')).body).not.toContain('](image-2.png)');
      expect(counts.process).toBe(3);
    });
  });

  describe('hostile images', () => {
    it('an SVG, a 10,000 × 10,000 PNG and a truncated JPEG are reported and not stored; the posts are imported without them (200)', async () => {
      const t = await setup(make);
      const zip = zipSync({
        'posts/svg.md': encoder.encode('---\ntitle: SVG\ncover_image: evil.svg\n---\n![x](evil.svg)\n'),
        'posts/evil.svg': SVG,
        'posts/bomb.md': encoder.encode('---\ntitle: Bomb\n---\n![x](bomb.png)\n'),
        'posts/bomb.png': bombPng(),
        'posts/cut.md': encoder.encode('---\ntitle: Cut\n---\n![x](cut.jpg)\n'),
        'posts/cut.jpg': jpeg.slice(0, Math.floor(jpeg.byteLength / 2)),
      });
      for (const mode of ['dry-run', 'apply'] as const) {
        const items = byPath(await importZip(t, zip, mode));
        expect(items['posts/evil.svg']).toMatchObject({
          action: 'skip',
          reason: 'image_refused',
          detail: expect.stringContaining('unsupported-type') as unknown,
        });
        expect(items['posts/bomb.png']).toMatchObject({
          action: 'skip',
          reason: 'image_refused',
          detail: expect.stringContaining('too-many-pixels') as unknown,
        });
        // Its header reads whole: only decoding finds the rest missing, and a dry run decodes nothing.
        expect(items['posts/cut.jpg']).toMatchObject(
          mode === 'dry-run'
            ? { action: 'create' }
            : { action: 'skip', reason: 'image_refused', detail: expect.stringContaining('unreadable') as unknown },
        );
        for (const post of ['posts/svg.md', 'posts/bomb.md', 'posts/cut.md']) expect(items[post], post).toMatchObject({ action: 'create' });
      }
      expect(await library(t)).toHaveLength(0);
      expect((await stored(t, 'svg')).coverImage).toBeNull();
      expect((await stored(t, 'svg')).body).toBe('![x](evil.svg)\n');
    });
  });
});
