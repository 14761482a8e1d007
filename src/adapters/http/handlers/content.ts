import type { ContentQueries, SitemapPost } from '../../../app/content-queries.js';
import type { Media, Post, PostSummary } from '../../../domain/index.js';
import { cacheControlOf, httpDateOf, isNotModified, strongEtagOf, type CachePolicy } from '../content/conditional.js';
import type { FeedEnclosure, FeedPost, SiteInfo, SitemapEntry } from '../content/feeds.js';
import { FeedCache, renderFeedBodies } from '../content/feed-bodies.js';
import { HtmlRenderer, htmlEtagsOf, renderMediaOf } from '../content/html-renderer.js';
import { JsonText } from '../json-text.js';
import { enclosureFile, originalOf, toContentCover } from '../content/images.js';
import { mediaFilesIn, mediaFileUrl, mediaIdsIn } from '../media-urls.js';
import { HttpProblem } from '../problem.js';
import type { HandlerRegistry } from '../registry.js';
import type { components } from '../../../../generated/api.js';

type Schemas = components['schemas'];

// The feeds (feed, xmlbuilder2) are loaded on first use: most servers never write one, and parsing
// them would add to every start. The HTML renderer (markdown-it, sanitize-html) only ever loads in
// its worker thread, started on the first include=html.
let feedsModule: Promise<typeof import('../content/feeds.js')> | undefined;
const feeds = () => (feedsModule ??= import('../content/feeds.js'));

/** How many media links of one body the sitemap looks at: as many as it lists images of a page (1,000). */
const SITEMAP_LINKS_MAX = 1000;

type ContentHandlers = Pick<
  HandlerRegistry,
  | 'listContentPosts'
  | 'getContentPost'
  | 'getContentPostBySlug'
  | 'listContentTags'
  | 'getAtomFeed'
  | 'getRssFeed'
  | 'getSitemap'
  | 'getContentPreview'
>;

/** What a preview link shows: the post its token names (`previewPost`), or null; and the time. */
export interface PreviewSource {
  post(token: string): Promise<Post | null>;
  now(): Date;
}

/** The headers of every preview: it shows a post as it is at this instant, to whoever holds the link, and no one else. */
const PREVIEW_HEADERS = { 'Cache-Control': 'no-store', 'X-Robots-Tag': 'noindex' } as const;

export interface ContentSite {
  site: SiteInfo;
  cache: CachePolicy;
  /** Renders `include=html` (default: one over `site.siteUrl` with its default budget). */
  renderer?: HtmlRenderer;
}

/** The media the Content API shows, found by id (see `ContentQueries.media`): a deleted one is absent. */
type FoundMedia = ReadonlyMap<string, Media>;

/** The media of a post's cover, when it has one that still exists. */
function coverMediaOf(post: PostSummary, media: FoundMedia): Media | undefined {
  return post.coverImage === null ? undefined : media.get(post.coverImage.mediaId);
}

/** The media ids of the posts' covers. */
function coverIdsOf(posts: readonly PostSummary[]): string[] {
  return posts.flatMap((post) => (post.coverImage === null ? [] : [post.coverImage.mediaId]));
}

/** What readers see of a post: no version, status or anything else internal; its cover null when its media is gone. */
function toContentSummary(post: PostSummary, media: FoundMedia, contentApiUrl: string): Schemas['ContentPostSummary'] {
  const cover = coverMediaOf(post, media);
  return {
    id: post.id,
    title: post.title,
    slug: post.slug,
    excerpt: post.excerpt,
    tags: [...post.tags],
    wordCount: post.wordCount,
    coverImage: cover === undefined ? null : toContentCover(post.coverImage!, cover, contentApiUrl),
    seo: { ...post.seo },
    // Only visible posts get here, and a visible post has been published.
    publishedAt: post.publishedAt!.toISOString(),
    updatedAt: post.updatedAt.toISOString(),
  };
}

function toContentPost(post: Post, media: FoundMedia, contentApiUrl: string): Schemas['ContentPost'] {
  return { ...toContentSummary(post, media, contentApiUrl), body: post.body };
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

/**
 * getContentPreview: the post of a preview link in the Content API's shape whatever its status,
 * `publishedAt` its first publication, else its `publishAt`, else now; `html` when asked for and
 * rendered in time. No ETag: it is never stored. An unknown token, an expired or revoked link and
 * a deleted post are one 404.
 */
function contentPreviewHandler(
  content: ContentQueries,
  renderer: HtmlRenderer,
  contentApiUrl: string,
  previews: PreviewSource,
): Pick<HandlerRegistry, 'getContentPreview'> {
  return {
    async getContentPreview({ params, query }) {
      const post = await previews.post(params.token);
      if (post === null) throw new HttpProblem(404, 'not-found', 'No post is previewed at this link.');
      const shown = { ...post, publishedAt: post.publishedAt ?? post.publishAt ?? previews.now() };
      const include = query.include === 'html';
      const media = await content.media(include ? [...coverIdsOf([post]), ...mediaIdsIn(post.body)] : coverIdsOf([post]));
      const body = toContentPost(shown, media, contentApiUrl);
      if (!include) return { status: 200, body, headers: PREVIEW_HEADERS };
      const rendered = await renderer.html(post, [...media.values()].map(renderMediaOf));
      return { status: 200, body: rendered === null ? body : { ...body, html: rendered }, headers: PREVIEW_HEADERS };
    },
  };
}

/** What the feeds are made of: the posts, the renderer, the site and the feeds written lately. */
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
  const key = `${format}\n${JSON.stringify(tag ?? null)}\n${updated.toISOString()}\n${fixed}`;
  const written = cache.written(key, () =>
    (format === 'atom' ? atomFeed : rssFeed)(site, entries, { ...(tag === undefined ? {} : { tag }), updated }),
  );
  return { ...written, complete };
}

/** The conditional request headers every content operation declares. */
interface Conditions {
  'if-none-match'?: string;
  'if-modified-since'?: string;
}

/**
 * Content operations: every answer is public and cacheable, with a strong ETag of its bytes (for a
 * post with its HTML, of what fixes them: see `withHtml`) and a Last-Modified, and 304 when the
 * client's copy is current (see `isNotModified`).
 */
export function contentHandlers(content: ContentQueries, { site, cache, renderer }: ContentSite, previews: PreviewSource): ContentHandlers {
  const cacheControl = cacheControlOf(cache);
  const html = renderer ?? new HtmlRenderer({ siteUrl: site.siteUrl });

  /** 200 with `body`, or 304 when the request's conditions hold; `etag` names the bytes sent. */
  function conditional<B>(headers: Conditions, body: B, etag: string, lastModified: Date) {
    // `Access-Control-Allow-Origin: *` is among every content answer's base headers (response-headers.ts).
    const replyHeaders = {
      ETag: etag,
      'Last-Modified': httpDateOf(lastModified),
      'Cache-Control': cacheControl,
    };
    const notModified = isNotModified(
      { ifNoneMatch: headers['if-none-match'], ifModifiedSince: headers['if-modified-since'] },
      replyHeaders.ETag,
      lastModified,
    );
    return notModified ? { status: 304 as const, headers: replyHeaders } : { status: 200 as const, body, headers: replyHeaders };
  }

  /** A JSON answer, serialised once: its ETag hashes the text the dispatch then writes as it is. */
  const json = <B>(headers: Conditions, body: B, lastModified: Date) => {
    const serialised = JsonText.of(body);
    return conditional(headers, serialised, strongEtagOf(serialised.text), lastModified);
  };

  const { contentApiUrl } = site;

  /**
   * A post with `html`. Its bytes are fixed by the post's id and version, the renderer's version,
   * the site's address and which media of its cover and body's images exist (their files never
   * change), so the ETag hashes those and a 304 renders nothing; the HTML comes from
   * `HtmlRenderer` (a worker with a time budget, cached by the same). A body it cannot render in
   * time is answered without `html`, `no-store`, under an ETag of its own.
   */
  async function withHtml(headers: Conditions, post: Post) {
    const media = await content.media([...coverIdsOf([post]), ...mediaIdsIn(post.body)]);
    const found = [...media.values()].map(renderMediaOf);
    const etags = htmlEtagsOf(post, site.siteUrl, found);
    const answer = conditional(headers, undefined, etags.rendered, post.updatedAt);
    if (answer.status === 304) return answer;
    const rendered = await html.html(post, found);
    if (rendered === null) {
      const replyHeaders = { ...answer.headers, ETag: etags.unrendered, 'Cache-Control': 'no-store' };
      return { status: 200 as const, body: toContentPost(post, media, contentApiUrl), headers: replyHeaders };
    }
    return { ...answer, body: { ...toContentPost(post, media, contentApiUrl), html: rendered } };
  }

  const postAnswer = async (headers: Conditions, post: Post, include: 'html' | undefined) => {
    if (include === 'html') return withHtml(headers, post);
    return json(headers, toContentPost(post, await content.media(coverIdsOf([post])), contentApiUrl), post.updatedAt);
  };

  /** The last change to any post, or the epoch on a site that never had one. */
  const lastChange = async () => (await content.lastChange()) ?? new Date(0);

  const feedOf: FeedSources = { content, renderer: html, site, cache: new FeedCache() };

  /** A feed (see `writtenFeed`), dated by the last change; `no-store` when a body is missing from it, as `include=html` does. */
  const feed = async (headers: Conditions, tag: string | undefined, format: 'atom' | 'rss') => {
    const [posts, updated] = await Promise.all([content.latest(tag), lastChange()]);
    const { xml, etag, complete } = await writtenFeed(feedOf, format, { posts, updated, ...(tag === undefined ? {} : { tag }) });
    const answer = conditional(headers, xml, etag, updated);
    return complete ? answer : { ...answer, headers: { ...answer.headers, 'Cache-Control': 'no-store' } };
  };

  return {
    ...contentPreviewHandler(content, html, contentApiUrl, previews),

    async listContentPosts({ query, headers }) {
      // The page and the last change in one read (one statement on PostgreSQL).
      const page = await content.listWithLastChange({
        ...(query.tag === undefined ? {} : { tag: query.tag }),
        ...(query.q === undefined ? {} : { q: query.q }),
        limit: query.limit,
        cursor: query.cursor ?? null,
      });
      const media = await content.media(coverIdsOf(page.items));
      const items = page.items.map((post) => toContentSummary(post, media, contentApiUrl));
      const body = { items, nextCursor: page.nextCursor, total: page.total, totalExact: page.totalExact };
      return json(headers, body, page.lastChange ?? new Date(0));
    },

    async getContentPost({ params, query, headers }) {
      return postAnswer(headers, await content.get(params.id), query.include);
    },

    async getContentPostBySlug({ params, query, headers }) {
      return postAnswer(headers, await content.getBySlug(params.slug), query.include);
    },

    async listContentTags({ headers }) {
      const [items, changed] = await Promise.all([content.tags(), lastChange()]);
      return json(headers, { items }, changed);
    },

    async getAtomFeed({ query, headers }) {
      return feed(headers, query.tag, 'atom');
    },

    async getRssFeed({ query, headers }) {
      return feed(headers, query.tag, 'rss');
    },

    async getSitemap({ headers }) {
      const [posts, changed, { sitemapXml }] = await Promise.all([
        content.allWith((body) => mediaFilesIn(body, SITEMAP_LINKS_MAX)),
        lastChange(),
        feeds(),
      ]);
      const media = await content.media([...coverIdsOf(posts), ...posts.flatMap((post) => post.fromBody.map((link) => link.mediaId))]);
      const xml = sitemapXml(site, sitemapEntriesOf(posts, media, contentApiUrl));
      return conditional(headers, xml, strongEtagOf(xml), changed);
    },
  };
}
