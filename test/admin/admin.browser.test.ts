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
import type { Client } from 'openapi-fetch';
import type { Browser, Page } from 'playwright-core';
import { build } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { paths } from '../../generated/api.js';
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
  /** The API as the test's own user, to check what the browsers saved. */
  let api: Client<paths>;

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
    api = client;
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

  /** Signs in in `page` (a context of its own) and waits for the posts list. */
  async function signIn(page: Page): Promise<void> {
    await page.goto(`${base}/admin/sign-in`);
    await page.getByLabel('Email').fill(ADMIN.email);
    await page.getByLabel('Password').fill(ADMIN.password);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Posts' }).waitFor();
  }

  /** Collects what the page logs as an error, bar the answers `expected` names (e.g. `HTTP 412`). */
  function watch(page: Page, expected: RegExp[] = []): string[] {
    const errors: string[] = [];
    const keep = (text: string) => {
      if (!expected.some((pattern) => pattern.test(text))) errors.push(text);
    };
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') keep(`console ${message.type()}: ${message.text()}`);
    });
    page.on('pageerror', (error) => errors.push(`page: ${error.message}`));
    page.on('response', (response) => {
      if (response.status() >= 400) keep(`HTTP ${response.status()}: ${response.request().method()} ${response.url()}`);
    });
    page.on('request', (request) => {
      if (!request.url().startsWith(`${base}/`)) errors.push(`foreign request: ${request.url()}`);
    });
    return errors;
  }

  it('creates a post in the editor (loaded on demand); two contexts edit it, the later save gets the conflict banner, and "Apply mine on top" saves both edits: axe clean on the editor and the banner; no local copy left once saved', async () => {
    const ada = await (await browser.newContext({ viewport: { width: 1440, height: 900 } })).newPage();
    const bob = await (await browser.newContext({ viewport: { width: 1440, height: 900 } })).newPage();
    const adaErrors = watch(ada);
    // Bob's stale save is answered 412, which Chromium logs as a failed resource: that one is expected.
    const stale = [/HTTP 412: PATCH /, /status of 412/];
    const bobErrors = watch(bob, stale);

    // Ada writes a new post: the slug follows the title, Ctrl+S saves, the URL becomes the post's.
    await signIn(ada);
    await ada.getByRole('link', { name: 'New post' }).click();
    await ada.getByRole('heading', { level: 1, name: 'New post' }).waitFor();
    expect(await seriousViolations(ada)).toEqual([]);
    await ada.getByLabel('Title').fill('Two authors, one post');
    expect(await ada.getByLabel('Slug').inputValue()).toBe('two-authors-one-post');
    await ada.getByLabel('Body (markdown)').fill('The first line.\nThe second line.');
    await ada.keyboard.press('Control+s');
    await ada.getByRole('heading', { level: 1, name: 'Edit post' }).waitFor();
    const id = /\/admin\/posts\/([0-9A-Z]{26})$/.exec(ada.url())?.[1];
    expect(id).toBeDefined();
    expect(await seriousViolations(ada)).toEqual([]);
    await ada.screenshot({ path: new URL('editor-1440.png', OUTPUT).pathname, fullPage: true });

    // Bob opens it from the list; then Ada changes the title and saves (version 2).
    await signIn(bob);
    await bob.getByRole('link', { name: 'Two authors, one post' }).click();
    await bob.getByRole('heading', { level: 1, name: 'Edit post' }).waitFor();
    await ada.getByLabel('Title').fill('Two authors, one post, retitled');
    await ada.getByRole('button', { name: 'Save' }).click();
    await ada.getByText('Saved: version 2.').waitFor();

    // Bob, still on version 1, changes the body's second line and saves: 412, the banner.
    await bob.getByLabel('Body (markdown)').fill('The first line.\nBob rewrote the second line.');
    await bob.getByRole('button', { name: 'Save' }).click();
    const banner = bob.getByRole('region', { name: 'Someone else saved this post meanwhile' });
    await banner.waitFor();
    expect(await banner.getByRole('term').allTextContents()).toEqual(['Title', 'Body']);
    expect(await banner.locator('del').allTextContents()).toEqual(['Only in theirs: The second line.']);
    expect(await banner.locator('ins').allTextContents()).toEqual(['Only in yours: Bob rewrote the second line.']);
    expect(await seriousViolations(bob)).toEqual([]);
    await bob.screenshot({ path: new URL('editor-conflict-1440.png', OUTPUT).pathname, fullPage: true });

    await banner.getByRole('button', { name: 'Apply mine on top' }).click();
    await bob.getByText('Saved: version 3.').waitFor();
    expect(await banner.count()).toBe(0);
    // Ada's title, which Bob had not touched, came along; Bob's body is on top.
    expect(await bob.getByLabel('Title').inputValue()).toBe('Two authors, one post, retitled');
    const saved = await api.GET('/posts/{id}', { params: { path: { id: id! } } });
    expect(saved.data).toMatchObject({
      version: 3,
      title: 'Two authors, one post, retitled',
      slug: 'two-authors-one-post',
      body: 'The first line.\nBob rewrote the second line.',
    });

    // Saved work leaves no local copy behind (it is kept only while a form has changes).
    expect(await ada.evaluate<number>('localStorage.length')).toBe(0);
    expect(await bob.evaluate<number>('localStorage.length')).toBe(0);
    expect(adaErrors).toEqual([]);
    expect(bobErrors).toEqual([]);
    await ada.context().close();
    await bob.context().close();
  });
});
