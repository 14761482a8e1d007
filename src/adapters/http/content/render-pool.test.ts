import { afterEach, describe, expect, it } from 'vitest';
import { RENDER_LIMITS } from './markdown-html.js';
import { defaultRenderWorkers, RenderPool, type RenderPoolOptions } from './render-pool.js';

const SITE = 'https://blog.example.com';
/**
 * 148,000 unclosed `<div>` lines: seconds of sanitize-html, so it runs to any budget below that.
 * Budgets here are 1 s, not less: a fresh worker's first quick body must not run out of it on a busy machine.
 */
const HOSTILE = Array.from({ length: 148_000 }, () => '<div>').join('\n');

const pools: RenderPool[] = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((pool) => pool.close()));
});

function pool(options: Partial<RenderPoolOptions> = {}): RenderPool {
  const made = new RenderPool({ workers: 2, budgetMs: 10_000, maxWaiting: 8, ...options });
  pools.push(made);
  return made;
}

const render = (to: RenderPool, markdown: string) => to.render({ markdown, siteUrl: SITE, media: [] });

/** Resolves to how long `promise` took to settle, with its value. */
async function timed<T>(promise: Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await promise;
  return { value, ms: performance.now() - started };
}

describe('defaultRenderWorkers', () => {
  it('is the number of cores, at least 2 and at most 4', () => {
    expect([1, 2, 3, 4, 8, 64].map((cores) => defaultRenderWorkers(cores))).toEqual([2, 2, 3, 4, 4, 4]);
  });
});

describe('RenderPool', () => {
  it('renders a body in another worker while one runs to its budget, at once', async () => {
    const p = pool({ workers: 2 });
    // Both workers started and ready: their start is not what is measured.
    expect(await Promise.all([render(p, 'one'), render(p, 'two')])).toEqual([{ html: '<p>one</p>\n' }, { html: '<p>two</p>\n' }]);
    let hostileSettled = false;
    const hostile = render(p, HOSTILE).finally(() => (hostileSettled = true));
    const quick = await timed(render(p, '*quick*'));
    expect(quick.value).toEqual({ html: '<p><em>quick</em></p>\n' });
    expect(quick.ms).toBeLessThan(1000);
    expect(hostileSettled).toBe(false);
    expect(p.workers).toBe(2);
    await p.close();
    expect(await hostile).toEqual({ failed: 'busy' });
  });

  it('spreads bodies asked at once over as many workers, one started at a time, and no more than `workers`', async () => {
    const p = pool({ workers: 3 });
    const outcomes = Promise.all(Array.from({ length: 5 }, () => render(p, HOSTILE)));
    while (p.workers < 3) await new Promise((resolve) => setTimeout(resolve, 50));
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(p.workers).toBe(3);
    expect(new Set(p.threadIds).size).toBe(3);
    await p.close();
    expect(await outcomes).toEqual(Array.from({ length: 5 }, () => ({ failed: 'busy' })));
  });

  it('renders quick bodies asked at once, in the workers there are', async () => {
    const p = pool({ workers: 3 });
    const bodies = ['a', 'b', 'c', 'd', 'e', 'f'];
    expect(await Promise.all(bodies.map((body) => render(p, body)))).toEqual(bodies.map((body) => ({ html: `<p>${body}</p>\n` })));
    expect(p.workers).toBeLessThanOrEqual(3);
  });

  it('terminates a worker past its budget and starts another in its place when needed; bodies render there', async () => {
    const p = pool({ workers: 2, budgetMs: 1000 });
    expect(await Promise.all([render(p, 'one'), render(p, 'two')])).toEqual([{ html: '<p>one</p>\n' }, { html: '<p>two</p>\n' }]);
    const before = p.threadIds;
    expect(before).toHaveLength(2);
    expect(await render(p, HOSTILE)).toEqual({ failed: 'timeout' });
    // The worker that ran the hostile body is gone; the other is kept.
    const kept = p.threadIds;
    expect(kept).toHaveLength(1);
    expect(before).toContain(kept[0]);
    expect(await Promise.all([render(p, '*a*'), render(p, '*b*')])).toEqual([
      { html: '<p><em>a</em></p>\n' },
      { html: '<p><em>b</em></p>\n' },
    ]);
    const after = p.threadIds;
    expect(after).toHaveLength(2);
    expect(after.filter((id) => !before.includes(id))).toHaveLength(1);
  });

  it('starts a worker in place of one stopped past its budget at once when no other is free', async () => {
    const p = pool({ workers: 1, budgetMs: 1000 });
    expect(await render(p, 'warm')).toEqual({ html: '<p>warm</p>\n' });
    const [stopped] = p.threadIds;
    expect(await render(p, HOSTILE)).toEqual({ failed: 'timeout' });
    expect(p.workers).toBe(1);
    expect(p.threadIds).not.toContain(stopped);
    expect(await render(p, '*next*')).toEqual({ html: '<p><em>next</em></p>\n' });
  });

  it('keeps the bodies waiting for a worker stopped past its budget, and renders them in its replacement', async () => {
    const p = pool({ workers: 1, budgetMs: 1000 });
    const outcomes = await Promise.all([render(p, HOSTILE), render(p, '*first*'), render(p, '*second*')]);
    expect(outcomes).toEqual([{ failed: 'timeout' }, { html: '<p><em>first</em></p>\n' }, { html: '<p><em>second</em></p>\n' }]);
  });

  it('answers too-large with the reason for a body past RENDER_LIMITS, and keeps the worker', async () => {
    const p = pool({ workers: 1 });
    await render(p, 'warm');
    const [kept] = p.threadIds;
    expect(await render(p, 'x'.repeat(RENDER_LIMITS.bodyChars + 1))).toEqual({
      failed: 'too-large',
      reason: `the body is longer than ${RENDER_LIMITS.bodyChars} characters`,
    });
    expect(p.threadIds).toEqual([kept]);
  });

  it('answers busy at once when maxWaiting bodies wait and every worker renders', async () => {
    const p = pool({ workers: 1, budgetMs: 1000, maxWaiting: 1 });
    const running = render(p, HOSTILE);
    const waiting = render(p, '*waits*');
    expect(await render(p, '*third*')).toEqual({ failed: 'busy' });
    expect(await running).toEqual({ failed: 'timeout' });
    expect(await waiting).toEqual({ html: '<p><em>waits</em></p>\n' });
  });

  it('when closed, answers busy to what runs or waits, terminates every worker and leaves no handle open', async () => {
    /** The handles a worker holds open in this thread: its port. */
    const workerHandles = () => process.getActiveResourcesInfo().filter((name) => name === 'MessagePort' || name === 'Worker');
    const handlesBefore = workerHandles().length;
    const p = pool({ workers: 2 });
    await Promise.all([render(p, 'one'), render(p, 'two')]);
    const outcomes = Promise.all([render(p, HOSTILE), render(p, HOSTILE), render(p, '*waits*')]);
    expect(p.workers).toBe(2);
    expect(workerHandles().length).toBeGreaterThan(handlesBefore);
    await p.close();
    expect(await outcomes).toEqual([{ failed: 'busy' }, { failed: 'busy' }, { failed: 'busy' }]);
    expect(p.workers).toBe(0);
    expect(workerHandles()).toHaveLength(handlesBefore);
    expect(await render(p, 'after')).toEqual({ failed: 'busy' });
  });
});
