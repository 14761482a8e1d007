import type { ContentQueries, SitemapPost } from '../../../app/content-queries.js';
import type { Post, PostSummary } from '../../../domain/index.js';
import { strongEtagOf, type ConditionalAnswer, type Conditions } from '../content/conditional.js';
import type { ContentApiUrl, FeedEnclosure, FeedPost, SiteInfo, SitemapEntry } from '../content/feeds.js';
import { FeedCache, renderFeedBodies } from '../content/feed-bodies.js';
import { htmlEtagsOf, renderMediaOf, type HtmlRenderer } from '../content/html-renderer.js';
import { enclosureFile, originalOf } from '../content/images.js';
import { coverIdsOf, coverMediaOf, type FoundMedia } from '../content/posts.js';
import { mediaFilesIn, mediaFileUrl, mediaIdsIn } from '../media-urls.js';
import type { HandlerRegistry } from '../registry.js';

// The feeds (feed, xmlbuilder2) are loaded on first use: most servers never write one, and parsing
// them would add to every start.
let feedsModule: Promise<typeof import('../content/feeds.js')> | undefined;
const feeds = () => (feedsModule ??= import('../content/feeds.js'));

/** How many media links of one body the sitemap looks at: as many as it lists images of a page (1,000). */
const SITEMAP_LINKS_MAX = 1000;

/** The last change to any post, or the epoch on a site that never had one. */
export async function lastChangeOf(content: ContentQueries): Promise<Date> {
  return (await content.lastChange()) ?? new Date(0);
}

/** The images of a post in the sitemap: its cover's original, then the media files its body links to that exist. */
function sitemapImagesOf(post: SitemapPost<BodyLink[]>, media: FoundMedia, contentApiUrl: string): string[] {
  const cover = coverMediaOf(post, media);
  const images = cover === undefined ? [] : [mediaFileUrl(contentApiUrl, cover.id, originalOf(cover).name)];
  for (const { mediaId, fileName } of post.fromBody) {
    if (media.get(mediaId)?.files.some((file) => file.name === fileName) === true)
      images.push(mediaFileUrl(contentApiUrl, mediaId, fileName));
  }
  return images;
}

/** The sitemap's entries: each post's page, last change and images. */
function sitemapEntriesOf(posts: SitemapPost<BodyLink[]>[], media: FoundMedia, contentApiUrl: string): SitemapEntry[] {
  return posts.map((post) => ({ slug: post.slug, lastModified: post.updatedAt, images: sitemapImagesOf(post, media, contentApiUrl) }));
}

/** A feed entry's enclosure: its cover's file (`enclosureFile`), when it has a cover that exists. */
function enclosureOf(post: PostSummary, media: FoundMedia, contentApiUrl: string): FeedEnclosure | undefined {
  const cover = coverMediaOf(post, media);
  if (cover === undefined) return undefined;
  const file = enclosureFile(cover);
  return { url: mediaFileUrl(contentApiUrl, cover.id, file.name), contentType: file.contentType, bytes: file.bytes };
}

/** A media file a body links to. */
type BodyLink = ReturnType<typeof mediaFilesIn>[number];

/**
 * The feed's posts (`ContentQueries.latest`) with their bodies rendered as `include=html` renders
 * them (the same media found, so the same cache entries), within twice the renderer's budget for
 * them all (see `renderFeedBodies`); `complete` when every body could be rendered.
 */
async function feedEntries(content: ContentQueries, renderer: HtmlRenderer, site: SiteInfo, posts: Post[]) {
  const mediaIds = posts.map((post) => [...new Set([...coverIdsOf([post]), ...mediaIdsIn(post.body)])]);
  const media = await content.media(mediaIds.flat());
  const bodies = posts.map((post, index) => ({
    post,
    media: mediaIds[index]!.flatMap((id) => (media.has(id) ? [renderMediaOf(media.get(id)!)] : [])),
  }));
  const rendered = await renderFeedBodies(renderer, bodies, renderer.budgetMs * 2);
  const entries: FeedPost[] = posts.map((post, index) => ({
    ...post,
    publishedAt: post.publishedAt!,
    enclosure: enclosureOf(post, media, site.contentApiUrl),
    html: rendered[index] ?? undefined,
  }));
  // What fixes each entry's bytes: its post's version and the media found (see `htmlEtagsOf`), and whether its body is there.
  const fixed = bodies.map(
    ({ post, media }, index) => `${htmlEtagsOf(post, site.siteUrl, media).rendered}${rendered[index] === null ? '-' : '+'}`,
  );
  return { entries, complete: rendered.every((one) => one !== null), fixed: fixed.join(',') };
}

/** What the feeds are made of: the posts, the renderer, the site (for one request) and the feeds written lately. */
interface FeedSources {
  content: ContentQueries;
  renderer: HtmlRenderer;
  site: SiteInfo;
  cache: FeedCache;
}

/**
 * A feed of `posts` (see `feedEntries`) as XML with its ETag, written once for what fixes its bytes
 * (`FeedCache`: the format, tag and date, and each entry's `fixed`); `complete` when every body is in it.
 */
async function writtenFeed(
  { content, renderer, site, cache }: FeedSources,
  format: 'atom' | 'rss',
  { posts, tag, updated }: { posts: Post[]; tag?: string; updated: Date },
) {
  const [{ entries, complete, fixed }, { atomFeed, rssFeed }] = await Promise.all([feedEntries(content, renderer, site, posts), feeds()]);
  const key = `${format}\n${site.contentApiUrl}\n${JSON.stringify(tag ?? null)}\n${updated.toISOString()}\n${fixed}`;
  const written = cache.written(key, () =>
    (format === 'atom' ? atomFeed : rssFeed)(site, entries, { ...(tag === undefined ? {} : { tag }), updated }),
  );
  return { ...written, complete };
}

/**
 * The Atom and RSS feeds and the sitemap, each answered by `conditional` and dated by the last
 * change to any post; a feed is `no-store` when a body is missing from it, as `include=html` does.
 */
export function contentFeedHandlers(
  content: ContentQueries,
  renderer: HtmlRenderer,
  settings: Omit<SiteInfo, 'contentApiUrl'>,
  contentApiUrl: ContentApiUrl,
  conditional: ConditionalAnswer,
): Pick<HandlerRegistry, 'getAtomFeed' | 'getRssFeed' | 'getSitemap'> {
  const cache = new FeedCache();
  /** The site as a request sees it: the Content API at its address for that request. */
  const siteFor = (request: { origin: string }): SiteInfo => ({ ...settings, contentApiUrl: contentApiUrl(request) });

  /** A feed (see `writtenFeed`). */
  const feed = async (request: { origin: string; headers: Conditions }, tag: string | undefined, format: 'atom' | 'rss') => {
    const { headers } = request;
    const sources: FeedSources = { content, renderer, site: siteFor(request), cache };
    const [posts, updated] = await Promise.all([content.latest(tag), lastChangeOf(content)]);
    const { xml, etag, complete } = await writtenFeed(sources, format, { posts, updated, ...(tag === undefined ? {} : { tag }) });
    const answer = conditional(headers, xml, etag, updated);
    return complete ? answer : { ...answer, headers: { ...answer.headers, 'Cache-Control': 'no-store' } };
  };

  return {
    async getAtomFeed(request) {
      return feed(request, request.query.tag, 'atom');
    },

    async getRssFeed(request) {
      return feed(request, request.query.tag, 'rss');
    },

    async getSitemap(request) {
      const { headers } = request;
      const site = siteFor(request);
      const [posts, changed, { sitemapXml }] = await Promise.all([
        content.allWith((body) => mediaFilesIn(body, SITEMAP_LINKS_MAX)),
        lastChangeOf(content),
        feeds(),
      ]);
      const media = await content.media([...coverIdsOf(posts), ...posts.flatMap((post) => post.fromBody.map((link) => link.mediaId))]);
      const xml = sitemapXml(site, sitemapEntriesOf(posts, media, site.contentApiUrl));
      return conditional(headers, xml, strongEtagOf(xml), changed);
    },
  };
}
