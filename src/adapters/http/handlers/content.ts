import type { ContentQueries } from '../../../app/content-queries.js';
import type { Post } from '../../../domain/index.js';
import { conditionalAnswers, strongEtagOf, type CachePolicy, type Conditions } from '../content/conditional.js';
import type { SiteInfo } from '../content/feeds.js';
import { HtmlRenderer, htmlEtagsOf, renderMediaOf } from '../content/html-renderer.js';
import { coverIdsOf, toContentPost, toContentSummary } from '../content/posts.js';
import { JsonText } from '../json-text.js';
import { mediaIdsIn } from '../media-urls.js';
import type { HandlerRegistry } from '../registry.js';
import { contentFeedHandlers, lastChangeOf } from './content-feeds.js';
import { contentPreviewHandlers, type PreviewSource } from './content-preview.js';

// The HTML renderer (markdown-it, sanitize-html) only ever loads in its worker thread, started on
// the first include=html; the feeds' libraries load on first use (content-feeds.ts).

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

export interface ContentSite {
  site: SiteInfo;
  cache: CachePolicy;
  /** Renders `include=html` (default: one over `site.siteUrl` with its default budget). */
  renderer?: HtmlRenderer;
}

/**
 * Content operations: every answer is public and cacheable, with a strong ETag of its bytes (for a
 * post with its HTML, of what fixes them: see `withHtml`) and a Last-Modified, and 304 when the
 * client's copy is current (see `isNotModified`). The feeds and the sitemap are in
 * content-feeds.ts, the preview (never cached) in content-preview.ts.
 */
export function contentHandlers(content: ContentQueries, { site, cache, renderer }: ContentSite, previews: PreviewSource): ContentHandlers {
  const conditional = conditionalAnswers(cache);
  const html = renderer ?? new HtmlRenderer({ siteUrl: site.siteUrl });

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

  return {
    ...contentPreviewHandlers(content, html, contentApiUrl, previews, site.title),
    ...contentFeedHandlers(content, html, site, conditional),

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
      const [items, changed] = await Promise.all([content.tags(), lastChangeOf(content)]);
      return json(headers, { items }, changed);
    },
  };
}
