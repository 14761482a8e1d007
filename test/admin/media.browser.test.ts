/**
 * Images end to end in Chromium (see harness.ts): a real PNG uploaded to the media library, its
 * alt text set there, picked as a post's cover; another dropped on the library and one pasted into
 * the body, inserted as markdown at the cursor and shown by the preview. The media files come from
 * the server's public URL (http://localhost:<port>) while the admin is opened as 127.0.0.1: the
 * admin's CSP lets them load. On the embedded store and on PostgreSQL.
 */
import sharp from 'sharp';
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { describeAdmin, seriousViolations } from './harness.js';

/** A PNG of `width` × `height`: a sky in two colours, a sun and the sea (drawn from SVG by sharp), each its own image. */
async function png(width: number, height: number, sky: [string, string], sun: string): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
    <defs><linearGradient id="sky" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="${sky[0]}"/><stop offset="1" stop-color="${sky[1]}"/></linearGradient></defs>
    <rect width="100%" height="100%" fill="url(#sky)"/>
    <circle cx="${width * 0.68}" cy="${height * 0.55}" r="${height * 0.14}" fill="${sun}"/>
    <rect y="${height * 0.66}" width="100%" height="${height * 0.34}" fill="#1d3557"/>
  </svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}

/**
 * Waits until the images `selector` finds have loaded: their pixels came (from the media origin,
 * which the admin's CSP must allow) and decoded. Polled from here: the page's CSP refuses the
 * string evaluation that waitForFunction would do in it.
 */
async function loaded(page: Page, selector: string): Promise<void> {
  const check = `(() => { const all = [...document.querySelectorAll(${JSON.stringify(selector)})];
    return all.length > 0 && all.every((img) => img.complete && img.naturalWidth > 0); })()`;
  for (let tries = 0; tries < 100; tries += 1) {
    if (await page.evaluate<boolean>(check)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the images at ${selector} did not load`);
}

/** Hands `bytes` to the page as a File `name` in a DataTransfer, then fires `script` with it as `dt`. */
async function withFile(page: Page, bytes: Buffer, name: string, script: string): Promise<void> {
  await page.evaluate(`(() => {
    const bytes = Uint8Array.from(atob(${JSON.stringify(bytes.toString('base64'))}), (c) => c.charCodeAt(0));
    const dt = new DataTransfer();
    dt.items.add(new File([bytes], ${JSON.stringify(name)}, { type: 'image/png' }));
    ${script}
  })()`);
}

describeAdmin('images in the admin in headless Chromium', (site) => {
  it('uploads a PNG to the library, sets its alt text, picks it as a post’s cover, pastes another into the body (markdown at the cursor, shown by the preview), saves: after a reload the cover is still there; axe clean', async () => {
    const page = await site.page();
    // Generous: sign-in hashes with Argon2 and uploads decode with sharp, on a shared machine.
    page.setDefaultTimeout(20_000);
    const created = await site.api().POST('/posts', { body: { title: 'Harbour notes', body: 'First line.\n' } });
    const postId = created.data!.id;
    await site.signIn(page);

    // The library: a real PNG through the file input.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Media' }).click();
    await page.getByRole('heading', { level: 1, name: 'Media' }).waitFor();
    await page
      .getByLabel('Choose images')
      .setInputFiles({ name: 'harbour.png', mimeType: 'image/png', buffer: await png(800, 500, ['#8ecae6', '#ffb703'], '#fb8500') });
    await page.getByText('Uploaded harbour.png.').waitFor();
    const card = page.getByRole('listitem', { name: /^Image [a-z2-7]{26}$/ });
    const thumb = card.locator('img');
    expect(await thumb.getAttribute('src')).toMatch(new RegExp(`^${site.apiUrl()}/api/v1/content/media/[a-z2-7]{26}/320\\.webp$`));
    expect([await thumb.getAttribute('width'), await thumb.getAttribute('height'), await thumb.getAttribute('loading')]).toEqual([
      '320',
      '200',
      'lazy',
    ]);
    await loaded(page, '.media-card img');

    // Its alt text, saved with PATCH.
    await card.getByLabel('Alt text').fill('A harbour at dawn');
    await card.getByRole('button', { name: 'Save texts' }).click();
    await page.getByRole('listitem', { name: 'A harbour at dawn' }).getByText('Saved.').waitFor();

    // Another, dropped on the drop zone.
    await withFile(
      page,
      await png(400, 300, ['#ff006e', '#ffbe0b'], '#fff3b0'),
      'sunset.png',
      `document.querySelector('.drop-zone').dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));`,
    );
    await page.getByText('Uploaded sunset.png.').waitFor();
    expect(await page.locator('.media-card').count()).toBe(2);
    expect(await seriousViolations(page)).toEqual([]);
    await site.screenshot(page, 'media-library', true);

    // The post: the cover from the library.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Posts' }).click();
    await page.getByRole('link', { name: 'Harbour notes' }).click();
    await page.getByRole('heading', { level: 1, name: 'Edit post' }).waitFor();
    const cover = page.getByRole('group', { name: 'Cover image' });
    await cover.getByRole('button', { name: 'Choose a cover' }).click();
    await cover.getByRole('button', { name: 'Use A harbour at dawn' }).click();
    const coverThumb = cover.getByRole('img', { name: 'A harbour at dawn' });
    await coverThumb.waitFor();
    await loaded(page, '.cover-thumb');
    await page.getByLabel('SEO description').fill('Notes from the harbour.');

    // A third image pasted into the body at the cursor (the start of the empty last line), a paragraph of its own.
    const body = page.getByLabel('Body (markdown)');
    await body.click();
    await page.keyboard.press('Control+End');
    await withFile(
      page,
      await png(640, 400, ['#caf0f8', '#90e0ef'], '#ffd166'),
      'pier.png',
      `document.querySelector('.cm-content').dispatchEvent(new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }));`,
    );
    await page.getByText('Inserted pier.png.').waitFor();
    const text = await page.evaluate<string>('[...document.querySelectorAll(".cm-line")].map((line) => line.textContent).join("\\n")');
    expect(text).toMatch(
      new RegExp(`^First line\\.\\n\\n!\\[pier\\]\\(${site.apiUrl()}/api/v1/content/media/[a-z2-7]{26}/original\\.png\\)$`),
    );
    const preview = page.getByRole('region', { name: 'Preview' });
    const pier = preview.getByRole('img', { name: 'pier' });
    await pier.waitFor();
    await loaded(page, '#post-preview img');

    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved: version 2.').waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await site.screenshot(page, 'editor-cover', true);

    const saved = await site.api().GET('/posts/{id}', { params: { path: { id: postId } } });
    expect(saved.data).toMatchObject({
      coverImage: { alt: 'A harbour at dawn' },
      seo: { title: null, description: 'Notes from the harbour.', canonicalUrl: null },
    });
    expect(saved.data?.body).toBe(text);

    // A reload keeps the session (its refresh token kept in this browser): back to the post, cover and all.
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Edit post' }).waitFor();
    const again = page.getByRole('group', { name: 'Cover image' });
    await again.getByRole('img', { name: 'A harbour at dawn' }).waitFor();
    expect(await again.getByLabel('Alt text of the cover').inputValue()).toBe('A harbour at dawn');
    expect(await page.getByLabel('SEO description').inputValue()).toBe('Notes from the harbour.');

    site.expectClean(page);
    await page.context().close();
    // Three uploads through sharp, a sign-in and two axe runs.
  }, 90_000);
});
