/**
 * A preview link opened as a reviewer opens it: a browser with no session follows the link the
 * API made, over a real socket, and reads the post. The page's own CSP governs it (a stylesheet
 * whose hash were wrong would be refused and logged), so a clean console, the styles applied and
 * the cover loaded prove the page works as served; axe-core checks it in light and dark.
 */
import { mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { components } from '../../generated/api.js';
import { createMemoryStore } from '../../src/adapters/memory/store.js';
import { serveApp } from '../../src/adapters/http/node-server.js';
import { chromiumPath, launchChromium } from '../support/chromium.js';
import { testServer, url } from '../support/http.js';
import { seriousViolations, watchPage } from './harness.js';

type Created = components['schemas']['PreviewLinkCreated'];

/** Where the screenshots go (test-results/ is ignored by git; docs/screenshots/preview.png is one of them). */
const SCREENSHOTS = new URL('../../test-results/preview/', import.meta.url);

const TITLE = 'Cursor pagination without tears';
const ALT = 'Index cards in a long wooden drawer';
const BODY = `Offsets skip and repeat rows while people write. A **keyset cursor** remembers the last
sort key *and* the id, so every row comes back exactly once.

## How it works

1. Sort by \`(created_at, id)\`.
2. Hand the client the last pair as an opaque cursor.
3. Ask for the rows after it.

> A page is a promise about the rows around it, not a number.

\`\`\`sql
select * from posts where (created_at, id) < ($1, $2) order by created_at desc, id desc limit 20;
\`\`\`

Read more in [the PostgreSQL manual](https://www.postgresql.org/docs/current/queries-limit.html).
`;

/** A 1200 × 630 picture for the cover: two bands of colour and a circle, as a PNG. */
function coverPng(): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="1200" height="630">
    <rect width="1200" height="630" fill="#1f6feb"/><rect y="400" width="1200" height="230" fill="#0b3d91"/>
    <circle cx="900" cy="260" r="140" fill="#ffd33d"/></svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}

const executablePath = chromiumPath('the preview page browser test');

describe.skipIf(!executablePath)('a preview link opened in Chromium', () => {
  let browser: Browser;
  let http: ReturnType<typeof serveApp>;
  let base = '';
  let server: Awaited<ReturnType<typeof testServer>>;
  let auth: Record<string, string>;
  let created: Created;
  let postId = '';

  beforeAll(async () => {
    http = serveApp((request, bindings) => server.app.fetch(request, bindings), { hostname: '127.0.0.1', port: 0 });
    await new Promise((resolve) => http.once('listening', resolve));
    base = `http://localhost:${(http.address() as AddressInfo).port}`;
    server = await testServer({ store: createMemoryStore(), content: { apiUrl: base, siteTitle: 'Margin blog' } });
    auth = (await server.authedClient()).headers;
    const upload = await server.fetch(url('/media?alt=unused'), {
      method: 'POST',
      headers: { ...auth, 'content-type': 'image/png' },
      body: new Uint8Array(await coverPng()),
    });
    expect(upload.status).toBe(201);
    const media = (await upload.json()) as { id: string };
    const post = await server.fetch(url('/posts'), {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ title: TITLE, body: BODY, tags: ['api', 'postgres'], coverImage: { mediaId: media.id, alt: ALT } }),
    });
    expect(post.status).toBe(201);
    postId = ((await post.json()) as { id: string }).id;
    const link = await server.fetch(url(`/posts/${postId}/preview-links`), { method: 'POST', headers: auth });
    expect(link.status).toBe(201);
    created = (await link.json()) as Created;
    browser = await launchChromium(executablePath!);
  });

  afterAll(async () => {
    await browser?.close();
    http?.close();
  });

  /** A fresh browser (no session, no cookie: a reviewer), watched from its first request. */
  async function reviewer(options: BrowserContextOptions = {}, expected: RegExp[] = []): Promise<{ page: Page; errors: string[] }> {
    const context = await browser.newContext({ viewport: { width: 900, height: 1000 }, ...options });
    const page = await context.newPage();
    return { page, errors: watchPage(page, base, expected) };
  }

  it('shows the draft as it will look: title, date, cover, body and tags, styled by its own stylesheet, with no error and no serious axe violation', async () => {
    const { page, errors } = await reviewer();
    const response = await page.goto(created.url);
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-type']).toBe('text/html; charset=utf-8');
    expect(await page.title()).toBe(`Preview: ${TITLE} · Margin blog`);

    const article = page.getByRole('main').getByRole('article');
    await expect(article.getByRole('heading', { level: 1, name: TITLE }).isVisible()).resolves.toBe(true);
    await expect(article.getByRole('heading', { level: 2, name: 'How it works' }).isVisible()).resolves.toBe(true);
    await expect(article.getByText('remembers the last').isVisible()).resolves.toBe(true);
    await expect(article.getByRole('link', { name: 'the PostgreSQL manual' }).isVisible()).resolves.toBe(true);
    await expect(page.getByRole('note').textContent()).resolves.toContain('Preview of a draft: not published.');
    const date = article.locator('time');
    expect(await date.getAttribute('datetime')).toMatch(/^\d{4}-\d\d-\d\dT/);

    // The cover came from the API's media under the page's CSP, and is shown at the article's width.
    const cover = article.getByRole('img', { name: ALT });
    await expect(cover.isVisible()).resolves.toBe(true);
    await cover.evaluate((img: { complete: boolean; decode(): Promise<void> }) => (img.complete ? undefined : img.decode()));
    const shown = await cover.evaluate((img: { naturalWidth: number; clientWidth: number }) => [img.naturalWidth, img.clientWidth]);
    expect(shown[0]).toBeGreaterThan(0);
    expect(shown[1]).toBeLessThanOrEqual(672);

    // The inline stylesheet applied (its hash is in the CSP): a column of 42rem, the system font.
    const main = await page.evaluate(
      `(() => { const s = getComputedStyle(document.querySelector('main')); return [s.maxWidth, s.marginLeft !== '0px'] })()`,
    );
    expect(main).toEqual(['672px', true]);

    expect(await seriousViolations(page)).toEqual([]);
    mkdirSync(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: new URL('preview.png', SCREENSHOTS).pathname, fullPage: true });
    expect(errors).toEqual([]);
  });

  it('follows the reader’s dark mode, still without a serious axe violation', async () => {
    const { page, errors } = await reviewer({ colorScheme: 'dark' });
    await page.goto(created.url);
    const colours = await page.evaluate(`(() => { const s = getComputedStyle(document.body); return [s.backgroundColor, s.color] })()`);
    expect(colours).toEqual(['rgb(13, 17, 23)', 'rgb(230, 237, 243)']);
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: new URL('preview-dark.png', SCREENSHOTS).pathname });
    expect(errors).toEqual([]);
  });

  it('shows a page saying the link no longer works once it is revoked (404), with no serious axe violation', async () => {
    const revoked = await server.fetch(url(`/posts/${postId}/preview-links/${created.id}`), { method: 'DELETE', headers: auth });
    expect(revoked.status).toBe(204);
    const { page, errors } = await reviewer({}, [
      /^HTTP 404: GET .*\/content\/preview\//,
      /^console error: Failed to load resource: the server responded with a status of 404/,
    ]);
    const response = await page.goto(created.url);
    expect(response?.status()).toBe(404);
    await expect(page.getByRole('heading', { level: 1, name: 'This preview link does not work' }).isVisible()).resolves.toBe(true);
    await expect(page.getByText(TITLE).count()).resolves.toBe(0);
    expect(await seriousViolations(page)).toEqual([]);
    expect(errors).toEqual([]);
  });
});
