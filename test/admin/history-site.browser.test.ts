/**
 * The post history and the site page end to end (see harness.ts): a revision restored in the
 * browser is a new version through the API; a zip built here is checked by a dry run, then
 * applied, and its posts exist through the API; the export downloads a zip of the posts. axe on
 * both pages, light and dark. On the embedded store and on PostgreSQL.
 */
import { readFile } from 'node:fs/promises';
import { strFromU8, strToU8, unzipSync, zipSync } from 'fflate';
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import type { UpdatePostRequest } from '../../src/client/index.js';
import { ADMIN, describeAdmin, seriousViolations } from './harness.js';

/** No serious axe violation in light or dark, and nothing wider than 360 px on a phone. */
async function expectAccessible(page: Page): Promise<void> {
  expect(await seriousViolations(page)).toEqual([]);
  await page.emulateMedia({ colorScheme: 'dark' });
  expect(await seriousViolations(page)).toEqual([]);
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 360, height: 740 });
  expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(360);
  expect(await seriousViolations(page)).toEqual([]);
  await page.setViewportSize({ width: 1440, height: 900 });
}

const rows = (page: Page, table: ReturnType<Page['getByRole']>) =>
  table.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));

describeAdmin('the post history and the site page in headless Chromium', (site) => {
  /** Signs in and lets the posts page finish its own reads (the tag filter's /tags), which leaving it at once would abort. */
  async function signIn(page: Page): Promise<void> {
    const tags = page.waitForResponse((response) => /\/api\/v1\/tags(?:\?|$)/.test(response.url()));
    await site.signIn(page);
    await tags;
  }

  it('restores version 1 of a post edited twice: the diff against current first, then a confirmation; the editor shows it and the API has it as version 4', async () => {
    const api = site.api();
    const created = await api.POST('/posts', { body: { title: 'Restore me', body: 'The first body.\nIts second line.', tags: ['one'] } });
    const id = created.data!.id;
    const edits: [number, UpdatePostRequest][] = [
      [1, { title: 'Restore me, edited', body: 'The first body.\nAn edited second line.' }],
      [2, { tags: ['one', 'two'], excerpt: 'Now with an excerpt.' }],
    ];
    for (const [version, patch] of edits) {
      const updated = await api.PATCH('/posts/{id}', { params: { path: { id }, header: { 'If-Match': `"${version}"` } }, body: patch });
      expect(updated.response.status).toBe(200);
    }

    const page = await site.page();
    await signIn(page);
    await page.getByRole('link', { name: 'Restore me, edited' }).click();
    await page.getByRole('link', { name: 'History' }).click();
    await page.getByRole('heading', { level: 1, name: 'History of “Restore me, edited”' }).waitFor();
    const table = page.getByRole('table');
    await table.getByRole('cell', { name: 'Created' }).waitFor();
    expect((await rows(page, table)).map((cells) => [cells[0], cells[2], cells[3]])).toEqual([
      ['3 (current)', ADMIN.name, 'Excerpt, tags'],
      ['2', ADMIN.name, 'Title, body (6 → 7 words)'],
      ['1', ADMIN.name, 'Created'],
    ]);

    await table.getByRole('link', { name: 'With current (version 1)' }).click();
    const comparison = page.getByRole('heading', { level: 3, name: 'What goes from current (version 3) to version 1' });
    await comparison.waitFor();
    expect(await page.locator('.diff-field dt').allTextContents()).toEqual(['Title', 'Excerpt', 'Tags', 'Body']);
    expect(await page.locator('.line-diff del').allTextContents()).toEqual(['Only in current (version 3): An edited second line.']);
    expect(await page.locator('.line-diff ins').allTextContents()).toEqual(['Only in version 1: Its second line.']);
    await expectAccessible(page);
    await site.screenshot(page, 'history', true);

    await page.getByRole('button', { name: 'Restore version 1…' }).click();
    const confirm = page.getByRole('alertdialog', { name: 'Restore version 1?' });
    expect(await seriousViolations(page)).toEqual([]);
    await confirm.getByRole('button', { name: 'Restore version 1' }).click();
    await page.getByRole('heading', { level: 1, name: 'Edit post' }).waitFor();
    expect(await page.getByLabel('Title').inputValue()).toBe('Restore me');
    // CodeMirror holds the body, a line per element.
    const body = page.getByLabel('Body (markdown)');
    expect(await body.locator('.cm-line').allTextContents()).toEqual(['The first body.', 'Its second line.']);

    const after = await api.GET('/posts/{id}', { params: { path: { id } } });
    expect(after.data).toMatchObject({ version: 4, title: 'Restore me', body: 'The first body.\nIts second line.', tags: ['one'] });
    const revisions = await api.GET('/posts/{id}/revisions', { params: { path: { id } } });
    expect(revisions.data?.items.map((r) => r.version)).toEqual([4, 3, 2, 1]);
    site.expectClean(page);
    await page.context().close();
  });

  it('imports a zip: the dry run reports each file and writes nothing, Apply writes the posts, which the API then lists', async () => {
    const archive = zipSync({
      'posts/from-a-zip.md': strToU8('---\ntitle: From a zip\ntags: [imported]\n---\nWritten elsewhere.\n'),
      'posts/another-one.md': strToU8('---\ntitle: Another one\ndraft: false\n---\nAlso written elsewhere.\n'),
      'posts/untitled.md': strToU8('---\ntitle: ""\n---\nNo title.\n'),
      'posts/cover.png': new Uint8Array([137, 80, 78, 71]),
    });
    const slugs = async () =>
      (await site.api().GET('/posts', { params: { query: { q: 'zip' } } })).data?.items.map((post) => post.slug).sort() ?? [];

    const page = await site.page();
    await signIn(page);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Site' }).click();
    await page.getByRole('heading', { level: 1, name: 'Site' }).waitFor();
    await page.getByLabel('Zip archive').setInputFiles({ name: 'site.zip', mimeType: 'application/zip', buffer: Buffer.from(archive) });
    await page.getByRole('button', { name: 'Check it (dry run)' }).click();

    const dry = page.getByRole('region', { name: 'Dry run: nothing written yet' });
    await dry.waitFor();
    expect(await dry.getByText(/^4 files:/).textContent()).toBe('4 files: 2 to create, 0 to update, 0 unchanged, 2 to skip.');
    expect((await rows(page, dry.getByRole('table'))).map((cells) => cells.slice(0, 3))).toEqual([
      ['posts/from-a-zip.md', 'Would create', 'from-a-zip'],
      ['posts/another-one.md', 'Would create', 'another-one'],
      ['posts/untitled.md', 'Would skip', 'untitled'],
      ['posts/cover.png', 'Would skip', ''],
    ]);
    expect(await slugs()).toEqual([]);
    await expectAccessible(page);
    await site.screenshot(page, 'site-import', true);

    await page.getByRole('button', { name: 'Apply the import' }).click();
    const applied = page.getByRole('region', { name: 'Imported' });
    await applied.waitFor();
    expect(await applied.getByText(/^4 files:/).textContent()).toBe('4 files: 2 created, 0 updated, 0 unchanged, 2 skipped.');
    expect(await seriousViolations(page)).toEqual([]);
    const imported = await site.api().GET('/posts', { params: { query: { tag: 'imported' } } });
    expect(imported.data?.items).toMatchObject([{ title: 'From a zip', slug: 'from-a-zip' }]);
    expect((await site.api().GET('/posts', { params: { query: { q: 'another' } } })).data?.items.map((p) => p.slug)).toEqual([
      'another-one',
    ]);
    site.expectClean(page);
    await page.context().close();
  });

  it('exports the posts: the download is a zip whose entries are the posts, each as its markdown file, and the manifest', async () => {
    for (const post of [
      { title: 'Exported draft', body: 'A draft.' },
      { title: 'Exported and published', body: 'Out there.', status: 'published' as const },
    ]) {
      expect((await site.api().POST('/posts', { body: post })).response.status).toBe(201);
    }
    const all = await site.api().GET('/posts', { params: { query: { status: ['draft', 'published', 'archived'], limit: 100 } } });
    const posts = all.data?.items ?? [];
    expect(posts.map((post) => post.slug)).toEqual(expect.arrayContaining(['exported-draft', 'exported-and-published']));

    const page = await site.page();
    await signIn(page);
    // A page load would drop the session (its tokens live in memory only): the way there is the navigation.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Site' }).click();
    await page.getByRole('heading', { level: 1, name: 'Site' }).waitFor();
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download the zip' }).click()]);
    expect(download.suggestedFilename()).toMatch(/^margin-export-\d{4}-\d{2}-\d{2}\.zip$/);
    const entries = unzipSync(new Uint8Array(await readFile((await download.path())!)));
    expect(Object.keys(entries).sort()).toEqual([...posts.map((post) => `${post.slug}.md`), 'manifest.json'].sort());
    const first = posts[0]!;
    expect(strFromU8(entries[`${first.slug}.md`]!)).toContain(`title: ${first.title}`);
    await page.getByText(/^Exported margin-export-/).waitFor();
    site.expectClean(page);
    await page.context().close();
  });
});
