import { parseFeed } from '@rowanmanning/feed-parser';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { atomFeed, postUrl, rssFeed, sitemapXml, type FeedPost, type SiteInfo } from './feeds.js';

const site: SiteInfo = {
  siteUrl: 'https://blog.example.com',
  postPath: '/blog/{slug}',
  title: 'Margin blog',
  contentApiUrl: 'https://api.example.com/api/v1/content',
};

const tomAndJerry: FeedPost = {
  id: '01JDQBC8P4G6J8M0N2Q4S6V8WX',
  title: 'Tom & "Jerry" <3',
  slug: 'tom-jerry',
  excerpt: 'Five characters break XML: & < > " \'',
  tags: ['feeds', 'xml'],
  publishedAt: new Date('2026-12-01T23:30:00.000Z'),
  updatedAt: new Date('2026-12-02T09:15:30.412Z'),
};

const unicode: FeedPost = {
  id: '01JDQBC8P4G6J8M0N2Q4S6V8WY',
  title: 'שלום עולם 👋🏽 — naïve café',
  slug: 'héllo wörld/?#',
  excerpt: '',
  tags: [],
  publishedAt: new Date('2026-11-27T08:45:19.880Z'),
  updatedAt: new Date('2026-11-27T08:45:19.880Z'),
};

const updated = new Date('2026-12-03T10:00:00.000Z');

const RFC_3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const RFC_822 =
  /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} (GMT|[+-]\d{4})$/;

/** Well-formedness checks fast-xml-parser's validator leaves out: `<` in an attribute value, `]]>` in text, and characters XML cannot carry. */
function expectWellFormed(xml: string): void {
  expect(XMLValidator.validate(xml)).toBe(true);
  expect(xml).not.toMatch(/="[^"]*</);
  expect(xml.replace(/<!\[CDATA\[[\s\S]*?\]\]>/g, '')).not.toContain(']]>');
  expect(xml).not.toMatch(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u);
}

/** Parses XML keeping attributes (as `@_name`), strings as strings, and repeatable elements as arrays. */
function parseXml(xml: string): any {
  expectWellFormed(xml);
  const repeatable = new Set([
    'feed.link',
    'feed.entry',
    'feed.entry.link',
    'feed.entry.category',
    'rss.channel.atom:link',
    'rss.channel.item',
    'rss.channel.item.category',
    'urlset.url',
    'urlset.url.image:image',
  ]);
  return new XMLParser({ ignoreAttributes: false, parseTagValue: false, isArray: (_, jPath) => repeatable.has(String(jPath)) }).parse(xml);
}

describe('postUrl', () => {
  it('puts the percent-encoded slug into the post path on the site', () => {
    expect(postUrl(site, 'tom-jerry')).toBe('https://blog.example.com/blog/tom-jerry');
    expect(postUrl(site, 'héllo wörld/?#')).toBe('https://blog.example.com/blog/h%C3%A9llo%20w%C3%B6rld%2F%3F%23');
    expect(postUrl({ ...site, postPath: '/p/{slug}/' }, '$&')).toBe('https://blog.example.com/p/%24%26/');
  });
});

describe('atomFeed', () => {
  const xml = atomFeed(site, [tomAndJerry, unicode], { updated });

  it('has the feed id, title, updated date, author and links Atom requires', () => {
    const { feed } = parseXml(xml);
    expect(feed['@_xmlns']).toBe('http://www.w3.org/2005/Atom');
    expect(feed.id).toBe('https://api.example.com/api/v1/content/feed.atom');
    expect(feed.title).toBe('Margin blog');
    expect(feed.updated).toMatch(RFC_3339);
    expect(new Date(feed.updated)).toEqual(updated);
    expect(feed.author.name).toBe('Margin blog');
    expect(feed.link).toEqual([
      { '@_rel': 'alternate', '@_href': 'https://blog.example.com/' },
      { '@_rel': 'self', '@_href': 'https://api.example.com/api/v1/content/feed.atom' },
    ]);
  });

  it('gives each entry a tag URI id from the host and publishing date, a link, dates and categories', () => {
    const entry = parseXml(xml).feed.entry[0];
    expect(entry.id).toBe('tag:blog.example.com,2026-12-01:post:01JDQBC8P4G6J8M0N2Q4S6V8WX');
    expect(entry.link).toEqual([{ '@_href': 'https://blog.example.com/blog/tom-jerry' }]);
    expect(entry.updated).toMatch(RFC_3339);
    expect(entry.published).toMatch(RFC_3339);
    expect(new Date(entry.updated)).toEqual(tomAndJerry.updatedAt);
    expect(new Date(entry.published)).toEqual(tomAndJerry.publishedAt);
    expect(entry.category).toEqual([{ '@_term': 'feeds' }, { '@_term': 'xml' }]);
  });

  it('is read as an Atom feed with the right titles, links, ids, dates and categories', () => {
    const feed = parseFeed(xml);
    expect(feed.meta.type).toBe('atom');
    expect(feed.title).toBe('Margin blog');
    expect(feed.url).toBe('https://blog.example.com/');
    expect(feed.self).toBe('https://api.example.com/api/v1/content/feed.atom');
    expect(feed.updated).toEqual(updated);
    expect(feed.items.map((item) => [item.id, item.title, item.url, item.published, item.updated])).toEqual([
      [
        'tag:blog.example.com,2026-12-01:post:01JDQBC8P4G6J8M0N2Q4S6V8WX',
        'Tom & "Jerry" <3',
        'https://blog.example.com/blog/tom-jerry',
        tomAndJerry.publishedAt,
        tomAndJerry.updatedAt,
      ],
      [
        'tag:blog.example.com,2026-11-27:post:01JDQBC8P4G6J8M0N2Q4S6V8WY',
        'שלום עולם 👋🏽 — naïve café',
        'https://blog.example.com/blog/h%C3%A9llo%20w%C3%B6rld%2F%3F%23',
        unicode.publishedAt,
        unicode.updatedAt,
      ],
    ]);
    expect(feed.items[0]!.description).toBe(tomAndJerry.excerpt);
    expect(feed.items[0]!.categories.map((category) => category.term)).toEqual(['feeds', 'xml']);
  });

  it('writes titles and summaries as escaped HTML, so no raw <3 reaches the XML', () => {
    const entry = parseXml(xml).feed.entry[0];
    expect(entry.title).toEqual({ '#text': 'Tom &amp; "Jerry" &lt;3', '@_type': 'html' });
    expect(entry.summary).toEqual({ '#text': 'Five characters break XML: &amp; &lt; &gt; " \'', '@_type': 'html' });
    expect(xml).not.toContain('<3');
    expect(xml).not.toContain('& ');
  });

  it('omits the summary of a post without an excerpt or a rendered body', () => {
    const entries = parseXml(xml).feed.entry;
    expect(entries[0].summary).toBeDefined();
    expect(entries[1].summary).toBeUndefined();
  });

  it('keeps a title containing ]]> twice intact', () => {
    const title = 'a ]]> b ]]> c <![CDATA[ d';
    const feed = parseFeed(atomFeed(site, [{ ...tomAndJerry, title }], { updated }));
    expect(feed.items[0]!.title).toBe(title);
  });

  it('drops characters XML cannot carry rather than writing a broken feed', () => {
    const xmlWithBell = atomFeed(site, [{ ...tomAndJerry, title: 'ding\u0007dong\uFFFE', excerpt: 'x\u0000y' }], { updated });
    expect(parseFeed(xmlWithBell).items[0]!.title).toBe('dingdong');
    expect(parseFeed(xmlWithBell).items[0]!.description).toBe('xy');
  });

  it('leaves out of the entry a category whose tag holds <, which the library cannot write into an attribute', () => {
    const xml = atomFeed(site, [{ ...tomAndJerry, tags: ['i <3 xml', 'a & "b"'] }], { updated });
    expectWellFormed(xml);
    const feed = parseFeed(xml);
    expect(feed.items[0]!.categories.map((category) => category.term)).toEqual(['a & "b"']);
  });

  it('is a valid feed without entries when there are no posts', () => {
    const empty = atomFeed(site, [], { updated });
    expect(parseXml(empty).feed.entry).toBeUndefined();
    const feed = parseFeed(empty);
    expect(feed.meta.type).toBe('atom');
    expect(feed.title).toBe('Margin blog');
    expect(feed.items).toEqual([]);
  });

  it('names the tag in the title, id and self link of a tag feed', () => {
    const tagged = atomFeed(site, [tomAndJerry], { tag: 'rust & go', updated });
    const { feed } = parseXml(tagged);
    expect(feed.title).toBe('Margin blog — rust & go');
    expect(feed.id).toBe('https://api.example.com/api/v1/content/feed.atom?tag=rust%20%26%20go');
    expect(parseFeed(tagged).self).toBe('https://api.example.com/api/v1/content/feed.atom?tag=rust%20%26%20go');
    expect(parseFeed(tagged).title).toBe('Margin blog — rust & go');
  });
});

describe('rssFeed', () => {
  const xml = rssFeed(site, [tomAndJerry, unicode], { updated });

  it('has the channel title, link, description, build date and self link', () => {
    const { rss } = parseXml(xml);
    expect(rss['@_version']).toBe('2.0');
    expect(rss.channel.title).toBe('Margin blog');
    expect(rss.channel.link).toBe('https://blog.example.com/');
    expect(rss.channel.description).toBe('Margin blog');
    expect(rss.channel.lastBuildDate).toBe('Thu, 03 Dec 2026 10:00:00 GMT');
    expect(rss.channel['atom:link']).toEqual([
      { '@_href': 'https://api.example.com/api/v1/content/feed.rss', '@_rel': 'self', '@_type': 'application/rss+xml' },
    ]);
  });

  it('gives each item a title, link, non-permalink guid, RFC 822 pubDate and categories', () => {
    const item = parseXml(xml).rss.channel.item[0];
    expect(item.title).toBe('Tom &amp; "Jerry" &lt;3');
    expect(item.link).toBe('https://blog.example.com/blog/tom-jerry');
    expect(item.guid).toEqual({ '#text': 'tag:blog.example.com,2026-12-01:post:01JDQBC8P4G6J8M0N2Q4S6V8WX', '@_isPermaLink': 'false' });
    expect(item.pubDate).toMatch(RFC_822);
    expect(item.pubDate).toBe('Tue, 01 Dec 2026 23:30:00 GMT');
    expect(item.description).toBe('Five characters break XML: &amp; &lt; &gt; " \'');
    expect(item.category).toEqual(['feeds', 'xml']);
  });

  it('is read as an RSS feed with the right titles, links, ids, dates and categories', () => {
    const feed = parseFeed(xml);
    expect(feed.meta.type).toBe('rss');
    expect(feed.title).toBe('Margin blog');
    expect(feed.url).toBe('https://blog.example.com/');
    expect(feed.self).toBe('https://api.example.com/api/v1/content/feed.rss');
    expect(feed.items.map((item) => [item.id, item.title, item.url, item.published])).toEqual([
      [
        'tag:blog.example.com,2026-12-01:post:01JDQBC8P4G6J8M0N2Q4S6V8WX',
        'Tom & "Jerry" <3',
        'https://blog.example.com/blog/tom-jerry',
        tomAndJerry.publishedAt,
      ],
      [
        'tag:blog.example.com,2026-11-27:post:01JDQBC8P4G6J8M0N2Q4S6V8WY',
        'שלום עולם 👋🏽 — naïve café',
        'https://blog.example.com/blog/h%C3%A9llo%20w%C3%B6rld%2F%3F%23',
        new Date('2026-11-27T08:45:19.000Z'), // RFC 822 dates have whole seconds
      ],
    ]);
    expect(feed.items[0]!.description).toBe(tomAndJerry.excerpt);
    expect(feed.items[0]!.categories.map((category) => category.term)).toEqual(['feeds', 'xml']);
  });

  it('keeps no raw <3 in the XML and omits the description of a post without an excerpt or a rendered body', () => {
    expect(xml).not.toContain('<3');
    const items = parseXml(xml).rss.channel.item;
    expect(items[1].description).toBeUndefined();
  });

  it('keeps a category whose tag holds <', () => {
    const feed = parseFeed(rssFeed(site, [{ ...tomAndJerry, tags: ['i <3 xml'] }], { updated }));
    expect(feed.items[0]!.categories.map((category) => category.term)).toEqual(['i <3 xml']);
  });

  it('is a valid feed without items when there are no posts', () => {
    const empty = rssFeed(site, [], { updated });
    expect(parseXml(empty).rss.channel.item).toBeUndefined();
    const feed = parseFeed(empty);
    expect(feed.meta.type).toBe('rss');
    expect(feed.items).toEqual([]);
  });

  it('names the tag in the title and self link of a tag feed', () => {
    const feed = parseFeed(rssFeed(site, [tomAndJerry], { tag: 'c#', updated }));
    expect(feed.title).toBe('Margin blog — c#');
    expect(feed.self).toBe('https://api.example.com/api/v1/content/feed.rss?tag=c%23');
  });
});

describe('the cover image as an enclosure', () => {
  const MEDIA = 'https://api.example.com/api/v1/content/media/d3rmw6a2ztq5hkx4np7ucb2fya';
  const withCover: FeedPost = { ...tomAndJerry, enclosure: { url: `${MEDIA}/original.jpg`, contentType: 'image/jpeg', bytes: 183_204 } };
  const withWebp: FeedPost = { ...unicode, enclosure: { url: `${MEDIA}/1600.webp`, contentType: 'image/webp', bytes: 91_000 } };

  it('is an Atom link rel="enclosure" with the type (image/jpeg, not the extension) and length, beside the entry link', () => {
    const xml = atomFeed(site, [withCover, withWebp, tomAndJerry], { updated });
    const entries = parseXml(xml).feed.entry;
    expect(entries[0].link).toEqual([
      { '@_href': 'https://blog.example.com/blog/tom-jerry' },
      { '@_rel': 'enclosure', '@_href': `${MEDIA}/original.jpg`, '@_type': 'image/jpeg', '@_length': '183204' },
    ]);
    expect(entries[1].link[1]).toEqual({
      '@_rel': 'enclosure',
      '@_href': `${MEDIA}/1600.webp`,
      '@_type': 'image/webp',
      '@_length': '91000',
    });
    expect(entries[2].link).toEqual([{ '@_href': 'https://blog.example.com/blog/tom-jerry' }]);
    expect(parseFeed(xml).items[0]!.url).toBe('https://blog.example.com/blog/tom-jerry');
  });

  it('leaves a title that reads like an enclosure link alone', () => {
    const xml = atomFeed(site, [{ ...withCover, title: '<link rel="enclosure" href="x" type="image/jpg"' }], { updated });
    expect(parseFeed(xml).items[0]!.title).toBe('<link rel="enclosure" href="x" type="image/jpg"');
  });

  it('is an RSS enclosure with its url, length and type', () => {
    const xml = rssFeed(site, [withCover, tomAndJerry], { updated });
    const items = parseXml(xml).rss.channel.item;
    expect(items[0].enclosure).toEqual({ '@_url': `${MEDIA}/original.jpg`, '@_length': '183204', '@_type': 'image/jpeg' });
    expect(items[1].enclosure).toBeUndefined();
  });
});

describe('the whole post', () => {
  const MEDIA_ID = 'd3rmw6a2ztq5hkx4np7ucb2fya';
  const html =
    '<p><strong>bold</strong> &amp; <a href="/about">about</a> ]]&gt; done</p>\n' +
    `<p><img src="/api/v1/content/media/${MEDIA_ID}/original.jpg" alt="x" srcset="/api/v1/content/media/${MEDIA_ID}/640.webp 640w" /></p>\n`;
  const absolute =
    '<p><strong>bold</strong> &amp; <a href="https://blog.example.com/about">about</a> ]]&gt; done</p>\n' +
    `<p><img src="https://api.example.com/api/v1/content/media/${MEDIA_ID}/original.jpg" alt="x" ` +
    `srcset="https://api.example.com/api/v1/content/media/${MEDIA_ID}/640.webp 640w" /></p>\n`;
  const rendered: FeedPost = { ...unicode, html };
  const excerpted: FeedPost = { ...tomAndJerry, html };

  it('is the Atom entry\'s <content type="html">, its URLs absolute, and its summary the excerpt when there is one', () => {
    const xml = atomFeed(site, [excerpted, rendered], { updated });
    const [first, second] = parseXml(xml).feed.entry;
    expect(first.content).toEqual({ '#text': absolute, '@_type': 'html' });
    expect(first.summary['#text']).toBe('Five characters break XML: &amp; &lt; &gt; " \'');
    expect(second.content).toEqual({ '#text': absolute, '@_type': 'html' });
    expect(parseFeed(xml).items[1]!.content).toContain(`<img src="https://api.example.com/api/v1/content/media/${MEDIA_ID}/original.jpg"`);
  });

  it("makes the summary of a post without an excerpt from its rendered body's text", () => {
    const entry = parseXml(atomFeed(site, [rendered], { updated })).feed.entry[0];
    expect(entry.summary).toEqual({ '#text': 'bold &amp; about ]]&gt; done', '@_type': 'html' });
  });

  it("is the RSS item's <content:encoded>, declaring its namespace, with the summary as <description>", () => {
    const xml = rssFeed(site, [excerpted, rendered], { updated });
    const { rss } = parseXml(xml);
    expect(rss['@_xmlns:content']).toBe('http://purl.org/rss/1.0/modules/content/');
    expect(rss.channel.item.map((item: Record<string, unknown>) => item['content:encoded'])).toEqual([absolute, absolute]);
    expect(rss.channel.item.map((item: Record<string, unknown>) => item.description)).toEqual([
      'Five characters break XML: &amp; &lt; &gt; " \'',
      'bold &amp; about ]]&gt; done',
    ]);
    expect(parseFeed(xml).items[1]!.content).toContain('<strong>bold</strong>');
  });

  it('keeps a body holding ]]> twice, and characters XML cannot carry, from breaking the feed', () => {
    const tricky = { ...rendered, html: '<p>a ]]> b ]]> c \u0007</p>' };
    const atom = parseXml(atomFeed(site, [tricky], { updated })).feed.entry[0].content['#text'];
    const rss = parseXml(rssFeed(site, [tricky], { updated })).rss.channel.item[0]['content:encoded'];
    expect([atom, rss]).toEqual(['<p>a ]]&gt; b ]]&gt; c </p>', '<p>a ]]&gt; b ]]&gt; c </p>']);
  });

  it('has no content namespace in an RSS feed of posts without a rendered body', () => {
    expect(parseXml(rssFeed(site, [unicode], { updated })).rss['@_xmlns:content']).toBeUndefined();
  });
});

describe('sitemapXml', () => {
  const entries = [
    { slug: 'tom-jerry', lastModified: tomAndJerry.updatedAt },
    { slug: unicode.slug, lastModified: unicode.updatedAt },
  ];

  it('lists one url per entry with its absolute address and last modification', () => {
    const xml = sitemapXml(site, entries);
    expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>')).toBe(true);
    const { urlset } = parseXml(xml);
    expect(urlset['@_xmlns']).toBe('http://www.sitemaps.org/schemas/sitemap/0.9');
    expect(urlset.url).toEqual([
      { loc: 'https://blog.example.com/blog/tom-jerry', lastmod: '2026-12-02T09:15:30.412Z' },
      { loc: 'https://blog.example.com/blog/h%C3%A9llo%20w%C3%B6rld%2F%3F%23', lastmod: '2026-11-27T08:45:19.880Z' },
    ]);
    for (const url of urlset.url) expect(url.lastmod).toMatch(RFC_3339);
  });

  it('escapes an ampersand in the address', () => {
    const xml = sitemapXml({ ...site, postPath: '/post?slug={slug}&lang=en' }, [entries[0]!]);
    expect(xml).toContain('<loc>https://blog.example.com/post?slug=tom-jerry&amp;lang=en</loc>');
    expect(parseXml(xml).urlset.url[0].loc).toBe('https://blog.example.com/post?slug=tom-jerry&lang=en');
  });

  it('is a valid empty urlset, declaring the image extension, when there are no entries', () => {
    const xml = sitemapXml(site, []);
    expect(parseXml(xml).urlset).toEqual({
      '@_xmlns': 'http://www.sitemaps.org/schemas/sitemap/0.9',
      '@_xmlns:image': 'http://www.google.com/schemas/sitemap-image/1.1',
    });
  });

  it("lists a page's images with the image extension, each once, in the order given", () => {
    const media = 'https://api.example.com/api/v1/content/media/d3rmw6a2ztq5hkx4np7ucb2fya';
    const images = [`${media}/original.png`, `${media}/640.webp`, `${media}/original.png`, 'https://api.example.com/a&b'];
    const xml = sitemapXml(site, [{ ...entries[0]!, images }, entries[1]!]);
    const { urlset } = parseXml(xml);
    expect(urlset['@_xmlns:image']).toBe('http://www.google.com/schemas/sitemap-image/1.1');
    expect(urlset.url[0]['image:image']).toEqual([
      { 'image:loc': `${media}/original.png` },
      { 'image:loc': `${media}/640.webp` },
      { 'image:loc': 'https://api.example.com/a&b' },
    ]);
    expect(urlset.url[1]['image:image']).toBeUndefined();
    // Namespaces resolved: the elements are in Google's image namespace.
    expect(xml).toMatch(
      /<urlset xmlns="http:\/\/www.sitemaps.org\/schemas\/sitemap\/0.9" xmlns:image="http:\/\/www.google.com\/schemas\/sitemap-image\/1.1">/,
    );
  });

  it('lists at most 1,000 images of a page, as Google reads no more', () => {
    const images = Array.from(
      { length: 1005 },
      (_, i) => `https://api.example.com/api/v1/content/media/d3rmw6a2ztq5hkx4np7ucb2fya/${i}.webp`,
    );
    const { urlset } = parseXml(sitemapXml(site, [{ ...entries[0]!, images }]));
    expect(urlset.url[0]['image:image']).toHaveLength(1000);
    expect(urlset.url[0]['image:image'][999]['image:loc']).toMatch(/\/999\.webp$/);
  });
});
