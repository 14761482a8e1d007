import type { ContentQueries } from '../../../app/content-queries.js';
import type { Post, PostSummary } from '../../../domain/index.js';
import { cacheControlOf, httpDateOf, isNotModified, strongEtagOf, type CachePolicy } from '../content/conditional.js';
import type { SiteInfo } from '../content/feeds.js';
import type { HandlerRegistry } from '../registry.js';
import type { components } from '../../../../generated/api.js';

type Schemas = components['schemas'];

// The feeds (feed, xmlbuilder2) and the HTML renderer (markdown-it, sanitize-html) are loaded on
// first use: most servers never render either, and parsing them would add to every start.
let feedsModule: Promise<typeof import('../content/feeds.js')> | undefined;
const feeds = () => (feedsModule ??= import('../content/feeds.js'));
let markdownModule: Promise<typeof import('../content/markdown-html.js')> | undefined;
const markdown = () => (markdownModule ??= import('../content/markdown-html.js'));

type ContentHandlers = Pick<
  HandlerRegistry,
  'listContentPosts' | 'getContentPost' | 'getContentPostBySlug' | 'listContentTags' | 'getAtomFeed' | 'getRssFeed' | 'getSitemap'
>;

export interface ContentSite {
  site: SiteInfo;
  cache: CachePolicy;
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

async function toContentPost(post: Post, html: boolean, siteUrl: string): Promise<Schemas['ContentPost']> {
  return {
    ...toContentSummary(post),
    body: post.body,
    ...(html ? { html: (await markdown()).renderMarkdown(post.body, siteUrl) } : {}),
  };
}

/** The conditional request headers every content operation declares. */
interface Conditions {
  'if-none-match'?: string;
  'if-modified-since'?: string;
}

/**
 * Content operations: every answer is public and cacheable, with a strong ETag of its bytes and a
 * Last-Modified, and 304 when the client's copy is current (see `isNotModified`).
 */
export function contentHandlers(content: ContentQueries, { site, cache }: ContentSite): ContentHandlers {
  const cacheControl = cacheControlOf(cache);

  /** 200 with `body`, or 304 when the request's conditions hold; `text` is the bytes sent. */
  function conditional<B>(headers: Conditions, body: B, text: string, lastModified: Date) {
    const replyHeaders = {
      ETag: strongEtagOf(text),
      'Last-Modified': httpDateOf(lastModified),
      'Cache-Control': cacheControl,
      'Access-Control-Allow-Origin': '*' as const,
    };
    const notModified = isNotModified(
      { ifNoneMatch: headers['if-none-match'], ifModifiedSince: headers['if-modified-since'] },
      replyHeaders.ETag,
      lastModified,
    );
    return notModified ? { status: 304 as const, headers: replyHeaders } : { status: 200 as const, body, headers: replyHeaders };
  }

  const json = <B>(headers: Conditions, body: B, lastModified: Date) => conditional(headers, body, JSON.stringify(body), lastModified);

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
      const post = await content.get(params.id);
      return json(headers, await toContentPost(post, query.include === 'html', site.siteUrl), post.updatedAt);
    },

    async getContentPostBySlug({ params, query, headers }) {
      const post = await content.getBySlug(params.slug);
      return json(headers, await toContentPost(post, query.include === 'html', site.siteUrl), post.updatedAt);
    },

    async listContentTags({ headers }) {
      const [items, changed] = await Promise.all([content.tags(), lastChange()]);
      return json(headers, { items }, changed);
    },

    async getAtomFeed({ query, headers }) {
      const { entries, updated, options } = await feedPosts(query.tag);
      const xml = (await feeds()).atomFeed(site, entries, options);
      return conditional(headers, xml, xml, updated);
    },

    async getRssFeed({ query, headers }) {
      const { entries, updated, options } = await feedPosts(query.tag);
      const xml = (await feeds()).rssFeed(site, entries, options);
      return conditional(headers, xml, xml, updated);
    },

    async getSitemap({ headers }) {
      const [posts, changed, { sitemapXml }] = await Promise.all([content.all(), lastChange(), feeds()]);
      const xml = sitemapXml(
        site,
        posts.map((post) => ({ slug: post.slug, lastModified: post.updatedAt })),
      );
      return conditional(headers, xml, xml, changed);
    },
  };
}
