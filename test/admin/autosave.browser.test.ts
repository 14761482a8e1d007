/**
 * Autosave in Chromium with the browser's own `fetch` (see harness.ts): a draft saves itself a
 * few seconds after typing stops, one revision per burst in its History; a published post waits
 * for Save; a 412 on an autosave shows the conflict banner.
 */
import type { Page, Request } from 'playwright-core';
import { expect, it } from 'vitest';
import { ADMIN, describeAdmin } from './harness.js';

/** The editor's delay (AUTOSAVE_DELAY_MS of admin/src/features/editor/autosave.ts, not imported: this file is type-checked without the DOM's types). */
const AUTOSAVE_DELAY_MS = 2_500;

const rows = (table: ReturnType<Page['getByRole']>) =>
  table.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));

/** The PATCHes `page` sends from now on, as their query strings. */
function patchesOf(page: Page): string[] {
  const sent: string[] = [];
  page.on('request', (request: Request) => {
    if (request.method() === 'PATCH') sent.push(new URL(request.url()).search);
  });
  return sent;
}

describeAdmin('autosave in headless Chromium', (site) => {
  /** Signs in and opens post `title` (on the posts page's `tab`) in the editor, its first preview read. */
  async function openPost(page: Page, title: string, tab = 'Drafts'): Promise<void> {
    const tags = page.waitForResponse((response) => /\/api\/v1\/tags(?:\?|$)/.test(response.url()));
    await site.signIn(page);
    await tags;
    await page.getByRole('link', { name: tab, exact: true }).click();
    const preview = page.waitForResponse((response) => response.url().endsWith('/api/v1/preview'));
    await page.getByRole('link', { name: title }).click();
    await page.getByRole('heading', { level: 1, name: 'Edit post' }).waitFor();
    await preview;
  }

  it('a draft saves itself once typing stops: the API has the body, another browser opens it so, and History has one autosaved revision for the burst', async () => {
    const api = site.api();
    const created = await api.POST('/posts', { body: { title: 'Autosave me', body: 'First line.' } });
    const id = created.data!.id;
    const page = await site.page();
    page.setDefaultTimeout(AUTOSAVE_DELAY_MS + 8000);
    await openPost(page, 'Autosave me');
    const patches = patchesOf(page);

    // A burst: typing, a pause shorter than the delay, typing again; then a second burst.
    const body = page.getByLabel('Body (markdown)');
    await body.click();
    await page.keyboard.press('Control+End');
    const first = page.waitForResponse((response) => response.request().method() === 'PATCH');
    await page.keyboard.type(' Second', { delay: 40 });
    await page.waitForTimeout(AUTOSAVE_DELAY_MS / 2);
    await page.keyboard.type(' line.', { delay: 40 });
    expect((await first).status()).toBe(200);
    await page.getByText('Saved.', { exact: true }).waitFor();
    const second = page.waitForResponse((response) => response.request().method() === 'PATCH');
    await page.keyboard.type(' Third.', { delay: 40 });
    expect((await second).status()).toBe(200);
    expect(patches).toEqual(['?autosave=true', '?autosave=true']);

    const saved = await api.GET('/posts/{id}', { params: { path: { id } } });
    expect(saved.data).toMatchObject({ version: 3, body: 'First line. Second line. Third.' });
    const revisions = await api.GET('/posts/{id}/revisions', { params: { path: { id } } });
    expect(revisions.data?.items.map((r) => [r.version, r.autosave])).toEqual([
      [3, true],
      [1, false],
    ]);

    site.expectClean(page);
    await page.context().close();

    // Another browser (the laptop lost): the post opens with the body saved, nothing local to offer.
    const elsewhere = await site.page();
    elsewhere.setDefaultTimeout(8000);
    await openPost(elsewhere, 'Autosave me');
    expect(await elsewhere.getByLabel('Body (markdown)').locator('.cm-line').allTextContents()).toEqual([
      'First line. Second line. Third.',
    ]);
    expect(await elsewhere.getByRole('heading', { name: /^Unsaved work/ }).count()).toBe(0);

    await elsewhere.getByRole('link', { name: 'History' }).click();
    const table = elsewhere.getByRole('table');
    await table.getByRole('cell', { name: 'Created' }).waitFor();
    const cells = await rows(table);
    expect(cells.map((row) => [row[0], row[1]?.endsWith(' (autosaved)'), row[2]])).toEqual([
      ['3 (current)', true, ADMIN.name],
      ['1', false, ADMIN.name],
    ]);
    site.expectClean(elsewhere);
    await elsewhere.context().close();
  });

  it('a published post does not save itself: its change waits for Save, kept in the local copy meanwhile', async () => {
    const api = site.api();
    const created = await api.POST('/posts', { body: { title: 'Live already', body: 'Live line.', status: 'published' } });
    const id = created.data!.id;
    const page = await site.page();
    page.setDefaultTimeout(AUTOSAVE_DELAY_MS + 8000);
    await openPost(page, 'Live already', 'Published');
    const patches = patchesOf(page);

    await page.getByLabel('Body (markdown)').click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type(' Half an edit', { delay: 40 });
    await page.waitForTimeout(AUTOSAVE_DELAY_MS + 1500);
    expect(patches).toEqual([]);
    await page.getByText('Unsaved changes.').waitFor();
    expect(await page.evaluate<string | null>(`localStorage.getItem('margincms:unsaved:${id}')`)).toContain('Live line. Half an edit');
    expect((await api.GET('/posts/{id}', { params: { path: { id } } })).data).toMatchObject({ version: 1, body: 'Live line.' });

    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved: version 2.').waitFor();
    expect(patches).toEqual(['']);
    const revisions = await api.GET('/posts/{id}/revisions', { params: { path: { id } } });
    expect(revisions.data?.items.map((r) => [r.version, r.autosave])).toEqual([
      [2, false],
      [1, false],
    ]);
    site.expectClean(page);
    await page.context().close();
  });

  it('an autosave of a draft changed meanwhile answers 412 and shows the conflict banner', async () => {
    const api = site.api();
    const created = await api.POST('/posts', { body: { title: 'Shared draft', body: 'Shared line.' } });
    const id = created.data!.id;
    const page = await site.page({ expected: [/^HTTP 412: PATCH /, /responded with a status of 412/] });
    page.setDefaultTimeout(AUTOSAVE_DELAY_MS + 8000);
    await openPost(page, 'Shared draft');
    const theirs = await api.PATCH('/posts/{id}', {
      params: { path: { id }, header: { 'If-Match': '"1"' } },
      body: { title: 'Their title' },
    });
    expect(theirs.response.status).toBe(200);

    await page.getByLabel('Body (markdown)').click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type(' Mine.', { delay: 40 });
    const banner = page.getByRole('alert', { name: 'Someone else saved this post meanwhile' });
    await banner.waitFor();
    expect((await api.GET('/posts/{id}', { params: { path: { id } } })).data).toMatchObject({ version: 2, body: 'Shared line.' });
    site.expectClean(page);
    await page.context().close();
  });
});
