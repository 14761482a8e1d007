import type { ContentQueries } from '../../../app/content-queries.js';
import { renderMediaOf, type HtmlRenderer } from '../content/html-renderer.js';
import { mediaIdsIn } from '../media-urls.js';
import { HttpProblem } from '../problem.js';
import type { HandlerRegistry } from '../registry.js';

/**
 * The editor's preview: the body through the Content API's own rendering code (`HtmlRenderer.preview`:
 * the same markdown, sanitiser, site and budget, in a worker of the preview's own), with the media
 * its images link to looked up as the Content API does, so what the editor shows is what readers
 * will get.
 */
export function previewHandlers(renderer: HtmlRenderer, content: Pick<ContentQueries, 'media'>): Pick<HandlerRegistry, 'renderPreview'> {
  return {
    async renderPreview({ body }) {
      const media = await content.media(mediaIdsIn(body.body));
      const outcome = await renderer.preview(body.body, [...media.values()].map(renderMediaOf));
      if ('html' in outcome) return { status: 200, body: { html: outcome.html } };
      if (outcome.failed === 'busy' || outcome.failed === 'error') {
        // Busy, or the worker failed (a crash is the server's fault, not the body's): try again.
        const detail =
          outcome.failed === 'busy'
            ? 'The preview renderer has too many bodies waiting; retry in a second.'
            : 'The preview renderer failed; retry in a second.';
        throw new HttpProblem(503, 'service-unavailable', detail, {}, { 'retry-after': '1' });
      }
      const message =
        outcome.failed === 'timeout' ? `could not be rendered within ${renderer.budgetMs} ms` : `is too large to render: ${outcome.reason}`;
      throw new HttpProblem(422, 'validation-failed', `The body ${message}; published as it is, readers would get it without HTML.`, {
        errors: [{ pointer: '/body/body', message }],
      });
    },
  };
}
