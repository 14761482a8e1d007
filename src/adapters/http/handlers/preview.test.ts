import { afterEach, describe, expect, it } from 'vitest';
import type { Media } from '../../../domain/media.js';
import { HtmlRenderer, type HtmlRendererOptions } from '../content/html-renderer.js';
import { RENDER_LIMITS } from '../content/markdown-html.js';
import { HttpProblem } from '../problem.js';
import { previewHandlers } from './preview.js';

const HOSTILE = Array.from({ length: 148_000 }, () => '<div>').join('\n');

/** A library without media. */
const NO_MEDIA = { media: () => Promise.resolve(new Map()) };

const renderers: HtmlRenderer[] = [];
afterEach(async () => {
  await Promise.all(renderers.splice(0).map((renderer) => renderer.close()));
});

function preview(options: Partial<HtmlRendererOptions> = {}) {
  const renderer = new HtmlRenderer({ siteUrl: 'https://blog.example.com', ...options });
  renderers.push(renderer);
  const { renderPreview } = previewHandlers(renderer, NO_MEDIA);
  return (body: string) => renderPreview({ body: { body } } as Parameters<typeof renderPreview>[0]);
}

async function problemOf(answer: Promise<unknown>): Promise<HttpProblem> {
  const error: unknown = await answer.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(HttpProblem);
  return error as HttpProblem;
}

describe('renderPreview', () => {
  it('answers 200 with the sanitised HTML of the body', async () => {
    expect(await preview()('*hi*<script>x()</script>')).toEqual({ status: 200, body: { html: '<p><em>hi</em></p>\n' } });
  });

  it('looks up the media the body links to and renders their images with their size and srcset', async () => {
    const id = 'd3rmw6a2ztq5hkx4np7ucb2fya';
    const files = [{ name: 'original.gif', contentType: 'image/gif', width: 200, height: 100, bytes: 10, sha256: 'a'.repeat(64) }];
    const asked: string[][] = [];
    const library = {
      media: (ids: Iterable<string>) => {
        asked.push([...ids]);
        return Promise.resolve(new Map([[id, { id, files } as unknown as Media]]));
      },
    };
    const renderer = new HtmlRenderer({ siteUrl: 'https://blog.example.com' });
    renderers.push(renderer);
    const { renderPreview } = previewHandlers(renderer, library);
    const src = `/api/v1/content/media/${id}/original.gif`;
    const answer = await renderPreview({ body: { body: `![a](${src}) ![b](${src})` } } as Parameters<typeof renderPreview>[0]);
    expect(asked).toEqual([[id]]);
    const img = `<img src="${src}" alt="a" width="200" height="100" srcset="${src} 200w" sizes="(max-width: 800px) 100vw, 800px" loading="lazy" decoding="async" />`;
    expect(answer).toEqual({ status: 200, body: { html: `<p>${img} ${img.replace('alt="a"', 'alt="b"')}</p>\n` } });
  });

  it('answers 422 at /body/body when the body cannot render within the budget, and renders the next body', async () => {
    const render = preview({ budgetMs: 300 });
    await render('warm'); // the worker's start is not part of the budget
    const problem = await problemOf(render(HOSTILE));
    expect(problem.status).toBe(422);
    expect(problem.body().errors).toEqual([{ pointer: '/body/body', message: 'could not be rendered within 300 ms' }]);
    expect(await render('*fine*')).toEqual({ status: 200, body: { html: '<p><em>fine</em></p>\n' } });
  });

  it("answers 422 at /body/body when the body is past the renderer's size limits, saying which", async () => {
    const problem = await problemOf(preview()('x'.repeat(RENDER_LIMITS.bodyChars + 1)));
    expect(problem.status).toBe(422);
    expect(problem.body().errors).toEqual([
      { pointer: '/body/body', message: `is too large to render: the body is longer than ${RENDER_LIMITS.bodyChars} characters` },
    ]);
  });

  it('answers 503 with Retry-After when too many bodies wait for the renderer', async () => {
    const problem = await problemOf(preview({ maxWaiting: 0 })('x'));
    expect(problem.status).toBe(503);
    expect(problem.kind).toBe('service-unavailable');
    expect(problem.headers).toEqual({ 'retry-after': '1' });
  });

  it("answers 503 with Retry-After, not 422, when the worker fails: a crash is not the body's fault", async () => {
    const failing = { budgetMs: 2000, preview: () => Promise.resolve({ failed: 'error' as const }) } as unknown as HtmlRenderer;
    const { renderPreview } = previewHandlers(failing, NO_MEDIA);
    const problem = await problemOf(renderPreview({ body: { body: 'x' } } as Parameters<typeof renderPreview>[0]));
    expect(problem.status).toBe(503);
    expect(problem.headers).toEqual({ 'retry-after': '1' });
  });
});
