/**
 * The editor's finish in Chromium (see harness.ts), on a server without PUBLIC_API_URL: an image
 * pasted at the start of a heading's line lands as a paragraph of its own, its URL at the origin
 * the browser asked (the page's own); the preview styles the post's headings, code blocks and
 * quotes as a post's, not as the pane's caption; a save keeps the focus where the author was.
 * On the embedded store and on PostgreSQL.
 */
import sharp from 'sharp';
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { describeAdmin } from './harness.js';

const BODY = 'Intro\n## Why another CMS\n\nA paragraph.\n\n```sh\nnpm run build\n```\n\n> A quote.\n';

/** Hands a PNG to the page as `name` in a DataTransfer and pastes it into the body at the cursor. */
async function pasteImage(page: Page, name: string): Promise<void> {
  const bytes = await sharp({ create: { width: 64, height: 32, channels: 3, background: '#2a9d8f' } })
    .png()
    .toBuffer();
  await page.evaluate(`(() => {
    const bytes = Uint8Array.from(atob(${JSON.stringify(bytes.toString('base64'))}), (c) => c.charCodeAt(0));
    const dt = new DataTransfer();
    dt.items.add(new File([bytes], ${JSON.stringify(name)}, { type: 'image/png' }));
    document.querySelector('.cm-content').dispatchEvent(new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }));
  })()`);
}

/** The id of the focused element, or its tag when it has none (BODY: the focus was dropped). */
const focused = (page: Page) =>
  page.evaluate<string>('document.activeElement ? (document.activeElement.id || document.activeElement.tagName) : "none"');

describeAdmin(
  'the editor’s finish in headless Chromium',
  (site) => {
    it('pastes an image at a heading’s line as a paragraph of its own (URL at the page’s origin), previews headings, code and quotes as the post’s, and keeps the focus after Ctrl+S and Save', async () => {
      await site.api().POST('/posts', { body: { title: 'Polish', body: BODY } });
      const page = await site.page();
      page.setDefaultTimeout(10_000);
      await site.signIn(page);
      await page.getByRole('link', { name: 'Polish' }).click();
      await page.getByRole('heading', { level: 1, name: 'Edit post' }).waitFor();

      // The cursor at the start of "## Why another CMS", then an image pasted there.
      const body = page.getByLabel('Body (markdown)');
      await body.click();
      await page.keyboard.press('Control+Home');
      await page.keyboard.press('ArrowDown');
      await pasteImage(page, 'harbour.png');
      await page.getByText('Inserted harbour.png.').waitFor();
      const text = await page.evaluate<string>('[...document.querySelectorAll(".cm-line")].map((line) => line.textContent).join("\\n")');
      const url = `${site.base().replaceAll('.', '\\.')}/api/v1/content/media/[a-z2-7]{26}/original\\.png`;
      expect(text).toMatch(new RegExp(`^Intro\\n\\n!\\[harbour\\]\\(${url}\\)\\n\\n## Why another CMS\\n\\nA paragraph\\.`));

      // The preview: the post's h2 is a heading of the post, not the pane's muted caption; code and quotes are set off.
      const preview = page.getByRole('region', { name: 'Preview' });
      const heading = preview.getByRole('heading', { level: 2, name: 'Why another CMS' });
      await heading.waitFor();
      await preview.getByRole('img', { name: 'harbour' }).waitFor();
      const style = (selector: string, property: string) =>
        page.evaluate<string>(`getComputedStyle(document.querySelector(${JSON.stringify(selector)})).${property}`);
      const caption = await style('#post-preview-title', 'color');
      expect(await style('#post-preview .preview-html h2', 'color')).not.toBe(caption);
      expect(Number.parseFloat(await style('#post-preview .preview-html h2', 'fontSize'))).toBeGreaterThan(
        Number.parseFloat(await style('#post-preview-title', 'fontSize')),
      );
      expect(await style('#post-preview .preview-html pre', 'borderTopWidth')).toBe('1px');
      expect(await style('#post-preview .preview-html pre', 'paddingLeft')).not.toBe('0px');
      expect(await style('#post-preview .preview-html blockquote', 'borderLeftWidth')).toBe('4px');

      // Ctrl+S from the title, from the body, and the Save button: the focus stays where it was.
      await page.getByLabel('Title').fill('Polished');
      await page.keyboard.press('Control+s');
      await page.getByText('Saved: version 2.').waitFor();
      expect(await focused(page)).toBe('post-title');
      await body.click();
      await page.keyboard.press('Control+End');
      await page.keyboard.type(' More.');
      await page.keyboard.press('Control+s');
      await page.getByText('Saved: version 3.').waitFor();
      expect(await focused(page)).toBe('post-body');
      await page.getByLabel('Excerpt').fill('A polished post.');
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByText('Saved: version 4.').waitFor();
      expect(await page.evaluate<string>('document.activeElement.textContent')).toBe('Save');
      site.expectClean(page);
    }, 120_000);
  },
  { content: { apiUrl: null } },
);
