import type { ContentQueries } from '../../../app/content-queries.js';
import type { Post } from '../../../domain/index.js';
import { renderMediaOf, type HtmlRenderer } from '../content/html-renderer.js';
import { coverIdsOf, toContentPost } from '../content/posts.js';
import { mediaIdsIn } from '../media-urls.js';
import { HttpProblem } from '../problem.js';
import type { HandlerRegistry } from '../registry.js';

/** What a preview link shows: the post its token names (`previewPost`), or null; and the time. */
export interface PreviewSource {
  post(token: string): Promise<Post | null>;
  now(): Date;
}

/** The headers of every preview: it shows a post as it is at this instant, to whoever holds the link, and no one else. */
const PREVIEW_HEADERS = { 'Cache-Control': 'no-store', 'X-Robots-Tag': 'noindex' } as const;

/**
 * getContentPreview: the post of a preview link in the Content API's shape whatever its status,
 * `publishedAt` its first publication, else its `publishAt`, else now; `html` when asked for and
 * rendered in time. No ETag: it is never stored. An unknown token, an expired or revoked link and
 * a deleted post are one 404.
 */
export function contentPreviewHandlers(
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
