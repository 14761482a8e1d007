/**
 * Images through the Content API on every store: a post's cover (with its variants) and SEO fields
 * by id, by slug and in lists; the body's media images rendered with their size and srcset (the
 * preview the same); the cover in the feeds; cover and body images in the sitemap; and answers that
 * change (ETag) when a media they show is deleted. Media are stored through the repository: these
 * tests are about what readers get, not about uploads.
 */
import { parseFeed } from '@rowanmanning/feed-parser';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { expect, it } from 'vitest';
import type { components } from '../../generated/api.js';
import { FixedClock, type Media, type MediaFile, type MediaType } from '../../src/domain/index.js';
import { describeOnEveryStore } from '../support/stores.js';
import { peek, setup, type Setup } from './helpers.js';

type ContentPost = components['schemas']['ContentPost'];
type ContentPage = components['schemas']['ContentPostPage'];

const T0 = new Date('2026-12-01T09:00:00.000Z');
const SITE = { siteUrl: 'https://blog.example.com', postPath: '/blog/{slug}', apiUrl: 'https://api.example.com', siteTitle: 'Margin blog' };
const MEDIA = 'https://api.example.com/api/v1/content/media';
const SEO = { title: 'SEO title', description: 'SEO description', canonicalUrl: 'https://elsewhere.example.com/first-home' };
const NO_SEO = { title: null, description: null, canonicalUrl: null };

function file(name: string, contentType: MediaType, width: number, height: number, bytes: number, n: number): MediaFile {
  return { name, contentType, width, height, bytes, sha256: n.toString(16).padStart(64, '0') };
}

/** A 2000 × 1000 JPEG with its variants at 320, 640, 1024 and 1600 pixels, as an upload stores it. */
function photo(id: string, n: number): Media {
  const original = file('original.jpg', 'image/jpeg', 2000, 1000, 400_000, n);
  const variants = [320, 640, 1024, 1600].flatMap((width, i) => [
    file(`${width}.jpg`, 'image/jpeg', width, width / 2, width * 40, n * 100 + 2 * i + 1),
    file(`${width}.webp`, 'image/webp', width, width / 2, width * 20, n * 100 + 2 * i + 2),
  ]);
  return {
    id,
    contentType: 'image/jpeg',
    width: 2000,
    height: 1000,
    bytes: original.bytes,
    sha256: original.sha256,
    sourceSha256: (n + 50_000).toString(16).padStart(64, '0'),
    alt: 'The library alt',
    caption: '',
    createdAt: T0,
    files: [original, ...variants],
  };
}

const COVER = 'covercovercovercovercoverc';
const INLINE = 'inlineinlineinlineinlinein';
const GONE = 'gonegonegonegonegonegonego';

async function site(make: Parameters<typeof setup>[0]) {
  const t = await setup(make, { clock: new FixedClock(T0), content: SITE });
  await t.store.media.create(photo(COVER, 1));
  await t.store.media.create(photo(INLINE, 2));
  const read = (path: string, headers: Record<string, string> = {}) => t.send('GET', `/content${path}`, { anonymous: true, headers });
  return { ...t, read };
}

async function jsonOf<T>(response: Response): Promise<T> {
  expect(response.status, await peek(response)).toBe(200);
  return (await response.json()) as T;
}

/** What the Content API shows of the `COVER` photo as a post's cover with `alt`. */
function coverShown(alt: string) {
  return {
    url: `${MEDIA}/${COVER}/original.jpg`,
    alt,
    width: 2000,
    height: 1000,
    contentType: 'image/jpeg',
    variants: [320, 640, 1024, 1600].flatMap((width) => [
      { width, height: width / 2, contentType: 'image/jpeg', url: `${MEDIA}/${COVER}/${width}.jpg`, bytes: width * 40 },
      { width, height: width / 2, contentType: 'image/webp', url: `${MEDIA}/${COVER}/${width}.webp`, bytes: width * 20 },
    ]),
  };
}

const publishWithCover = (t: Setup, title: string, extra: Record<string, unknown> = {}) =>
  t.create({ title, status: 'published', coverImage: { mediaId: COVER, alt: 'A cover' }, seo: SEO, ...extra });

describeOnEveryStore('content API images', (make) => {
  it('shows a post with its cover, variants and SEO fields by id, by slug and in the list; a post without one, null and no SEO', async () => {
    const t = await site(make);
    const covered = await publishWithCover(t, 'Covered');
    const plain = await t.create({ title: 'Plain', status: 'published' });
    for (const path of [`/posts/${covered.id}`, `/posts/slug/${covered.slug}`, `/posts/${covered.id}?include=html`]) {
      const shown = await jsonOf<ContentPost>(await t.read(path));
      expect(shown.coverImage, path).toStrictEqual(coverShown('A cover'));
      expect(shown.seo, path).toStrictEqual(SEO);
    }
    const page = await jsonOf<ContentPage>(await t.read('/posts'));
    expect(page.items.map((item) => [item.title, item.coverImage, item.seo])).toStrictEqual([
      ['Plain', null, NO_SEO],
      ['Covered', coverShown('A cover'), SEO],
    ]);
    expect((await jsonOf<ContentPost>(await t.read(`/posts/${plain.id}`))).coverImage).toBeNull();
  });

  it('shows the cover null once its media is deleted, under a new ETag, with and without include=html and in the list', async () => {
    const t = await site(make);
    const post = await publishWithCover(t, 'Covered');
    const paths = [`/posts/${post.id}`, `/posts/${post.id}?include=html`, '/posts'];
    const before = await Promise.all(paths.map((path) => t.read(path)));
    const etags = before.map((response) => response.headers.get('etag')!);
    expect(await t.store.media.delete(COVER)).toBe(true);
    for (const [i, path] of paths.entries()) {
      const after = await t.read(path, { 'if-none-match': etags[i]! });
      expect(after.status, path).toBe(200);
      expect(after.headers.get('etag'), path).not.toBe(etags[i]);
      const body = (await after.json()) as ContentPost | ContentPage;
      expect('items' in body ? body.items[0]!.coverImage : body.coverImage, path).toBeNull();
    }
  });

  it('changes the ETag when the cover alt or the SEO fields change, as every edit of the post does', async () => {
    const t = await site(make);
    const post = await publishWithCover(t, 'Covered');
    const etagOf = async () => (await t.read(`/posts/${post.id}?include=html`)).headers.get('etag');
    const first = await etagOf();
    const edited = await t.patch(post.id, post.version, { coverImage: { mediaId: COVER, alt: 'Another alt' } });
    const second = await etagOf();
    expect(second).not.toBe(first);
    await t.patch(post.id, edited.version, { seo: { title: 'Another SEO title' } });
    expect(await etagOf()).not.toBe(second);
    expect((await jsonOf<ContentPost>(await t.read(`/posts/${post.id}`))).coverImage!.alt).toBe('Another alt');
  });

  it('renders the media images of a body with their size and srcset, and the preview of the same body is the same HTML', async () => {
    const t = await site(make);
    const body = `![Inline](${MEDIA}/${INLINE}/640.jpg)\n\n![Gone](${MEDIA}/${GONE}/original.jpg)\n\n![Elsewhere](https://img.example.com/x.png)`;
    const post = await t.create({ title: 'Pictures', body, status: 'published' });
    const { html } = await jsonOf<ContentPost>(await t.read(`/posts/${post.id}?include=html`));
    const srcset =
      [320, 640, 1024, 1600].map((w) => `${MEDIA}/${INLINE}/${w}.webp ${w}w`).join(', ') + `, ${MEDIA}/${INLINE}/original.jpg 2000w`;
    expect(html).toBe(
      `<p><img src="${MEDIA}/${INLINE}/640.jpg" alt="Inline" width="640" height="320" srcset="${srcset}" ` +
        'sizes="(max-width: 800px) 100vw, 800px" loading="lazy" decoding="async" /></p>\n' +
        `<p><img src="${MEDIA}/${GONE}/original.jpg" alt="Gone" loading="lazy" decoding="async" /></p>\n` +
        '<p><img src="https://img.example.com/x.png" alt="Elsewhere" loading="lazy" decoding="async" /></p>\n',
    );
    const preview = await t.send('POST', '/preview', { body: { body } });
    expect(preview.status, await peek(preview)).toBe(200);
    expect(((await preview.json()) as { html: string }).html).toBe(html);
  });

  it('renders an image of a media deleted since as a plain image, under a new ETag', async () => {
    const t = await site(make);
    const post = await t.create({
      title: 'Pictures',
      body: `![Inline](/api/v1/content/media/${INLINE}/original.jpg)`,
      status: 'published',
    });
    const first = await t.read(`/posts/${post.id}?include=html`);
    expect(((await first.json()) as ContentPost).html).toContain('srcset=');
    await t.store.media.delete(INLINE);
    const second = await t.read(`/posts/${post.id}?include=html`, { 'if-none-match': first.headers.get('etag')! });
    expect(second.status).toBe(200);
    expect(((await second.json()) as ContentPost).html).toBe(
      `<p><img src="/api/v1/content/media/${INLINE}/original.jpg" alt="Inline" loading="lazy" decoding="async" /></p>\n`,
    );
  });

  it('encloses the cover in the Atom and RSS entries: the 1,600-pixel WebP of a wider original, with its type and length', async () => {
    const t = await site(make);
    await publishWithCover(t, 'Covered');
    await t.create({ title: 'Plain', status: 'published' });
    const enclosure = { url: `${MEDIA}/${COVER}/1600.webp`, type: 'image/webp', length: String(1600 * 20) };

    const atomXml = await (await t.read('/feed.atom')).text();
    expect(XMLValidator.validate(atomXml)).toBe(true);
    const atom = new XMLParser({ ignoreAttributes: false, isArray: (name) => name === 'entry' || name === 'link' }).parse(atomXml) as {
      feed: { entry: { title: unknown; link: Record<string, string>[] }[] };
    };
    const [plain, covered] = atom.feed.entry;
    expect(covered!.link.filter((link) => link['@_rel'] === 'enclosure')).toEqual([
      { '@_rel': 'enclosure', '@_href': enclosure.url, '@_type': enclosure.type, '@_length': enclosure.length },
    ]);
    expect(plain!.link.filter((link) => link['@_rel'] === 'enclosure')).toEqual([]);
    expect(parseFeed(atomXml).items.map((item) => item.title)).toEqual(['Plain', 'Covered']);

    const rssXml = await (await t.read('/feed.rss')).text();
    expect(XMLValidator.validate(rssXml)).toBe(true);
    const rss = new XMLParser({ ignoreAttributes: false, isArray: (name) => name === 'item' }).parse(rssXml) as {
      rss: { channel: { item: { enclosure?: Record<string, string> }[] } };
    };
    expect(rss.rss.channel.item.map((item) => item.enclosure)).toEqual([
      undefined,
      { '@_url': enclosure.url, '@_length': enclosure.length, '@_type': enclosure.type },
    ]);
    expect(parseFeed(rssXml).items[1]!.media).toEqual([expect.objectContaining({ url: enclosure.url, mimeType: 'image/webp' })]);
  });

  it('shows the media images of a body in the feeds with absolute src and srcset, as include=html renders them', async () => {
    const t = await site(make);
    const body = `![Inline](/api/v1/content/media/${INLINE}/640.jpg)`;
    const post = await t.create({ title: 'Pictures', body, status: 'published' });
    const { html } = await jsonOf<ContentPost>(await t.read(`/posts/${post.id}?include=html`));
    expect(html).toContain(`srcset="/api/v1/content/media/${INLINE}/320.webp 320w`);
    const absolute = html!.replaceAll('/api/v1/content/media/', `${MEDIA}/`);
    const srcset =
      [320, 640, 1024, 1600].map((w) => `${MEDIA}/${INLINE}/${w}.webp ${w}w`).join(', ') + `, ${MEDIA}/${INLINE}/original.jpg 2000w`;
    expect(absolute).toContain(`<img src="${MEDIA}/${INLINE}/640.jpg" alt="Inline" width="640" height="320" srcset="${srcset}" `);

    const atomXml = await (await t.read('/feed.atom')).text();
    expect(XMLValidator.validate(atomXml)).toBe(true);
    const atom = new XMLParser({ ignoreAttributes: false, parseTagValue: false }).parse(atomXml) as {
      feed: { entry: { content: { '#text': string } } };
    };
    expect(atom.feed.entry.content['#text']).toBe(absolute);
    const rssXml = await (await t.read('/feed.rss')).text();
    const rss = new XMLParser({ parseTagValue: false }).parse(rssXml) as { rss: { channel: { item: { 'content:encoded': string } } } };
    expect(rss.rss.channel.item['content:encoded']).toBe(absolute);
  });

  it('leaves the enclosure out of the feeds, under a new ETag, once the cover media is deleted', async () => {
    const t = await site(make);
    await publishWithCover(t, 'Covered', { body: 'A **body**.' });
    for (const path of ['/feed.atom', '/feed.rss']) {
      const first = await t.read(path);
      const etag = first.headers.get('etag')!;
      expect(await first.text(), path).toContain(`${MEDIA}/${COVER}/1600.webp`);
      expect((await t.read(path, { 'if-none-match': etag })).status, path).toBe(304);
      await t.store.media.delete(COVER);
      const second = await t.read(path, { 'if-none-match': etag });
      expect(second.status, path).toBe(200);
      expect(second.headers.get('etag'), path).not.toBe(etag);
      expect(await second.text(), path).not.toContain(COVER);
      await t.store.media.create(photo(COVER, 1));
    }
  });

  it("lists in the sitemap each post's cover and the media files its body links to that exist, as absolute URLs, and nothing else", async () => {
    const t = await site(make);
    const body = [
      `![a](/api/v1/content/media/${INLINE}/640.webp) ![again](${MEDIA}/${INLINE}/640.webp)`,
      `![b](http://localhost:9999/api/v1/content/media/${INLINE}/original.jpg).`,
      `![gone](${MEDIA}/${GONE}/original.jpg) ![no such file](${MEDIA}/${INLINE}/2400.webp) ![elsewhere](https://img.example.com/x.png)`,
    ].join('\n\n');
    const covered = await publishWithCover(t, 'Covered', { body });
    const plain = await t.create({ title: 'Plain', status: 'published' });
    await t.create({ title: 'Draft', coverImage: { mediaId: INLINE, alt: 'x' } });
    const xml = await (await t.read('/sitemap.xml')).text();
    expect(XMLValidator.validate(xml)).toBe(true);
    const parsed = new XMLParser({ ignoreAttributes: false, isArray: (name) => name === 'url' || name === 'image:image' }).parse(xml) as {
      urlset: Record<string, string> & { url: { loc: string; 'image:image'?: { 'image:loc': string }[] }[] };
    };
    expect(parsed.urlset['@_xmlns:image']).toBe('http://www.google.com/schemas/sitemap-image/1.1');
    const images = Object.fromEntries(
      parsed.urlset.url.map((url) => [url.loc, (url['image:image'] ?? []).map((image) => image['image:loc'])]),
    );
    expect(images).toEqual({
      [`https://blog.example.com/blog/${covered.slug}`]: [
        `${MEDIA}/${COVER}/original.jpg`,
        `${MEDIA}/${INLINE}/640.webp`,
        `${MEDIA}/${INLINE}/original.jpg`,
      ],
      [`https://blog.example.com/blog/${plain.slug}`]: [],
    });
  });
});
