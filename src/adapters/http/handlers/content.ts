import type { ContentQueries } from '../../../app/content-queries.js';
import type { Post } from '../../../domain/index.js';
import { conditionalAnswers, strongEtagOf, type CachePolicy, type Conditions } from '../content/conditional.js';
import type { ContentApiUrl, SiteInfo } from '../content/feeds.js';
import { HtmlRenderer, htmlEtagsOf, renderMediaOf } from '../content/html-renderer.js';
import { coverIdsOf, toContentPost, toContentSummary } from '../content/posts.js';
import { JsonText } from '../json-text.js';
import { mediaIdsIn } from '../media-urls.js';
import { API_ROOT } from '../contract.js';
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

/** The Content API's address: `apiUrl` (PUBLIC_API_URL), else each request's own origin; then the API's root. */
export const contentApiUrlOf =
  (apiUrl: string | null): ContentApiUrl =>
  (request) =>
    `${apiUrl ?? request.origin}${API_ROOT}/content`;

export interface ContentSite {
  site: Omit<SiteInfo, 'contentApiUrl'>;
  /** PUBLIC_API_URL; null: each request's own origin (see `contentApiUrlOf`). */
  apiUrl: string | null;
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
export function contentHandlers(
  content: ContentQueries,
  { site, apiUrl, cache, renderer }: ContentSite,
  previews: PreviewSource,
): ContentHandlers {
  const conditional = conditionalAnswers(cache);
  const html = renderer ?? new HtmlRenderer({ siteUrl: site.siteUrl });

  /** A JSON answer, serialised once: its ETag hashes the text the dispatch then writes as it is. */
  const json = <B>(headers: Conditions, body: B, lastModified: Date) => {
    const serialised = JsonText.of(body);
    return conditional(headers, serialised, strongEtagOf(serialised.text), lastModified);
  };

  const urlOf = contentApiUrlOf(apiUrl);

  /**
   * A post with `html`. Its bytes are fixed by the post's id and version, the renderer's version,
   * the site's address and which media of its cover and body's images exist (their files never
   * change), so the ETag hashes those and a 304 renders nothing; the HTML comes from
   * `HtmlRenderer` (a worker with a time budget, cached by the same). A body it cannot render in
   * time is answered without `html`, `no-store`, under an ETag of its own. The cover's URLs start
   * at `contentApiUrl`, which the ETags hash too.
   */
  async function withHtml(headers: Conditions, post: Post, contentApiUrl: string) {
    const media = await content.media([...coverIdsOf([post]), ...mediaIdsIn(post.body)]);
    const found = [...media.values()].map(renderMediaOf);
    const etags = htmlEtagsOf(post, site.siteUrl, found, contentApiUrl);
    const answer = conditional(headers, undefined, etags.rendered, post.updatedAt);
    if (answer.status === 304) return answer;
    const rendered = await html.html(post, found);
    if (rendered === null) {
      const replyHeaders = { ...answer.headers, ETag: etags.unrendered, 'Cache-Control': 'no-store' };
      return { status: 200 as const, body: toContentPost(post, media, contentApiUrl), headers: replyHeaders };
    }
    return { ...answer, body: { ...toContentPost(post, media, contentApiUrl), html: rendered } };
  }

  const postAnswer = async (headers: Conditions, post: Post, include: 'html' | undefined, contentApiUrl: string) => {
    if (include === 'html') return withHtml(headers, post, contentApiUrl);
    return json(headers, toContentPost(post, await content.media(coverIdsOf([post])), contentApiUrl), post.updatedAt);
  };

  return {
    ...contentPreviewHandlers(content, html, urlOf, previews, site.title),
    ...contentFeedHandlers(content, html, site, urlOf, conditional),

    async listContentPosts(request) {
      const { query, headers } = request;
      const contentApiUrl = urlOf(request);
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

    async getContentPost(request) {
      const { params, query, headers } = request;
      return postAnswer(headers, await content.get(params.id), query.include, urlOf(request));
    },

    async getContentPostBySlug(request) {
      const { params, query, headers } = request;
      return postAnswer(headers, await content.getBySlug(params.slug), query.include, urlOf(request));
    },

    async listContentTags({ headers }) {
      const [items, changed] = await Promise.all([content.tags(), lastChangeOf(content)]);
      return json(headers, { items }, changed);
    },
  };
}
