/**
 * The author's session across reloads and tabs, and the editor's post kept fresh, in Chromium with
 * the browser's own fetch, localStorage, storage events and Web Locks (see harness.ts). The
 * server's clock runs ahead of the browser's by a quarter of an hour at a time, so an access token
 * expires without waiting; and it grants no grace to a refresh token spent twice, so a second
 * spending is a reuse at once (answered 401, the session family revoked) rather than a replay.
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import type { BrowserContext, Page, Response } from 'playwright-core';
import { expect, it } from 'vitest';
import { AheadClock } from '../support/ahead-clock.js';
import { describeAdmin, SCREENSHOTS, watchPage, type AdminSite } from './harness.js';

const clock = new AheadClock();
/**
 * Past the default access-token lifetime (900 s) and its tolerance (60 s), by a minute more: a
 * token refreshed a moment before the clock moves on must be expired too (JWT times are whole seconds).
 */
const EXPIRY = 17 * 60 * 1000;
/** An expired access token is refused once before the refresh: a GET's 401, never a refresh's. */
const EXPIRED = [/^HTTP 401: GET /, /responded with a status of 401/];
const DOCS_SCREENSHOTS = new URL('../../docs/screenshots/', import.meta.url);

/** The API as the admin, signed in afresh (the harness's own token expires with the clock). */
async function api(site: AdminSite) {
  return (await site.server().authedClient()).client;
}

// Page code is written as strings: this file is type-checked without the DOM's types.
/** What this browser keeps in localStorage for the app. */
const kept = (page: Page) => page.evaluate<string[]>("Object.keys(localStorage).filter((key) => key.startsWith('margincms:')).sort()");

/** A second tab in `page`'s browser context, watched as site.page() watches the first. */
async function secondTab(site: AdminSite, context: BrowserContext, expected: RegExp[] = []) {
  const page = await context.newPage();
  page.setDefaultTimeout(8000);
  return { page, errors: watchPage(page, site.base(), expected) };
}

/** Every answer to a refresh in `context`, by status. */
function refreshAnswers(context: BrowserContext): number[] {
  const statuses: number[] = [];
  context.on('response', (response: Response) => {
    if (response.url().endsWith('/api/v1/auth/refresh')) statuses.push(response.status());
  });
  return statuses;
}

/** The successful answers to `paths` (below /api/v1, up to a query) that `page` will get. */
function answered(page: Page, ...paths: string[]): Promise<unknown> {
  return Promise.all(
    paths.map((path) =>
      page
        .waitForResponse((response) => response.status() === 200 && new URL(response.url()).pathname === `/api/v1${path}`)
        .catch((error: unknown) => {
          throw new Error(`no 200 for ${path}`, { cause: error });
        }),
    ),
  );
}

/** Copies the embedded store's screenshot `name` (test-results/admin/) to docs/screenshots/. */
function publish(site: AdminSite, name: string): void {
  if (site.store !== 'embedded') return;
  mkdirSync(DOCS_SCREENSHOTS, { recursive: true });
  copyFileSync(new URL(`${name}-embedded.png`, SCREENSHOTS), new URL(`${name}.png`, DOCS_SCREENSHOTS));
}

async function createPost(site: AdminSite, title: string): Promise<string> {
  const created = await (await api(site)).POST('/posts', { body: { title, body: 'First line.\n' } as never });
  expect(created.response.status).toBe(201);
  return created.data!.id;
}

async function retitle(site: AdminSite, id: string, title: string): Promise<void> {
  const client = await api(site);
  const current = await client.GET('/posts/{id}', { params: { path: { id } } });
  const patched = await client.PATCH('/posts/{id}', {
    params: { path: { id }, header: { 'If-Match': `"${current.data!.version}"` } },
    body: { title },
  });
  expect(patched.response.status).toBe(200);
}

describeAdmin(
  'the session across reloads and tabs, and the post kept fresh, in headless Chromium',
  (site) => {
    it('a reload keeps the session, and a new tab opened on a bookmarked post is signed in', async () => {
      const id = await createPost(site, 'Bookmarked');
      const page = await site.page({ viewport: { width: 1024, height: 640 } });
      page.setDefaultTimeout(8000);
      await site.signIn(page);
      expect(await kept(page)).toEqual(['margincms:refresh-token']);

      await page.reload();
      await page.getByRole('heading', { level: 1, name: 'Posts' }).waitFor();
      await page.getByRole('link', { name: 'Bookmarked' }).waitFor();
      expect(page.url()).toBe(`${site.base()}/admin/posts`);
      await site.screenshot(page, 'session-after-reload');
      publish(site, 'session-after-reload');

      const tab = await secondTab(site, page.context());
      await tab.page.goto(`${site.base()}/admin/posts/${id}`);
      await tab.page.getByRole('heading', { level: 1, name: 'Edit post' }).waitFor();
      expect(await tab.page.getByLabel('Title').inputValue()).toBe('Bookmarked');

      expect(tab.errors).toEqual([]);
      site.expectClean(page);
      await page.context().close();
    });

    it('two tabs whose access tokens expired together both refresh and stay signed in; no refresh token is spent twice', async () => {
      const page = await site.page({ expected: EXPIRED });
      page.setDefaultTimeout(8000);
      const refreshes = refreshAnswers(page.context());
      const listed = answered(page, '/posts', '/tags');
      await site.signIn(page);
      await listed;
      const tab = await secondTab(site, page.context(), EXPIRED);
      const dashboard = answered(tab.page, '/stats', '/activity', '/tags');
      await tab.page.goto(`${site.base()}/admin/dashboard`);
      await dashboard;

      // Each tab then opens a page it has not read yet, so each asks the server; each read must
      // end in a 200, after its refused try and the refresh.
      for (const [first, second] of [
        ['Webhooks', 'Media'],
        ['Media', 'Webhooks'],
      ] as const) {
        clock.advance(EXPIRY);
        const read = Promise.all([answered(page, `/${first.toLowerCase()}`), answered(tab.page, `/${second.toLowerCase()}`)]);
        // Both tabs ask at once with an expired access token.
        await Promise.all([
          page.getByRole('link', { name: first, exact: true }).click(),
          tab.page.getByRole('link', { name: second, exact: true }).click(),
        ]);
        await read;
        await page.getByRole('heading', { level: 1, name: first }).waitFor();
        await tab.page.getByRole('heading', { level: 1, name: second }).waitFor();
      }

      // The second tab's first request, then each tab once per expiry: every one answered 200.
      expect(refreshes).toEqual([200, 200, 200, 200, 200]);
      expect(await page.getByText('The server could not be reached').count()).toBe(0);
      expect(await page.getByRole('heading', { name: 'Sign in to MarginCMS' }).count()).toBe(0);
      expect(await tab.page.getByRole('heading', { name: 'Sign in to MarginCMS' }).count()).toBe(0);
      expect(tab.errors).toEqual([]);
      site.expectClean(page);
      await page.context().close();
    });

    it('signing out in one tab signs the other out, and the browser keeps no token', async () => {
      const page = await site.page();
      page.setDefaultTimeout(8000);
      await site.signIn(page);
      const tab = await secondTab(site, page.context());
      await tab.page.goto(`${site.base()}/admin/dashboard`);
      await tab.page.getByRole('heading', { level: 1, name: 'Dashboard' }).waitFor();

      await tab.page.getByRole('button', { name: 'Sign out' }).click();
      await tab.page.getByRole('heading', { level: 1, name: 'Sign in to MarginCMS' }).waitFor();
      // The first tab, untouched, follows.
      await page.getByRole('heading', { level: 1, name: 'Sign in to MarginCMS' }).waitFor();
      expect(await kept(page)).toEqual([]);
      await page.reload();
      await page.getByRole('heading', { level: 1, name: 'Sign in to MarginCMS' }).waitFor();

      expect(tab.errors).toEqual([]);
      site.expectClean(page);
      await page.context().close();
    });

    it('a post saved elsewhere shows its new title when reopened; over unsaved changes the conflict banner comes up on focus, before any save: an alert, in view and focused', async () => {
      const id = await createPost(site, 'Fresh at first');
      const page = await site.page({ viewport: { width: 1024, height: 640 } });
      page.setDefaultTimeout(8000);
      const writes: string[] = [];
      page.on('request', (request) => {
        if (request.method() === 'PATCH') writes.push(request.url());
      });
      await site.signIn(page);
      await page.getByRole('link', { name: 'Fresh at first' }).click();
      await page.getByRole('heading', { level: 1, name: 'Edit post' }).waitFor();
      await page.getByRole('link', { name: 'Back to the posts' }).click();
      await page.getByRole('heading', { level: 1, name: 'Posts' }).waitFor();

      await retitle(site, id, 'Renamed elsewhere');
      // The list, read moments ago, may still name it as it was; the editor reads it afresh.
      await page.getByRole('link', { name: /^(Fresh at first|Renamed elsewhere)$/ }).click();
      await page.getByRole('heading', { level: 1, name: 'Edit post' }).waitFor();
      await expect.poll(() => page.getByLabel('Title').inputValue()).toBe('Renamed elsewhere');

      // Unsaved changes, the author at the foot of the form by the Save button.
      await page.getByLabel('Excerpt').fill('My unsaved excerpt');
      await page.getByRole('button', { name: 'Save' }).scrollIntoViewIfNeeded();
      await page.getByText('Unsaved changes.').waitFor();
      await retitle(site, id, 'Renamed again elsewhere');
      // The author comes back to the window.
      await page.evaluate("window.dispatchEvent(new Event('focus'))");

      const banner = page.getByRole('alert', { name: 'Someone else saved this post meanwhile' });
      await banner.waitFor();
      await banner.getByText('Your changes are not saved yet.', { exact: false }).waitFor();
      expect(await page.evaluate<string | undefined>("document.activeElement?.getAttribute('aria-labelledby')")).toBe('conflict-title');
      const top = await banner.evaluate((element) => element.getBoundingClientRect().top);
      const height = await page.evaluate<number>('window.innerHeight');
      expect(top).toBeGreaterThanOrEqual(0);
      expect(top).toBeLessThan(height);
      await page.getByText('Conflict: see the notice above.').waitFor();
      expect(await page.getByText('Unsaved changes.').count()).toBe(0);
      expect(await page.getByLabel('Excerpt').inputValue()).toBe('My unsaved excerpt');
      expect(writes).toEqual([]);
      await site.screenshot(page, 'conflict-banner-on-focus');
      publish(site, 'conflict-banner-on-focus');

      site.expectClean(page);
      await page.context().close();
    });

    it('signing out with unsaved changes asks first; afterwards the browser keeps no local copy and no token', async () => {
      const id = await createPost(site, 'Left unsaved');
      const page = await site.page();
      page.setDefaultTimeout(8000);
      await site.signIn(page);
      await page.goto(`${site.base()}/admin/posts/${id}`);
      await page.getByRole('heading', { level: 1, name: 'Edit post' }).waitFor();
      await page.getByLabel('Title').fill('Left unsaved, changed');
      await page.getByText('Unsaved changes.').waitFor();
      expect(await kept(page)).toEqual([`margincms:refresh-token`, `margincms:unsaved:${id}`]);

      await page.getByRole('button', { name: 'Sign out' }).click();
      const dialog = page.getByRole('alertdialog', { name: 'Sign out and discard unsaved changes?' });
      await dialog.waitFor();
      expect(await page.evaluate<string | undefined>('document.activeElement?.textContent')).toBe('Stay signed in');
      await dialog.getByRole('button', { name: 'Sign out and discard' }).click();
      await page.getByRole('heading', { level: 1, name: 'Sign in to MarginCMS' }).waitFor();
      expect(await kept(page)).toEqual([]);

      site.expectClean(page);
      await page.context().close();
    });
  },
  { clock, refreshGraceSeconds: 0 },
);
