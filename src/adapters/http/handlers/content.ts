import type { ContentQueries } from '../../../app/content-queries.js';
import type { Post, PostSummary } from '../../../domain/index.js';
import { cacheControlOf, httpDateOf, isNotModified, strongEtagOf, type CachePolicy } from '../content/conditional.js';
import type { SiteInfo } from '../content/feeds.js';
import { HtmlRenderer, htmlEtagsOf } from '../content/html-renderer.js';
import type { HandlerRegistry } from '../registry.js';
import type { components } from '../../../../generated/api.js';

type Schemas = components['schemas'];

// The feeds (feed, xmlbuilder2) are loaded on first use: most servers never write one, and parsing
// them would add to every start. The HTML renderer (markdown-it, sanitize-html) only ever loads in
// its worker thread, started on the first include=html.
let feedsModule: Promise<typeof import('../content/feeds.js')> | undefined;
const feeds = () => (feedsModule ??= import('../content/feeds.js'));

type ContentHandlers = Pick<
  HandlerRegistry,
  'listContentPosts' | 'getContentPost' | 'getContentPostBySlug' | 'listContentTags' | 'getAtomFeed' | 'getRssFeed' | 'getSitemap'
>;

export interface ContentSite {
  site: SiteInfo;
  cache: CachePolicy;
  /** Renders `include=html` (default: one over `site.siteUrl` with its default budget). */
  renderer?: HtmlRenderer;
}

/** What readers see of a post: no version, status or anything else internal. */
function toContentSummary(post: PostSummary): Schemas['ContentPostSummary'] {
  return {
    id: post.id,
    title: post.title,
    slug: post.slug,
    excerpt: post.excerpt,
    tags: [...post.tags],
    wordCount: post.wordCount,
    // Only visible posts get here, and a visible post has been published.
    publishedAt: post.publishedAt!.toISOString(),
    updatedAt: post.updatedAt.toISOString(),
  };
}

function toContentPost(post: Post): Schemas['ContentPost'] {
  return { ...toContentSummary(post), body: post.body };
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
export function contentHandlers(content: ContentQueries, { site, cache, renderer }: ContentSite): ContentHandlers {
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

  const json = <B>(headers: Conditions, body: B, lastModified: Date) =>
    conditional(headers, body, strongEtagOf(JSON.stringify(body)), lastModified);

  /**
   * A post with `html`. Its bytes are fixed by the post's id and version, the renderer's version
   * and the site's address, so the ETag hashes those and a 304 renders nothing; the HTML comes
   * from `HtmlRenderer` (a worker with a time budget, cached by id and version). A body it cannot
   * render in time is answered without `html`, `no-store`, under an ETag of its own.
   */
  async function withHtml(headers: Conditions, post: Post) {
    const etags = htmlEtagsOf(post, site.siteUrl);
    const answer = conditional(headers, undefined, etags.rendered, post.updatedAt);
    if (answer.status === 304) return answer;
    const rendered = await html.html(post);
    if (rendered === null) {
      const replyHeaders = { ...answer.headers, ETag: etags.unrendered, 'Cache-Control': 'no-store' };
      return { status: 200 as const, body: toContentPost(post), headers: replyHeaders };
    }
    return { ...answer, body: { ...toContentPost(post), html: rendered } };
  }

  const postAnswer = (headers: Conditions, post: Post, include: 'html' | undefined) =>
    include === 'html' ? withHtml(headers, post) : json(headers, toContentPost(post), post.updatedAt);

  /** The last change to any post, or the epoch on a site that never had one. */
  const lastChange = async () => (await content.lastChange()) ?? new Date(0);

  const feedPosts = async (tag: string | undefined) => {
    const [posts, updated] = await Promise.all([content.latest(tag), lastChange()]);
    const entries = posts.map((post) => ({ ...post, publishedAt: post.publishedAt! }));
    return { entries, updated, options: { ...(tag === undefined ? {} : { tag }), updated } };
  };

  return {
    async listContentPosts({ query, headers }) {
      const [page, changed] = await Promise.all([
        content.list({
          ...(query.tag === undefined ? {} : { tag: query.tag }),
          ...(query.q === undefined ? {} : { q: query.q }),
          limit: query.limit,
          cursor: query.cursor ?? null,
        }),
        lastChange(),
      ]);
      const body = { items: page.items.map(toContentSummary), nextCursor: page.nextCursor, total: page.total, totalExact: page.totalExact };
      return json(headers, body, changed);
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
      const { entries, updated, options } = await feedPosts(query.tag);
      const xml = (await feeds()).atomFeed(site, entries, options);
      return conditional(headers, xml, strongEtagOf(xml), updated);
    },

    async getRssFeed({ query, headers }) {
      const { entries, updated, options } = await feedPosts(query.tag);
      const xml = (await feeds()).rssFeed(site, entries, options);
      return conditional(headers, xml, strongEtagOf(xml), updated);
    },

    async getSitemap({ headers }) {
      const [posts, changed, { sitemapXml }] = await Promise.all([content.all(), lastChange(), feeds()]);
      const xml = sitemapXml(
        site,
        posts.map((post) => ({ slug: post.slug, lastModified: post.updatedAt })),
      );
      return conditional(headers, xml, strongEtagOf(xml), changed);
    },
  };
}
