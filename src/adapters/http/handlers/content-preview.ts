import type { ContentQueries } from '../../../app/content-queries.js';
import type { Post } from '../../../domain/index.js';
import { BinaryBody } from '../binary-body.js';
import type { ContentApiUrl } from '../content/feeds.js';
import { renderMediaOf, type HtmlRenderer } from '../content/html-renderer.js';
import { coverIdsOf, toContentPost } from '../content/posts.js';
import { previewGonePage, previewPage, previewPageCsp } from '../content/preview-page.js';
import { mediaIdsIn } from '../media-urls.js';
import { HttpProblem } from '../problem.js';
import type { HandlerRegistry } from '../registry.js';

/** What a preview link shows: the post its token names (`previewPost`), or null; and the time. */
export interface PreviewSource {
  post(token: string): Promise<Post | null>;
  now(): Date;
}

/** The headers of every preview: it shows a post as it is at this instant, to whoever holds the link, and no one else. */
const PREVIEW_HEADERS = { 'Cache-Control': 'no-store', 'X-Robots-Tag': 'noindex', Vary: 'Accept, Accept-Encoding' } as const;

/** What a browser's navigation asks for first; any other client (`*\/*`, none, JSON) gets JSON. */
const TYPES = ['application/json', 'text/html'] as const;

const htmlBody = (page: string) => new BinaryBody(Buffer.from(page, 'utf8'), 'text/html; charset=utf-8');

/**
 * getContentPreview: the post of a preview link whatever its status, `publishedAt` its first
 * publication, else its `publishAt`, else now. To a client whose `Accept` prefers `text/html` (a
 * browser), a readable page of it (preview-page.ts: the body rendered as `include=html` renders
 * it); to others the Content API's shape, with `html` when asked for and rendered in time. No ETag:
 * it is never stored. An unknown token, an expired or revoked link and a deleted post are one 404,
 * a page for a browser. `siteTitle` names the site on the pages.
 */
export function contentPreviewHandlers(
  content: ContentQueries,
  renderer: HtmlRenderer,
  contentApiUrl: ContentApiUrl,
  previews: PreviewSource,
  siteTitle: string,
): Pick<HandlerRegistry, 'getContentPreview'> {
  return {
    async getContentPreview(request) {
      const { params, query } = request;
      const asPage = request.prefers(TYPES, 'application/json') === 'text/html';
      const apiUrl = contentApiUrl(request);
      // The page's images come from the Content API's origin, this request's unless PUBLIC_API_URL names one.
      const pageHeaders = { ...PREVIEW_HEADERS, 'Content-Security-Policy': previewPageCsp(new URL(apiUrl).origin) };
      const post = await previews.post(params.token);
      if (post === null) {
        if (asPage) return { status: 404, body: htmlBody(previewGonePage(siteTitle)), headers: pageHeaders };
        throw new HttpProblem(404, 'not-found', 'No post is previewed at this link.');
      }
      const shownDate = post.publishedAt ?? post.publishAt ?? previews.now();
      const shown = { ...post, publishedAt: shownDate };
      const include = asPage || query.include === 'html';
      const media = await content.media(include ? [...coverIdsOf([post]), ...mediaIdsIn(post.body)] : coverIdsOf([post]));
      const body = toContentPost(shown, media, apiUrl);
      if (!include) return { status: 200, body, headers: PREVIEW_HEADERS };
      const rendered = await renderer.html(post, [...media.values()].map(renderMediaOf));
      if (!asPage) return { status: 200, body: rendered === null ? body : { ...body, html: rendered }, headers: PREVIEW_HEADERS };
      const page = previewPage({
        ...post,
        shownDate,
        coverImage: body.coverImage,
        html: rendered,
        markdown: post.body,
        siteTitle,
      });
      return { status: 200, body: htmlBody(page), headers: pageHeaders };
    },
  };
}
