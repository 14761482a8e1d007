import { afterEach, describe, expect, it } from 'vitest';
import { HtmlRenderer, type HtmlRendererOptions } from '../content/html-renderer.js';
import { HttpProblem } from '../problem.js';
import { previewHandlers } from './preview.js';

const HOSTILE = Array.from({ length: 148_000 }, () => '<div>').join('\n');

const renderers: HtmlRenderer[] = [];
afterEach(async () => {
  await Promise.all(renderers.splice(0).map((renderer) => renderer.close()));
});

function preview(options: Partial<HtmlRendererOptions> = {}) {
  const renderer = new HtmlRenderer({ siteUrl: 'https://blog.example.com', ...options });
  renderers.push(renderer);
  const { renderPreview } = previewHandlers(renderer);
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

  it('answers 422 at /body/body when the body cannot render within the budget, and renders the next body', async () => {
    const render = preview({ budgetMs: 300 });
    await render('warm'); // the worker's start is not part of the budget
    const problem = await problemOf(render(HOSTILE));
    expect(problem.status).toBe(422);
    expect(problem.body().errors).toEqual([{ pointer: '/body/body', message: 'could not be rendered within 300 ms' }]);
    expect(await render('*fine*')).toEqual({ status: 200, body: { html: '<p><em>fine</em></p>\n' } });
  });

  it('answers 503 with Retry-After when too many bodies wait for the renderer', async () => {
    const problem = await problemOf(preview({ maxWaiting: 0 })('x'));
    expect(problem.status).toBe(503);
    expect(problem.kind).toBe('service-unavailable');
    expect(problem.headers).toEqual({ 'retry-after': '1' });
  });

  it("answers 503 with Retry-After, not 422, when the worker fails: a crash is not the body's fault", async () => {
    const failing = { budgetMs: 2000, preview: () => Promise.resolve({ failed: 'error' as const }) } as unknown as HtmlRenderer;
    const { renderPreview } = previewHandlers(failing);
    const problem = await problemOf(renderPreview({ body: { body: 'x' } } as Parameters<typeof renderPreview>[0]));
    expect(problem.status).toBe(503);
    expect(problem.headers).toEqual({ 'retry-after': '1' });
  });
});
