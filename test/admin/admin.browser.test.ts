/**
 * The admin app end to end in a real browser: Debian's Chromium driven by playwright-core (no
 * browser is downloaded), against the server in this process on embedded PGlite, serving a fresh
 * Vite build of admin/ at /admin/ under its CSP. Skipped with a message when no Chromium is
 * installed; under CI=true a missing browser fails (`.ci/run` installs it).
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import axe from 'axe-core';
import type { Browser, Page } from 'playwright-core';
import { build } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveApp } from '../../src/adapters/http/node-server.js';
import { chromiumPath, launchChromium } from '../support/chromium.js';
import { ADMIN, testServer } from '../support/http.js';
import { usePglite } from '../support/stores.js';

const executablePath = chromiumPath('admin.browser.test.ts');
const OUTPUT = new URL('../../test-results/admin/', import.meta.url);

/** The serious and critical violations axe-core finds in the page as it is now. */
async function seriousViolations(page: Page): Promise<string[]> {
  // Evaluated through the DevTools protocol, which the page's CSP does not govern.
  await page.evaluate(axe.source);
  // A string: this file is type-checked without the DOM's types, and runs in the page.
  return page.evaluate<string[]>(`axe.run(document, { resultTypes: ['violations'] }).then(({ violations }) => violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => v.id + ' (' + v.impact + '): ' + v.help + ' at ' + v.nodes.map((n) => n.target.join(' ')).join(', ')))`);
}

describe.skipIf(!executablePath)('the admin app in headless Chromium', () => {
  const pglite = usePglite();
  let browser: Browser;
  let base: string;
  let close: () => void;
  let outDir: string;

  beforeAll(async () => {
    outDir = mkdtempSync(join(tmpdir(), 'margin-admin-build-'));
    // The production build, as `make build` makes it (vitest sets NODE_ENV=test, which Vite would keep).
    const nodeEnv = process.env.NODE_ENV;
    process.env.NODE_ENV = 'production';
    await build({
      configFile: fileURLToPath(new URL('../../admin/vite.config.ts', import.meta.url)),
      logLevel: 'warn',
      build: { outDir, emptyOutDir: true },
    }).finally(() => {
      process.env.NODE_ENV = nodeEnv;
    });
    const server = await testServer({ store: await pglite.make(), adminDir: outDir });
    const { client } = await server.authedClient();
    const created = await client.POST('/posts', { body: { title: 'Written through the API', body: 'Hello from the API.' } });
    expect(created.response.status).toBe(201);
    const http = serveApp(server.app.fetch, { hostname: '127.0.0.1', port: 0 });
    await new Promise((resolve) => http.once('listening', resolve));
    base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
    close = () => http.close();
    browser = await launchChromium(executablePath!);
  });

  afterAll(async () => {
    await browser?.close();
    close?.();
    if (outDir) rmSync(outDir, { recursive: true, force: true });
  });

  it('signs in with a created user and lists a post created through the API: no console error, nothing from elsewhere, no serious axe violation (light and dark), tokens in no storage', async () => {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    const errors: string[] = [];
    const foreign: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') errors.push(`console ${message.type()}: ${message.text()}`);
    });
    page.on('pageerror', (error) => errors.push(`page: ${error.message}`));
    page.on('requestfailed', (request) => errors.push(`request failed: ${request.url()} (${request.failure()?.errorText})`));
    page.on('request', (request) => {
      if (!request.url().startsWith(`${base}/`)) foreign.push(request.url());
    });
    page.on('response', (response) => {
      if (response.status() >= 400) errors.push(`HTTP ${response.status()}: ${response.url()}`);
    });
    mkdirSync(OUTPUT, { recursive: true });

    // Signed out, /admin/ leads to the sign-in page.
    await page.goto(`${base}/admin/`);
    await page.getByRole('heading', { level: 1, name: 'Sign in to MarginCMS' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/admin/sign-in');
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: new URL('sign-in.png', OUTPUT).pathname });

    // Keyboard only: Tab to each field, type, Enter submits.
    await page.keyboard.press('Tab');
    expect(await page.evaluate<string>('document.activeElement.id')).toBe('email');
    await page.keyboard.type(ADMIN.email);
    await page.keyboard.press('Tab');
    expect(await page.evaluate<string>('document.activeElement.id')).toBe('password');
    await page.keyboard.type(ADMIN.password);
    await page.keyboard.press('Enter');

    await page.getByRole('cell', { name: 'Written through the API' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/admin/posts');
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Posts');
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: new URL('posts-1440.png', OUTPUT).pathname });
    // Focus moved to the new page's main landmark, so the next Tab reaches its first control.
    expect(await page.evaluate<string>('document.activeElement.id')).toBe('main');
    expect(await page.title()).toBe('Posts: drafts · MarginCMS');
    await page.keyboard.press('Tab');
    expect(await page.evaluate<string>('document.activeElement.textContent')).toBe('Drafts');
    await page.keyboard.down('Shift');
    for (let i = 0; i < 3; i += 1) await page.keyboard.press('Tab');
    await page.keyboard.up('Shift');
    expect(await page.evaluate<string>('document.activeElement.textContent')).toBe('Skip to content');

    // 360 px wide: one column, nothing wider than the screen, still no serious violation.
    await page.setViewportSize({ width: 360, height: 740 });
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(360);
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: new URL('posts-360.png', OUTPUT).pathname, fullPage: true });

    // Dark, as the system prefers: its own colours, and their contrast holds.
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await page.evaluate<string>('getComputedStyle(document.body).backgroundColor')).toBe('rgb(22, 24, 29)');
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: new URL('posts-360-dark.png', OUTPUT).pathname, fullPage: true });

    // The tokens live in the client's memory only.
    expect(await page.evaluate<unknown[]>('[localStorage.length, sessionStorage.length, document.cookie]')).toEqual([0, 0, '']);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { level: 1, name: 'Sign in to MarginCMS' }).waitFor();

    expect(foreign).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  });
});
