import { unzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import type { Post } from '../domain/index.js';
import { exportArchive } from './export-archive.js';
import { archivePathOf, coverOf, imageLinksOf, mediaIdsOf, rewriteImageLinks, rewriteMediaLinks, type ExportImage } from './images.js';
import { checkExport } from './manifest.js';

const A = 'aaaaaaaaaaaaaaaaaaaaaaaaaa';
const B = 'bbbbbbbbbbbbbbbbbbbbbbbbbb';
const GONE = 'cccccccccccccccccccccccccc';
const API = 'https://api.example.com/cms/api/v1/content/media';
const encoder = new TextEncoder();
const decoder = new TextDecoder();

function post(fields: Partial<Post> & Pick<Post, 'id' | 'slug'>): Post {
  const at = new Date('2026-01-02T03:04:05.000Z');
  return {
    title: fields.slug,
    excerpt: '',
    body: '',
    tags: [],
    status: 'published',
    wordCount: 0,
    version: 1,
    createdAt: at,
    updatedAt: at,
    publishedAt: at,
    publishAt: null,
    coverImage: null,
    seo: { title: null, description: null, canonicalUrl: null },
    ...fields,
  } as Post;
}

const images: Record<string, ExportImage> = {
  [A]: { media: { id: A, contentType: 'image/png', sha256: `1234567890abcdef${'1'.repeat(48)}` }, bytes: encoder.encode('png bytes') },
  // A PNG whose hash begins as A's: the second of them named in an export gets the whole hash as its name.
  [B]: {
    media: { id: B, contentType: 'image/png', sha256: `1234567890abcdef${'2'.repeat(48)}` },
    bytes: encoder.encode('other png bytes'),
  },
};
const readImage = (id: string) => Promise.resolve(images[id] ?? null);

async function exported(posts: Post[], layout: 'flat' | 'hugo') {
  async function* batches() {
    yield posts;
  }
  const stream = exportArchive(batches(), { layout, filter: {}, exportedAt: new Date('2026-03-04T00:00:00.000Z'), readImage });
  const bytes = new Uint8Array(await new Response(stream).arrayBuffer());
  return unzipSync(bytes);
}

describe('media links of a body', () => {
  it('finds our media links with any origin, a prefix or none, each media once, the cover first', () => {
    const body = `![x](${API}/${A}/640.webp) <img src="/api/v1/content/media/${B}/original.jpg"> ${API}/${A}/original.png`;
    expect(mediaIdsOf({ body, coverImage: { mediaId: B, alt: '' } })).toEqual([B, A]);
    expect(mediaIdsOf({ body: `see:${API}/${A}/original.png and ${API}/${A.toUpperCase()}/original.png` })).toEqual([]);
  });

  it('rewrites a link to any file of a known media to its path, and leaves the others', () => {
    const body = `![x](${API}/${A}/640.webp "t") [y](${API}/${GONE}/original.png)`;
    expect(rewriteMediaLinks(body, (id) => (id === A ? 'media/a.png' : undefined))).toBe(
      `![x](media/a.png "t") [y](${API}/${GONE}/original.png)`,
    );
  });
});

describe('an export with images', () => {
  const first = post({
    id: '01JB0000000000000000000001',
    slug: 'first',
    body: `![one](${API}/${A}/640.webp)\n![again](${API}/${A}/original.png)\n![gone](${API}/${GONE}/original.png)\n`,
    coverImage: { mediaId: B, alt: 'A cover' },
  });
  const second = post({ id: '01JB0000000000000000000002', slug: 'second', body: `![one](${API}/${A}/1024.png)\n` });
  const plain = post({ id: '01JB0000000000000000000003', slug: 'plain', body: 'No image.\n' });

  it('flat: writes each original once into media/, named by its hash, links it relatively and lists it in the manifest as an image', async () => {
    const files = await exported([first, second, plain], 'flat');
    const long = `media/1234567890abcdef${'1'.repeat(48)}.png`;
    expect(Object.keys(files)).toEqual(['media/1234567890abcdef.png', long, 'first.md', 'second.md', 'plain.md', 'manifest.json']);
    const text = decoder.decode(files['first.md']);
    expect(text).toContain(`cover_image: media/1234567890abcdef.png\ncover_alt: A cover\n---\n`);
    expect(text).toContain(`![one](${long})\n![again](${long})\n![gone](${API}/${GONE}/original.png)\n`);
    expect(decoder.decode(files['second.md'])).toContain(`![one](${long})\n`);
    expect(decoder.decode(files['media/1234567890abcdef.png'])).toBe('other png bytes');
    expect(decoder.decode(files[long])).toBe('png bytes');
    const checked = checkExport(files);
    expect(checked.files.map((file) => file.path)).toEqual(['first.md', 'second.md', 'plain.md']);
    expect(checked.images).toBe(2);
    const manifest = JSON.parse(decoder.decode(files['manifest.json'])) as { files: { path: string; kind?: string }[] };
    expect(manifest.files.filter((file) => file.kind === 'image').map((file) => file.path)).toEqual(['media/1234567890abcdef.png', long]);
  });

  it('hugo: a post with images is a page bundle, content/posts/<slug>/index.md with its images beside it; one without stays <slug>.md', async () => {
    const files = await exported([first, second, plain], 'hugo');
    const long = `1234567890abcdef${'1'.repeat(48)}.png`;
    expect(Object.keys(files)).toEqual([
      'content/posts/first/1234567890abcdef.png',
      `content/posts/first/${long}`,
      'content/posts/first/index.md',
      `content/posts/second/${long}`,
      'content/posts/second/index.md',
      'content/posts/plain.md',
      'manifest.json',
    ]);
    const text = decoder.decode(files['content/posts/first/index.md']);
    expect(text).toContain(`cover_image: 1234567890abcdef.png\ncover_alt: A cover\n`);
    expect(text).toContain(`![one](${long})\n`);
    expect(checkExport(files).files).toHaveLength(3);
  });

  it('writes the same files whatever ids the media have (export → import → export)', async () => {
    const renamed: Record<string, ExportImage> = {
      [GONE]: { ...images[A]!, media: { ...images[A]!.media, id: GONE } },
    };
    async function* batches() {
      yield [post({ id: second.id, slug: 'second', body: `![one](${API}/${GONE}/original.png)\n` })];
    }
    const stream = exportArchive(batches(), {
      layout: 'flat',
      filter: {},
      exportedAt: new Date('2026-03-04T00:00:00.000Z'),
      readImage: (id) => Promise.resolve(renamed[id] ?? null),
    });
    const again = unzipSync(new Uint8Array(await new Response(stream).arrayBuffer()));
    const before = await exported([second], 'flat');
    expect(Object.keys(again)).toEqual(Object.keys(before));
    for (const path of Object.keys(before)) expect(again[path], path).toEqual(before[path]);
  });
});

describe('images an imported post shows', () => {
  it('finds markdown image links with their alt and the exact place of the destination', () => {
    const body = 'A ![cat *1*](cat.png "title") and ![](<with space.jpg>) and [not](an-image.png) ![x]( /static.gif )';
    const links = imageLinksOf(body);
    expect(links.map(({ target, alt }) => [target, alt])).toEqual([
      ['cat.png', 'cat *1*'],
      ['with space.jpg', ''],
      ['/static.gif', 'x'],
    ]);
    for (const link of links) expect(body.slice(link.start, link.end)).toBe(link.target);
    expect(rewriteImageLinks(body, links, (link) => (link.target === 'cat.png' ? 'https://x/1' : null))).toBe(
      body.replace('cat.png', 'https://x/1'),
    );
  });

  it('reads the cover from cover_image, image, or cover as a path or a mapping of image (or path) and alt', () => {
    expect(coverOf({ cover_image: 'a.png', cover_alt: 'A' })).toEqual({ target: 'a.png', alt: 'A' });
    expect(coverOf({ image: '/img/b.jpg' })).toEqual({ target: '/img/b.jpg', alt: '' });
    expect(coverOf({ cover: 'c.webp' })).toEqual({ target: 'c.webp', alt: '' });
    expect(coverOf({ cover: { image: 'd.png', alt: 'D', relative: true } })).toEqual({ target: 'd.png', alt: 'D' });
    expect(coverOf({ image: { path: '/assets/e.jpg', alt: 'E' } })).toEqual({ target: '/assets/e.jpg', alt: 'E' });
    expect(coverOf({ cover: { hidden: true }, title: 'x' })).toBeNull();
  });

  it('resolves a link to a file of the archive: beside the post, from the root in static/, public/ or the top, never a URL or out of the archive', () => {
    const files = new Set([
      'content/posts/bundle/cover.jpg',
      'static/images/logo.png',
      'public/hero.webp',
      'assets/img/jekyll.gif',
      'src/assets/astro.png',
      'notes.txt',
    ]);
    const has = (path: string) => files.has(path);
    expect(archivePathOf('content/posts/bundle/index.md', 'cover.jpg', has)).toBe('content/posts/bundle/cover.jpg');
    expect(archivePathOf('content/posts/bundle/index.md', './cover.jpg?v=2#top', has)).toBe('content/posts/bundle/cover.jpg');
    expect(archivePathOf('content/posts/x.md', '/images/logo.png', has)).toBe('static/images/logo.png');
    expect(archivePathOf('content/posts/x.md', 'images/logo.png', has)).toBe('static/images/logo.png');
    expect(archivePathOf('src/content/blog/x.md', '/hero.webp', has)).toBe('public/hero.webp');
    expect(archivePathOf('src/content/blog/x.md', '../../assets/astro.png', has)).toBe('src/assets/astro.png');
    expect(archivePathOf('_posts/2024-01-01-x.md', '/assets/img/jekyll.gif', has)).toBe('assets/img/jekyll.gif');
    expect(archivePathOf('_posts/2024-01-01-x.md', '/assets/img/%6Aekyll.gif', has)).toBe('assets/img/jekyll.gif');
    expect(archivePathOf('x.md', 'https://example.com/static/images/logo.png', has)).toBeNull();
    expect(archivePathOf('x.md', '//example.com/images/logo.png', has)).toBeNull();
    expect(archivePathOf('x.md', '../../static/images/logo.png', has)).toBeNull();
    expect(archivePathOf('x.md', 'notes.txt', has)).toBeNull();
    expect(archivePathOf('x.md', 'missing.png', has)).toBeNull();
  });
});
