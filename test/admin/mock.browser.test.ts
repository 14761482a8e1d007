/**
 * The admin against the Prism mock, as `make dev` serves it to a frontend developer: the Vite dev
 * server of admin/ (ADMIN_API=mock, its /api proxied to scripts/mock.mjs) in Debian's Chromium.
 * The dev server, not the production build the harness serves, because the development panel that
 * arms `Prefer` exists only there (import.meta.env.DEV; a build leaves it out). Signing in with any
 * password answers the contract's token pair, the list shows its example page, and the panel makes
 * a save answer 412 (the conflict banner, with the example's current post) and then 422 (each
 * field's error beside it), with no console error but those two answers. The Webhooks page renders
 * the examples (a subscription the server disabled, a delivery log, a create's secret) and a 422's
 * `/body/url` message beside the URL.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { createServer, type ViteDevServer } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumPath, launchChromium } from '../support/chromium.js';
import { freePort } from '../support/ports.js';
import { startPrism, type PrismMock } from '../support/prism.js';
import { SCREENSHOTS, seriousViolations, watchPage } from './harness.js';

const executablePath = chromiumPath('the admin against the mock');

/** The admin's dev server as `make dev` starts it, its /api going to the mock at `mockPort`. */
async function startAdminDevServer(mockPort: number, cacheDir: string): Promise<{ server: ViteDevServer; base: string }> {
  // admin/vite.config.ts reads where /api goes from the environment, as under `make dev`.
  Object.assign(process.env, { ADMIN_API: 'mock', MOCK_PORT: String(mockPort) });
  const port = await freePort();
  const server = await createServer({
    configFile: fileURLToPath(new URL('../../admin/vite.config.ts', import.meta.url)),
    // A dependency cache of its own, so that a developer's `make dev` and this test do not share one.
    cacheDir,
    logLevel: 'warn',
    server: { port },
  });
  await server.listen();
  return { server, base: `http://127.0.0.1:${port}` };
}

describe.skipIf(!executablePath)('the admin against the mock (make dev)', () => {
  let mock: PrismMock;
  let admin: { server: ViteDevServer; base: string };
  let browser: Browser;
  const cacheDir = mkdtempSync(join(tmpdir(), 'margin-admin-vite-'));
  beforeAll(async () => {
    mock = await startPrism();
    admin = await startAdminDevServer(Number(new URL(mock.baseUrl).port), cacheDir);
    browser = await launchChromium(executablePath!);
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await admin?.server.close();
    await mock?.stop();
    rmSync(cacheDir, { recursive: true, force: true });
  });

  it('signs in, lists the example posts, saves as version 2, and the panel makes a save answer 412 (the conflict banner) then 422 (the errors beside the fields)', async () => {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    const expected = [
      /HTTP 412: PATCH /,
      /HTTP 422: PATCH /,
      /status of 412 \(Precondition Failed\)/,
      /status of 422 \(Unprocessable Entity\)/,
    ];
    const problems = watchPage(page, admin.base, expected);

    await page.goto(`${admin.base}/admin/`);
    await page.getByLabel('Email').fill('ada@example.com');
    await page.getByLabel('Password').fill('any password: the mock answers the example token pair');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Posts' }).waitFor();
    await page.getByText('37 drafts.').waitFor();
    const titles = page.getByRole('table').getByRole('link');
    expect(await titles.allTextContents()).toEqual(['Writing markdown that ages well', 'Cursor pagination without tears']);

    await titles.first().click();
    await page.getByRole('heading', { level: 1, name: 'Edit post' }).waitFor();
    expect(await page.getByLabel('Title').inputValue()).toBe('Writing markdown that ages well');
    // A plain save: the mock answers the draft one version higher (the PostUpdated example).
    await page.getByLabel('Title').fill('Writing markdown that lasts');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved: version 2.').waitFor();

    // The panel, by keyboard: open it, arm code=412 for the next change.
    const panel = page.getByRole('complementary', { name: 'Development panel' });
    await panel.locator('summary').focus();
    await page.keyboard.press('Enter');
    await panel.getByLabel('Prefer').fill('code=412');
    await panel.getByRole('button', { name: 'Arm' }).press('Enter');
    expect(await panel.getByRole('status').textContent()).toBe(
      'Prefer: code=412 goes with the next change (POST, PATCH, PUT or DELETE), once.',
    );
    expect(await seriousViolations(page)).toEqual([]);
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await seriousViolations(page)).toEqual([]);
    await page.emulateMedia({ colorScheme: 'light' });

    await page.getByLabel('Title').fill('Mine');
    await page.getByRole('button', { name: 'Save' }).click();
    const banner = page.getByRole('alert', { name: 'Someone else saved this post meanwhile' });
    await banner.waitFor();
    expect(await banner.textContent()).toContain('Theirs: Writing markdown that lasts');
    expect(await panel.getByRole('listitem').first().textContent()).toBe('PATCH /posts/{id} (code=412): 412');
    expect(await panel.getByRole('status').textContent()).toBe('Nothing armed: requests go as they are.');
    mkdirSync(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: new URL('mock-conflict-banner.png', SCREENSHOTS).pathname, fullPage: true });

    await panel.getByLabel('Prefer').fill('code=422');
    await panel.getByRole('button', { name: 'Arm' }).click();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Title must not be empty.').waitFor();
    const title = page.getByLabel('Title');
    expect(await title.getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByRole('textbox', { name: 'Slug' }).getAttribute('aria-invalid')).toBe('true');
    expect(problems).toEqual([]);
  }, 120_000);

  it('the Webhooks page renders the examples: the server’s disabledReason, a delivery log, the secret of a create once; code=422 puts the /body/url message beside the URL', async () => {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    const problems = watchPage(page, admin.base, [/HTTP 422: POST /, /status of 422 \(Unprocessable Entity\)/]);
    await page.goto(`${admin.base}/admin/`);
    await page.getByLabel('Email').fill('ada@example.com');
    await page.getByLabel('Password').fill('any password');
    await page.keyboard.press('Enter');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Webhooks' }).click();
    const search = page.getByRole('listitem', { name: 'https://search.example.org/hooks/margin' });
    await search.getByText('The server disabled this subscription').waitFor();
    expect(await search.getByRole('switch', { name: 'Enabled' }).isChecked()).toBe(false);
    const netlify = page.getByRole('listitem', { name: 'https://api.netlify.com/build_hooks/5f3c2a1b9e8d7c6b5a4f3e2d' });
    await netlify.getByRole('button', { name: 'Deliveries' }).click();
    await netlify.getByRole('cell', { name: 'HTTP 503' }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);

    const form = page.getByRole('form', { name: 'New subscription' });
    await form.getByLabel('URL').fill('https://api.netlify.com/build_hooks/5f3c2a1b9e8d7c6b5a4f3e2d');
    await form.getByRole('button', { name: 'Create subscription' }).click();
    const panel = page.getByRole('region', { name: /^Signing secret of / });
    expect(await panel.getByLabel('Secret').inputValue()).toBe('whsec_iI3FlKeccAiLL2YqinBaHmH7QpKZbM4EhBNzUiZvRNM=');
    await panel.getByRole('button', { name: 'Dismiss' }).click();

    const devPanel = page.getByRole('complementary', { name: 'Development panel' });
    await devPanel.locator('summary').click();
    await devPanel.getByLabel('Prefer').fill('code=422');
    await devPanel.getByRole('button', { name: 'Arm' }).click();
    await form.getByLabel('URL').fill('http://10.0.0.12/hook');
    await form.getByRole('button', { name: 'Create subscription' }).click();
    await form.getByText(/resolves to 10\.0\.0\.12, which is not a public address/).waitFor();
    expect(await form.getByLabel('URL').getAttribute('aria-invalid')).toBe('true');
    expect(problems).toEqual([]);
  }, 120_000);
});
