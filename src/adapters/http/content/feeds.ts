import { Feed, type Category } from 'feed';
import { create } from 'xmlbuilder2';
import { summaryOf, withAbsoluteUrls } from './feed-html.js';

/** Where the public site and the content API live, and what the feeds are called. */
export interface SiteInfo {
  /** Absolute site URL without a trailing slash, e.g. https://blog.example.com (PUBLIC_SITE_URL). */
  siteUrl: string;
  /** Path template of a post page, containing `{slug}`, e.g. `/blog/{slug}`. */
  postPath: string;
  /** Feed title, e.g. "Margin blog". */
  title: string;
  /** Absolute base URL of the content API, e.g. https://api.example.com/api/v1/content (used for the feed's self links). */
  contentApiUrl: string;
}

/** The Content API's address for a request (its links start there): PUBLIC_API_URL's, else the request's own origin. */
export type ContentApiUrl = (request: { origin: string }) => string;

/** A file a feed entry encloses: its absolute URL, type and size in bytes. */
export interface FeedEnclosure {
  url: string;
  contentType: string;
  bytes: number;
}

/** A published post as the feeds show it. */
export interface FeedPost {
  id: string;
  title: string;
  slug: string;
  /** Plain text; an empty excerpt gives the entry a summary made from `html` (none without it). */
  excerpt: string;
  tags: string[];
  publishedAt: Date;
  updatedAt: Date;
  /** The post's cover image (see `enclosureFile`), when it has one. */
  enclosure?: FeedEnclosure | undefined;
  /** The body as `HtmlRenderer` renders it (sanitised HTML), when it could be rendered in time. */
  html?: string | undefined;
}

/** What a feed covers: every post, or those with `tag`; `updated` is the feed's own date. */
interface FeedOptions {
  tag?: string;
  updated: Date;
}

/** The absolute URL of a post's page: `siteUrl` + `postPath`, `{slug}` replaced by the percent-encoded slug. */
export function postUrl(site: SiteInfo, slug: string): string {
  const encoded = encodeURIComponent(slug);
  return site.siteUrl + site.postPath.replaceAll('{slug}', () => encoded);
}

/**
 * The id of a post's feed entry, which survives a change of slug: the RFC 4151 tag URI
 * `tag:<site host>,<UTC date of publishing>:post:<post id>`.
 */
function entryId(site: SiteInfo, post: FeedPost): string {
  return `tag:${new URL(site.siteUrl).hostname},${post.publishedAt.toISOString().slice(0, 10)}:post:${post.id}`;
}

/** Characters XML 1.0 cannot carry at all (C0 controls but tab and newlines, U+FFFE, U+FFFF). */
const NOT_XML = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

function xmlText(text: string): string {
  return text.replace(NOT_XML, '');
}

/**
 * Plain text as HTML. `feed` writes entry titles and summaries as CDATA that Atom marks
 * `type="html"` (and RSS readers read as HTML), so `&`, `<` and `>` must be escaped to mean
 * themselves; that also keeps `]]>`, which the library does not split correctly, out of the CDATA.
 */
function asHtml(text: string): string {
  return xmlText(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * Rendered HTML as a feed entry's content: its URLs absolute (`withAbsoluteUrls`), characters XML
 * cannot carry dropped. The sanitiser escapes every `>` that closes no tag, so `]]>` (which would
 * end the CDATA `feed` writes, and which it splits only once) cannot occur; it is escaped anyway.
 */
function entryContent(site: SiteInfo, post: FeedPost, html: string): string {
  return withAbsoluteUrls(xmlText(html), { page: postUrl(site, post.slug), contentApiUrl: site.contentApiUrl }).replaceAll(']]>', ']]&gt;');
}

/** An entry's summary: the excerpt, or else the start of the rendered body's text (`summaryOf`), as HTML; none without either. */
function entrySummary(post: FeedPost): string | undefined {
  if (post.excerpt !== '') return asHtml(post.excerpt);
  const generated = post.html === undefined ? '' : summaryOf(post.html);
  return generated === '' ? undefined : asHtml(generated);
}

function buildFeed(site: SiteInfo, posts: FeedPost[], options: FeedOptions, format: 'atom' | 'rss'): Feed {
  const query = options.tag === undefined ? '' : `?tag=${encodeURIComponent(options.tag)}`;
  const self = `${site.contentApiUrl}/feed.${format}${query}`;
  const title = xmlText(options.tag === undefined ? site.title : `${site.title} — ${options.tag}`);
  const feed = new Feed({
    id: self,
    title,
    description: title,
    link: site.siteUrl,
    updated: options.updated,
    author: { name: xmlText(site.title) },
    feedLinks: { [format]: self },
    generator: false,
  });
  for (const post of posts) {
    const tags = post.tags.map(xmlText);
    // `feed` escapes `&` and `"` in an Atom category's attributes but not `<`, so a tag holding
    // `<` cannot be written validly there and is left out of the Atom entry (RSS keeps it).
    const category: Category[] =
      format === 'atom' ? tags.filter((tag) => !tag.includes('<')).map((term) => ({ term })) : tags.map((name) => ({ name }));
    const summary = entrySummary(post);
    feed.addItem({
      id: entryId(site, post), // RSS: a <guid isPermaLink="false">
      title: asHtml(post.title),
      link: postUrl(site, post.slug),
      ...(summary === undefined ? {} : { description: summary }), // Atom: <summary>, RSS: <description>
      ...(post.html === undefined ? {} : { content: entryContent(site, post, post.html) }), // Atom: <content>, RSS: <content:encoded>
      category,
      date: post.updatedAt,
      published: post.publishedAt,
      ...(post.enclosure === undefined
        ? {}
        : { enclosure: { url: post.enclosure.url, type: post.enclosure.contentType, length: post.enclosure.bytes } }),
    });
  }
  return feed;
}

/**
 * `feed` types an Atom enclosure from its URL's extension, whatever type it is given: `.jpg` would
 * be `image/jpg`, which is no media type. Our media files' extensions are their subtypes but for
 * JPEG (`MEDIA_EXTENSIONS`), so that one is put right. Only a tag can match: text and CDATA in the
 * feed have their `<` escaped.
 */
const ATOM_JPEG_ENCLOSURE = /(<link rel="enclosure" href="[^"]*" )type="image\/jpg"/g;

/**
 * The posts as an Atom 1.0 feed: entry id from `entryId`, link `postUrl`, summary the excerpt (or
 * one made from the rendered body, `entrySummary`), `<content type="html">` the rendered body
 * (`entryContent`), categories the tags, published and updated from the post, its cover a
 * `<link rel="enclosure" href type length>`; the feed's id and `rel="self"` link are
 * `<contentApiUrl>/feed.atom` (with `?tag=` for a tag feed), its author the site title.
 */
export function atomFeed(site: SiteInfo, posts: FeedPost[], options: FeedOptions): string {
  return buildFeed(site, posts, options, 'atom').atom1().replace(ATOM_JPEG_ENCLOSURE, '$1type="image/jpeg"');
}

/**
 * The posts as an RSS 2.0 feed: the same content as `atomFeed` (the summary as `<description>`,
 * the rendered body as `<content:encoded>`, declaring the `content` namespace), the entry id as a
 * `<guid isPermaLink="false">`, dates in RFC 822, the cover an `<enclosure url length type>`, the
 * self link `<contentApiUrl>/feed.rss`.
 */
export function rssFeed(site: SiteInfo, posts: FeedPost[], options: FeedOptions): string {
  return buildFeed(site, posts, options, 'rss').rss2();
}

const SITEMAP_NS = 'http://www.sitemaps.org/schemas/sitemap/0.9';
/** Google's image sitemap extension. */
const IMAGE_NS = 'http://www.google.com/schemas/sitemap-image/1.1';
/** The most images one `<url>` may list (Google's image sitemap limit). */
const SITEMAP_IMAGES_MAX = 1000;

/** A post of the sitemap: its slug, last change, and the absolute URLs of its images (cover first). */
export interface SitemapEntry {
  slug: string;
  lastModified: Date;
  images?: readonly string[];
}

/**
 * A sitemaps.org 0.9 `<urlset>`: one `<url>` per entry, its `postUrl` and its last modification
 * (RFC 3339, UTC), and with the image extension an `<image:image><image:loc>` per image, each
 * once, at most `SITEMAP_IMAGES_MAX`.
 */
export function sitemapXml(site: SiteInfo, entries: SitemapEntry[]): string {
  const urlset = create({ version: '1.0', encoding: 'UTF-8' })
    .ele(SITEMAP_NS, 'urlset')
    .att('http://www.w3.org/2000/xmlns/', 'xmlns:image', IMAGE_NS);
  for (const entry of entries) {
    const url = urlset.ele('url');
    url.ele('loc').txt(postUrl(site, entry.slug));
    url.ele('lastmod').txt(entry.lastModified.toISOString());
    for (const image of [...new Set(entry.images)].slice(0, SITEMAP_IMAGES_MAX))
      url.ele(IMAGE_NS, 'image:image').ele(IMAGE_NS, 'image:loc').txt(image);
  }
  return urlset.end({ prettyPrint: true });
}
