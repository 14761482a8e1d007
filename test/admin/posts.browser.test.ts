/**
 * The posts list and the dashboard end to end in a real browser (see harness.ts): the tag filter
 * in the URL, a bulk publish by keyboard with its per-post results, then the posts as the Content
 * API serves them; the dashboard's counts and activity. axe clean, light and dark, 1440 and 360 px.
 */
import type { Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import { describeAdmin, seriousViolations, type AdminSite } from './harness.js';
import { SCHEDULE_TIME } from '../../admin/src/lib/schedule-time.js';

/** No serious axe violation in light and in dark; the page is left light. */
async function expectAxeCleanBothSchemes(page: Page): Promise<void> {
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    expect(await seriousViolations(page), colorScheme).toEqual([]);
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

/** At 360 px wide nothing is wider than the screen (screenshot `${name}-360`); back to 1440 after. */
async function expectNoHorizontalScrollAt360(site: AdminSite, page: Page, name: string): Promise<void> {
  await page.setViewportSize({ width: 360, height: 740 });
  expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(360);
  await site.screenshot(page, `${name}-360`, true);
  await page.setViewportSize({ width: 1440, height: 900 });
}

describeAdmin('the posts list and the dashboard in headless Chromium', (site) => {
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    for (const [title, tags] of [
      ['Bulk one', ['e2e-bulk']],
      ['Bulk two', ['e2e-bulk']],
      ['Left untagged', []],
    ] as const) {
      const created = await site.api().POST('/posts', { body: { title, body: `The body of ${title}.`, tags: [...tags] } });
      expect(created.response.status).toBe(201);
      ids[title] = created.data!.id;
    }
  });

  it('the tag filter narrows the drafts and stays in the URL; two selected by keyboard and published show both results, and the Content API serves them: axe clean with the selection and the results (light and dark), no scroll at 360 px', async () => {
    // The reload below may cut short the browser's own fetch of the icon: that abort is expected.
    const page = await site.page({ expected: [/favicon\.svg \(net::ERR_ABORTED\)/] });
    await site.signIn(page);
    await page.getByRole('cell', { name: 'Left untagged', exact: true }).waitFor();
    expect(await page.getByRole('row').count()).toBe(4);

    await page.getByRole('search').getByLabel('Tag').selectOption('e2e-bulk');
    await page.getByText('2 drafts tagged “e2e-bulk”.').waitFor();
    expect(new URL(page.url()).searchParams.get('tag')).toBe('e2e-bulk');
    // Back and forward walk through the filters.
    await page.goBack();
    await page.getByText('3 drafts.').waitFor();
    expect(await page.getByRole('search').getByLabel('Tag').inputValue()).toBe('');
    await page.goForward();
    await page.getByText('2 drafts tagged “e2e-bulk”.').waitFor();
    // A reload keeps the session (its refresh token kept in this browser) and the filtered list.
    await page.reload();
    await page.getByText('2 drafts tagged “e2e-bulk”.').waitFor();
    expect(await page.getByRole('search').getByLabel('Tag').inputValue()).toBe('e2e-bulk');
    expect(await page.getByRole('cell', { name: 'Left untagged', exact: true }).count()).toBe(0);

    // Select-all is a checkbox like the others: Space on it selects both rows; again, none.
    await page.getByRole('checkbox', { name: 'Select all 2 posts shown' }).focus();
    await page.keyboard.press('Space');
    await page.getByText('2 posts selected.').waitFor();
    await page.keyboard.press('Space');
    await page.getByText('No post selected.').waitFor();

    // Every draft again; two selected by keyboard (Space), Publish by Enter.
    await page.getByRole('search').getByLabel('Tag').selectOption('');
    await page.getByText('3 drafts.').waitFor();
    for (const title of ['Bulk one', 'Bulk two']) {
      await page.getByRole('checkbox', { name: `Select “${title}”` }).focus();
      await page.keyboard.press('Space');
    }
    await page.getByText('2 posts selected.').waitFor();
    await expectAxeCleanBothSchemes(page);
    await page.getByRole('button', { name: 'Publish' }).focus();
    await page.keyboard.press('Enter');

    const results = page.getByRole('region', { name: 'Results of the bulk action' });
    await results.getByText('2 of 2 published.').waitFor();
    expect((await results.getByRole('listitem').allTextContents()).sort()).toEqual([
      '“Bulk one”: published (version 2).',
      '“Bulk two”: published (version 2).',
    ]);
    // The keyboard is still on Publish (now unavailable: nothing is selected).
    expect(await page.evaluate<string>('document.activeElement.textContent')).toBe('Publish');
    expect(await page.getByRole('button', { name: 'Publish' }).getAttribute('aria-disabled')).toBe('true');
    // The list was asked again: both left the drafts. With the last one selected, the page holds all at once.
    await page.getByText('1 draft.').waitFor();
    await page.getByRole('checkbox', { name: 'Select “Left untagged”' }).check();
    await page.getByText('1 post selected.').waitFor();
    await expectAxeCleanBothSchemes(page);
    await site.screenshot(page, 'posts-bulk', true);
    await expectNoHorizontalScrollAt360(site, page, 'posts-bulk');

    for (const title of ['Bulk one', 'Bulk two']) {
      const served = await site.api().GET('/content/posts/{id}', { params: { path: { id: ids[title]! } } });
      expect(served.response.status, title).toBe(200);
      expect(served.data?.title).toBe(title);
    }
    site.expectClean(page);
    await page.context().close();
  });

  it('a post scheduled through the API is listed under Scheduled with its publishing time in local time, and not under Drafts', async () => {
    // A week ahead, to the minute: the scheduler leaves it alone during the test.
    const publishAt = new Date(Math.ceil(Date.now() / 60_000) * 60_000 + 7 * 86_400_000).toISOString();
    const created = await site.api().POST('/posts', { body: { title: 'Scheduled for next week', body: 'Soon.', publishAt } });
    expect(created.response.status).toBe(201);
    const page = await site.page();
    await site.signIn(page);
    await page.getByText(/^\d+ drafts?\.$/).waitFor();
    expect(await page.getByRole('cell', { name: 'Scheduled for next week' }).count()).toBe(0);
    await page.getByRole('navigation', { name: 'Post status' }).getByRole('link', { name: 'Scheduled' }).click();
    const row = page.getByRole('row', { name: /Scheduled for next week/ });
    await row.waitFor();
    expect(new URL(page.url()).searchParams.get('status')).toBe('scheduled');
    expect(await page.getByRole('columnheader', { name: 'Publishes' }).count()).toBe(1);
    const local = await page.evaluate(([iso, options]) => new Intl.DateTimeFormat('en', options).format(new Date(iso)), [
      publishAt,
      SCHEDULE_TIME,
    ] as const);
    expect(await row.locator('time').getAttribute('datetime')).toBe(publishAt);
    expect(await row.locator('time').textContent()).toBe(local);
    await expectAxeCleanBothSchemes(page);
    site.expectClean(page);
    await page.context().close();
  });

  it("the dashboard, from the shell's navigation, shows the counts by status and by tag as the API has them, and the activity links to its posts: axe clean (light and dark), no scroll at 360 px", async () => {
    const { data: stats } = await site.api().GET('/stats');
    const page = await site.page();
    await site.signIn(page);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Dashboard' }).click();
    await page.getByRole('heading', { level: 1, name: 'Dashboard' }).waitFor();
    const status = page.getByRole('region', { name: 'Posts by status' });
    await status.getByRole('row', { name: /Total/ }).waitFor();
    const rows = await status.getByRole('row').allTextContents();
    expect(rows.slice(1)).toEqual([
      `Drafts${stats!.posts.draft - stats!.posts.scheduled}`,
      `Scheduled${stats!.posts.scheduled}`,
      `Published${stats!.posts.published}`,
      `Archived${stats!.posts.archived}`,
      `Total${stats!.posts.total}`,
    ]);
    expect(stats!.posts.total).toBeGreaterThanOrEqual(3);
    expect(stats!.posts.scheduled).toBeGreaterThanOrEqual(1);
    await page.getByRole('region', { name: 'Posts by tag' }).getByRole('row', { name: 'e2e-bulk 2' }).waitFor();
    const activity = page.getByRole('region', { name: 'Recent activity' });
    const link = activity.getByRole('link', { name: '“Bulk one”' }).first();
    await link.waitFor();
    expect(await link.getAttribute('href')).toBe(`/admin/posts/${ids['Bulk one']}`);
    expect(await page.title()).toBe('Dashboard · MarginCMS');
    await expectAxeCleanBothSchemes(page);
    await site.screenshot(page, 'dashboard', true);
    await expectNoHorizontalScrollAt360(site, page, 'dashboard');
    site.expectClean(page);
    await page.context().close();
  });
});
