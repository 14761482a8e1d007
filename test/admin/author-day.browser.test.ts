/**
 * An author's working day, walked in Chromium against the built server (`node dist/main.js` on the
 * embedded PGlite default, as `make run` serves it) with a 60-second access token and the real
 * clock: nothing is faked, so every expiry, refresh, storage event and scheduled publish is the
 * one an author meets. Each step asserts what the author sees, and the API says it happened.
 *
 * Sign in; write a draft that saves itself across two token expiries; a scheduled post lands while
 * it is open in a second tab; two tabs on one post; a reload; export → edit a file → import; sign
 * out with unsaved work. About three minutes, most of it the two expiries.
 */
import { readFileSync } from 'node:fs';
import { strFromU8, strToU8, unzipSync, zipSync } from 'fflate';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMarginClient, type MarginClient } from '../../src/client/index.js';
import { chromiumPath, launchChromium } from '../support/chromium.js';
import { startBuiltEmbedded } from '../support/server-process.js';
import { watchPage } from './harness.js';

const executable = chromiumPath('test/admin/author-day.browser.test.ts');
const AUTHOR = { email: 'ada@example.com', password: 'a long day at the desk, with tea' };
/** The access token's lifetime here (the least the server takes), and jose's tolerance past it. */
const TOKEN_TTL_SECONDS = 60;
const EXPIRED_AFTER_MS = (TOKEN_TTL_SECONDS + 5 + 2) * 1000;
/** A first PGlite start (initdb and every migration, in WebAssembly) takes half a minute on a busy machine. */
const FIRST_START_SECONDS = 100;
/** An expired access token is answered 401 once before the client refreshes: that is the path walked. */
const EXPIRED = [/^HTTP 401: (GET|PATCH|POST) /, /responded with a status of 401/];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
// Page code is written as strings: this file is type-checked without the DOM's types.
const keptKeys = (page: Page) => page.evaluate<string[]>("Object.keys(localStorage).filter((key) => key.startsWith('margincms:'))");
/** The next successful save (PATCH) `page` sends, its 401 and refresh first if its token expired. */
const nextSave = (page: Page) => page.waitForResponse((r) => r.request().method() === 'PATCH' && r.status() === 200, { timeout: 20_000 });
/** What a person's switch to `page`'s tab does: the tab comes to the front and its window gets focus. */
async function switchTo(page: Page): Promise<void> {
  await page.bringToFront();
  await page.evaluate("window.dispatchEvent(new Event('focus'))");
}

describe.skipIf(executable === null)('an author’s day on the built server, in headless Chromium', () => {
  let stop: (() => void) | undefined;
  let base = '';
  let browser: Browser;
  let api: MarginClient;

  beforeAll(
    async () => {
      const server = await startBuiltEmbedded(
        AUTHOR,
        { ACCESS_TOKEN_TTL_SECONDS: String(TOKEN_TTL_SECONDS), PUBLISH_INTERVAL_SECONDS: '1', LOG_LEVEL: 'warn' },
        FIRST_START_SECONDS,
      );
      base = server.origin;
      stop = server.stop;
      api = createMarginClient({ baseUrl: `${base}/api/v1` });
      expect((await api.login(AUTHOR.email, AUTHOR.password)).response.status).toBe(200);
      browser = await launchChromium(executable!);
    },
    (FIRST_START_SECONDS + 20) * 1000,
  );

  afterAll(async () => {
    await browser?.close();
    stop?.();
  });

  /** The post as the API has it now. */
  async function post(id: string) {
    const found = await api.getPost(id);
    expect(found.response.status).toBe(200);
    return found.data!;
  }

  /** Types `text` at the end of the body, as a person does (a keystroke at a time). */
  async function typeIntoBody(page: Page, text: string): Promise<void> {
    await page.getByLabel('Body (markdown)').click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type(text, { delay: 30 });
  }

  it('writes, shares, reloads, round-trips the site and signs out, and every step shows the author what happened', async () => {
    const context: BrowserContext = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const desk = await context.newPage();
    desk.setDefaultTimeout(15_000);
    const deskErrors = watchPage(desk, base, EXPIRED);

    // 1. Sign in, and start a draft.
    await desk.goto(`${base}/admin/`);
    await desk.getByLabel('Email').fill(AUTHOR.email);
    await desk.getByLabel('Password').fill(AUTHOR.password);
    await desk.keyboard.press('Enter');
    await desk.getByRole('heading', { level: 1, name: 'Posts' }).waitFor();
    const signedInAt = Date.now();
    await desk.getByRole('link', { name: 'New post' }).click();
    await desk.getByLabel('Title').fill('A day at the desk');
    await typeIntoBody(desk, 'Morning: the first paragraph.');
    await desk.getByRole('button', { name: 'Save' }).click();
    await desk.getByRole('heading', { level: 1, name: 'Edit post' }).waitFor();
    const draftId = /\/admin\/posts\/([0-9A-Z]{26})$/.exec(desk.url())?.[1];
    expect(draftId).toBeDefined();
    expect(await post(draftId!)).toMatchObject({ status: 'draft', body: 'Morning: the first paragraph.' });

    // 2. A post scheduled for about a minute from now, open in a second tab (a bookmark: signed in).
    const lunch = await api.createPost({
      title: 'Goes out at lunch',
      body: 'Scheduled.',
      publishAt: new Date(Date.now() + 50_000).toISOString(),
    });
    expect(lunch.response.status).toBe(201);
    const lunchId = lunch.data!.id;
    const shelf = await context.newPage();
    shelf.setDefaultTimeout(15_000);
    const shelfErrors = watchPage(shelf, base, EXPIRED);
    await shelf.goto(`${base}/admin/posts/${lunchId}`);
    await shelf.getByRole('heading', { level: 1, name: 'Edit post' }).waitFor();
    expect(await shelf.getByLabel('Title').inputValue()).toBe('Goes out at lunch');
    expect(await shelf.getByRole('link', { name: /View post/ }).count()).toBe(0);

    // 3. Writing on past the first expiry: the draft saves itself, and the save goes through.
    await switchTo(desk);
    await sleep(signedInAt + EXPIRED_AFTER_MS - Date.now());
    const secondSave = nextSave(desk);
    await typeIntoBody(desk, ' Before lunch: a second one.');
    await secondSave;
    await desk.getByText('Saved.', { exact: true }).waitFor();
    expect((await post(draftId!)).body).toBe('Morning: the first paragraph. Before lunch: a second one.');
    expect(await desk.getByText('The server could not be reached').count()).toBe(0);

    // 4. The scheduled post went out while its tab stood open: back on that tab, it says so.
    await expect.poll(async () => (await post(lunchId)).status, { timeout: 30_000, interval: 500 }).toBe('published');
    await switchTo(shelf);
    await shelf.getByRole('link', { name: /View post/ }).waitFor();
    expect(await shelf.getByRole('alert').count()).toBe(0);

    // 5. Two tabs on one post: the second tab retitles it; back on the first, the new title shows.
    await shelf.goto(`${base}/admin/posts/${draftId}`);
    await shelf.getByRole('heading', { level: 1, name: 'Edit post' }).waitFor();
    await shelf.getByLabel('Title').fill('A day at the desk, retitled');
    await shelf.keyboard.press('Control+s');
    await shelf.getByText(/^Saved/).waitFor();
    await switchTo(desk);
    await expect.poll(() => desk.getByLabel('Title').inputValue(), { timeout: 10_000 }).toBe('A day at the desk, retitled');

    // 6. Past the second expiry, the first tab's next words save on top of the second tab's title.
    await sleep(signedInAt + 2 * EXPIRED_AFTER_MS - Date.now());
    const thirdSave = nextSave(desk);
    await typeIntoBody(desk, ' Afternoon: a third.');
    await thirdSave;
    await desk.getByText('Saved.', { exact: true }).waitFor();
    expect(await post(draftId!)).toMatchObject({
      title: 'A day at the desk, retitled',
      body: 'Morning: the first paragraph. Before lunch: a second one. Afternoon: a third.',
      status: 'draft',
    });

    // 7. A reload keeps the author signed in, on the same post as it now is.
    await desk.reload();
    await desk.getByRole('heading', { level: 1, name: 'Edit post' }).waitFor();
    expect(await desk.getByLabel('Title').inputValue()).toBe('A day at the desk, retitled');
    expect(desk.url()).toBe(`${base}/admin/posts/${draftId}`);

    // 8. Export, edit the draft's file by hand, import: the dry run says what it becomes, and it stays a draft.
    await desk.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Site' }).click();
    await desk.getByRole('heading', { level: 1, name: 'Site' }).waitFor();
    const [download] = await Promise.all([desk.waitForEvent('download'), desk.getByRole('button', { name: 'Download the zip' }).click()]);
    const entries = unzipSync(new Uint8Array(readFileSync((await download.path())!)));
    const draftFile = Object.keys(entries).find(
      (name) => name.endsWith('.md') && strFromU8(entries[name]!).includes('Afternoon: a third.'),
    );
    expect(draftFile).toBeDefined();
    entries[draftFile!] = strToU8(strFromU8(entries[draftFile!]!).replace('Afternoon: a third.', 'Evening: edited by hand.'));
    await desk
      .getByLabel('Zip archive')
      .setInputFiles({ name: 'edited.zip', mimeType: 'application/zip', buffer: Buffer.from(zipSync(entries)) });
    await desk.getByRole('button', { name: 'Check it (dry run)' }).click();
    const dry = desk.getByRole('region', { name: 'Dry run: nothing written yet' });
    await dry.waitFor();
    const row = dry.getByRole('row').filter({ hasText: draftFile! });
    expect(await row.textContent()).toMatch(/draft/i);
    expect(await row.textContent()).toMatch(/body/i);
    expect((await post(draftId!)).body).toContain('Afternoon: a third.');
    await desk.getByRole('button', { name: 'Apply the import' }).click();
    await desk.getByRole('region', { name: 'Imported' }).waitFor();
    expect(await post(draftId!)).toMatchObject({
      status: 'draft',
      body: 'Morning: the first paragraph. Before lunch: a second one. Evening: edited by hand.',
    });
    expect((await post(lunchId)).status).toBe('published');

    // 9. Signing out over unsaved work asks first; then this browser keeps nothing, and the other tab is signed out too.
    await desk.goto(`${base}/admin/posts/${lunchId}`);
    await desk.getByRole('heading', { level: 1, name: 'Edit post' }).waitFor();
    await desk.getByLabel('Title').fill('Goes out at lunch, half an edit');
    // A published post is not saved by itself: the half edit is kept in this browser only.
    await expect.poll(() => keptKeys(desk), { timeout: 5000 }).toContain(`margincms:unsaved:${lunchId}`);
    await desk.getByRole('button', { name: 'Sign out' }).click();
    const ask = desk.getByRole('alertdialog', { name: 'Sign out and discard unsaved changes?' });
    await ask.waitFor();
    await ask.getByRole('button', { name: 'Sign out and discard' }).click();
    await desk.getByRole('button', { name: 'Sign in' }).waitFor();
    await shelf.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(await keptKeys(desk)).toEqual([]);
    expect((await post(lunchId)).title).toBe('Goes out at lunch');

    expect(deskErrors).toEqual([]);
    expect(shelfErrors).toEqual([]);
    await context.close();
  }, 600_000);
});
