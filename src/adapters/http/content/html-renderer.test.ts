import { afterEach, describe, expect, it } from 'vitest';
import { HtmlRenderer, type HtmlRendererOptions } from './html-renderer.js';

const SITE = 'https://blog.example.com';
/** 148,000 unclosed `<div>` lines (888 KB): 8 s of sanitize-html on the event loop before the worker. */
const HOSTILE = Array.from({ length: 148_000 }, () => '<div>').join('\n');

const renderers: HtmlRenderer[] = [];
afterEach(async () => {
  await Promise.all(renderers.splice(0).map((renderer) => renderer.close()));
});

function renderer(options: Partial<HtmlRendererOptions> = {}): HtmlRenderer {
  const made = new HtmlRenderer({ siteUrl: SITE, ...options });
  renderers.push(made);
  return made;
}

/** The longest gap between ticks of a 5 ms interval while `work` runs: how long the event loop was held. */
async function worstLag<T>(work: () => Promise<T>): Promise<{ result: T; lagMs: number; elapsedMs: number }> {
  let worst = 0;
  let last = performance.now();
  const ticker = setInterval(() => {
    const now = performance.now();
    worst = Math.max(worst, now - last);
    last = now;
  }, 5);
  const started = performance.now();
  try {
    const result = await work();
    return { result, lagMs: Math.max(worst, performance.now() - last), elapsedMs: performance.now() - started };
  } finally {
    clearInterval(ticker);
  }
}

describe('HtmlRenderer', () => {
  it('renders a body to sanitised HTML in its worker, marking links off the site', async () => {
    const html = await renderer().html({
      id: 'a',
      version: 1,
      body: '# Hi\n\n<a href="/\\evil.example">x</a> [y](/blog/y)<script>alert(1)</script>',
    });
    expect(html).toBe('<h1>Hi</h1>\n<p><a href="/\\evil.example" rel="nofollow noopener">x</a> <a href="/blog/y">y</a></p>\n');
  });

  it('renders each post version once: the same version asked again, even with another body, answers the first HTML', async () => {
    const r = renderer();
    const concurrent = await Promise.all([
      r.html({ id: 'a', version: 1, body: '*one*' }),
      r.html({ id: 'a', version: 1, body: '*two*' }),
      r.html({ id: 'a', version: 1, body: '*three*' }),
    ]);
    expect(concurrent).toEqual(['<p><em>one</em></p>\n', '<p><em>one</em></p>\n', '<p><em>one</em></p>\n']);
    expect(await r.html({ id: 'a', version: 1, body: '*four*' })).toBe('<p><em>one</em></p>\n');
    expect(await r.html({ id: 'a', version: 2, body: '*five*' })).toBe('<p><em>five</em></p>\n');
    expect(await r.html({ id: 'b', version: 1, body: '*six*' })).toBe('<p><em>six</em></p>\n');
  });

  it('stops a body past its budget and answers null without holding the event loop; the next body renders on a fresh worker', async () => {
    const r = renderer({ budgetMs: 300 });
    await r.html({ id: 'warm', version: 1, body: 'x' }); // the worker's start is not part of the budget
    const { result, lagMs, elapsedMs } = await worstLag(() => r.html({ id: 'hostile', version: 1, body: HOSTILE }));
    expect(result).toBeNull();
    expect(elapsedMs).toBeLessThan(2000);
    expect(lagMs).toBeLessThan(150);
    expect(await r.html({ id: 'after', version: 1, body: '*fine*' })).toBe('<p><em>fine</em></p>\n');
  });

  it('remembers a body that ran out of time: asked again, it is null at once', async () => {
    const r = renderer({ budgetMs: 300 });
    expect(await r.html({ id: 'hostile', version: 1, body: HOSTILE })).toBeNull();
    const { result, elapsedMs } = await worstLag(() => r.html({ id: 'hostile', version: 1, body: HOSTILE }));
    expect(result).toBeNull();
    expect(elapsedMs).toBeLessThan(50);
    // A new version is a new body: it is tried again.
    expect(await r.html({ id: 'hostile', version: 2, body: '*fixed*' })).toBe('<p><em>fixed</em></p>\n');
  });

  it('answers null at once when maxWaiting bodies already wait, without remembering it', async () => {
    const r = renderer({ budgetMs: 300, maxWaiting: 1 });
    const running = r.html({ id: 'hostile', version: 1, body: HOSTILE });
    const waiting = r.html({ id: 'waiting', version: 1, body: '*waits*' });
    expect(await r.html({ id: 'third', version: 1, body: '*third*' })).toBeNull();
    expect(await running).toBeNull();
    expect(await waiting).toBe('<p><em>waits</em></p>\n');
    expect(await r.html({ id: 'third', version: 1, body: '*third*' })).toBe('<p><em>third</em></p>\n');
  });

  it('answers null to what is running or waiting when closed', async () => {
    const r = renderer({ budgetMs: 10_000 });
    const running = r.html({ id: 'hostile', version: 1, body: HOSTILE });
    const waiting = r.html({ id: 'waiting', version: 1, body: '*waits*' });
    await r.close();
    expect(await running).toBeNull();
    expect(await waiting).toBeNull();
  });
});
