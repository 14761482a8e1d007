/**
 * The editor's body, preview and schedule end to end in Chromium (see harness.ts): a post written
 * in CodeMirror, its server-rendered preview beside it, scheduled in the author's time zone, then
 * published, and read back from the Content API. On the embedded store and on PostgreSQL.
 */
import { expect, it } from 'vitest';
import { describeAdmin, seriousViolations } from './harness.js';

const BODY =
  '# Hello preview\n\nSome *emphasis* and a [link](https://example.org/).\n\n<script>window.injected = 1</script>\n\n- one\n- two';

describeAdmin('the editor in headless Chromium', (site) => {
  it('writes a post in CodeMirror, previews it as the server renders it, schedules it in the author’s zone and publishes it: the Content API serves the previewed HTML; axe clean light and dark; Tab leaves the body', async () => {
    const page = await site.page({ timezoneId: 'Europe/Paris' });
    page.setDefaultTimeout(8000);
    await site.signIn(page);
    await page.getByRole('link', { name: 'New post' }).click();
    await page.getByRole('heading', { level: 1, name: 'New post' }).waitFor();

    // CodeMirror holds the body (its editable element is labelled "Body (markdown)").
    await page.getByLabel('Title').fill('Previewed and scheduled');
    const body = page.getByLabel('Body (markdown)');
    expect(await body.evaluate((element) => element.classList.contains('cm-content'))).toBe(true);
    const previewed = page.waitForResponse(
      async (response) =>
        response.url().endsWith('/api/v1/preview') && ((await response.json()) as { html: string }).html.includes('<li>two</li>'),
    );
    await body.fill(BODY);
    const { html } = (await (await previewed).json()) as { html: string };

    // The preview shows the server's HTML: the heading, the emphasis, the list; no script.
    const preview = page.getByRole('region', { name: 'Preview' });
    await preview.getByRole('heading', { name: 'Hello preview' }).waitFor();
    expect(await preview.locator('em').textContent()).toBe('emphasis');
    expect(await preview.locator('script').count()).toBe(0);
    expect(html).not.toContain('<script');
    expect(await page.evaluate<unknown>('window.injected')).toBeUndefined();
    expect(await seriousViolations(page)).toEqual([]);
    await site.screenshot(page, 'editor-preview', true);

    // Tab leaves the body for what follows it: the preview's link.
    await body.click();
    await page.keyboard.press('Tab');
    expect(await page.evaluate<unknown>("[document.activeElement.closest('.cm-editor'), document.activeElement.textContent]")).toEqual([
      null,
      'link',
    ]);

    // Scheduled: the publish time is asked in the author's zone, named with its offset.
    await page.getByLabel('Status').selectOption('scheduled');
    const publishAt = page.getByLabel('Publish at (Europe/Paris, UTC+01:00)');
    await publishAt.fill('2027-01-15T09:30');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('heading', { level: 1, name: 'Edit post' }).waitFor();
    const id = /\/admin\/posts\/([0-9A-Z]{26})$/.exec(page.url())?.[1];
    expect(id).toBeDefined();
    const scheduled = await site.api().GET('/posts/{id}', { params: { path: { id: id! } } });
    expect(scheduled.data).toMatchObject({ status: 'draft', publishAt: '2027-01-15T08:30:00.000Z', body: BODY });
    // The saved time, shown back in local time.
    expect(await page.getByLabel('Publish at (Europe/Paris, UTC+01:00)').inputValue()).toBe('2027-01-15T09:30');
    await page.getByText(/^Saved: publishes .*9:30/).waitFor();

    // Dark, as the system prefers: the editor and the preview keep their contrast.
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await seriousViolations(page)).toEqual([]);
    await site.screenshot(page, 'editor-preview-dark', true);

    // Published now: readers get exactly the HTML the preview showed.
    await page.getByLabel('Status').selectOption('published');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved: version 2.').waitFor();
    const content = await site.api().GET('/content/posts/{id}', { params: { path: { id: id! }, query: { include: 'html' } } });
    expect(content.response.status).toBe(200);
    expect(content.data?.html).toBe(html);

    site.expectClean(page);
    await page.context().close();
  });
});
