/**
 * The admin app end to end in a real browser (see harness.ts): sign in, the posts list at 1440 and
 * 360 px wide, light and dark, keyboard only; the editor and the conflict flow with two browser
 * contexts. On the embedded store and on PostgreSQL.
 */
import { beforeAll, expect, it } from 'vitest';
import { ADMIN, describeAdmin, seriousViolations } from './harness.js';

describeAdmin('the admin app in headless Chromium', (site) => {
  beforeAll(async () => {
    const created = await site.api().POST('/posts', { body: { title: 'Written through the API', body: 'Hello from the API.' } });
    expect(created.response.status).toBe(201);
  });

  it('signs in with a created user and lists a post created through the API: no console error, nothing from elsewhere, no serious axe violation (light and dark), only the refresh token in storage, none after sign-out', async () => {
    const page = await site.page();

    // Signed out, /admin/ leads to the sign-in page.
    await page.goto(`${site.base()}/admin/`);
    await page.getByRole('heading', { level: 1, name: 'Sign in to MarginCMS' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/admin/sign-in');
    expect(await seriousViolations(page)).toEqual([]);
    await site.screenshot(page, 'sign-in');

    // Keyboard only: Tab to each field, type, Enter submits.
    await page.keyboard.press('Tab');
    expect(await page.evaluate<string>('document.activeElement.id')).toBe('email');
    await page.keyboard.type(ADMIN.email);
    await page.keyboard.press('Tab');
    expect(await page.evaluate<string>('document.activeElement.id')).toBe('password');
    await page.keyboard.type(ADMIN.password);
    await page.keyboard.press('Enter');

    await page.getByRole('cell', { name: 'Written through the API', exact: true }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/admin/posts');
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Posts');
    expect(await seriousViolations(page)).toEqual([]);
    await site.screenshot(page, 'posts-1440');
    // Focus moved to the new page's main landmark, so the next Tab reaches its first control.
    expect(await page.evaluate<string>('document.activeElement.id')).toBe('main');
    expect(await page.title()).toBe('Posts: drafts · MarginCMS');
    await page.keyboard.press('Tab');
    expect(await page.evaluate<string>('document.activeElement.textContent')).toBe('Drafts');
    // Back through Sign out and each link of the main navigation to the skip link.
    const navLinks = await page.getByRole('navigation', { name: 'Main' }).getByRole('link').count();
    await page.keyboard.down('Shift');
    for (let i = 0; i < navLinks + 2; i += 1) await page.keyboard.press('Tab');
    await page.keyboard.up('Shift');
    expect(await page.evaluate<string>('document.activeElement.textContent')).toBe('Skip to content');

    // 360 px wide: one column, nothing wider than the screen, still no serious violation.
    await page.setViewportSize({ width: 360, height: 740 });
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(360);
    expect(await seriousViolations(page)).toEqual([]);
    await site.screenshot(page, 'posts-360', true);

    // Dark, as the system prefers: its own colours, and their contrast holds.
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await page.evaluate<string>('getComputedStyle(document.body).backgroundColor')).toBe('rgb(22, 24, 29)');
    expect(await seriousViolations(page)).toEqual([]);
    await site.screenshot(page, 'posts-360-dark', true);

    // The access token lives in the client's memory; only the refresh token is kept, and no cookie.
    expect(await page.evaluate<unknown[]>('[Object.keys(localStorage), sessionStorage.length, document.cookie]')).toEqual([
      ['margincms:refresh-token'],
      0,
      '',
    ]);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { level: 1, name: 'Sign in to MarginCMS' }).waitFor();
    expect(await page.evaluate<number>('localStorage.length')).toBe(0);

    site.expectClean(page);
    await page.context().close();
  });

  it('creates a post in the editor (loaded on demand); two contexts edit it, the later save gets the conflict banner, and "Apply mine on top" saves both edits: axe clean on the editor and the banner; no local copy left once saved', async () => {
    const ada = await site.page();
    // Bob's stale save is answered 412, which Chromium logs as a failed resource: that one is expected.
    const bob = await site.page({ expected: [/HTTP 412: PATCH /, /status of 412/] });

    // Ada writes a new post: the slug follows the title, Ctrl+S saves, the URL becomes the post's.
    await site.signIn(ada);
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
    await site.screenshot(ada, 'editor-1440', true);

    // Bob opens it from the list; then Ada changes the title and saves (version 2).
    await site.signIn(bob);
    await bob.getByRole('link', { name: 'Two authors, one post' }).click();
    await bob.getByRole('heading', { level: 1, name: 'Edit post' }).waitFor();
    await ada.getByLabel('Title').fill('Two authors, one post, retitled');
    await ada.getByRole('button', { name: 'Save' }).click();
    await ada.getByText('Saved: version 2.').waitFor();

    // Bob, still on version 1, changes the body's second line and saves: 412, the banner.
    await bob.getByLabel('Body (markdown)').fill('The first line.\nBob rewrote the second line.');
    await bob.getByRole('button', { name: 'Save' }).click();
    const banner = bob.getByRole('alert', { name: 'Someone else saved this post meanwhile' });
    await banner.waitFor();
    expect(await banner.getByRole('term').allTextContents()).toEqual(['Title', 'Body']);
    expect(await banner.locator('del').allTextContents()).toEqual(['Only in theirs: The second line.']);
    expect(await banner.locator('ins').allTextContents()).toEqual(['Only in yours: Bob rewrote the second line.']);
    expect(await seriousViolations(bob)).toEqual([]);
    await site.screenshot(bob, 'editor-conflict-1440', true);

    await banner.getByRole('button', { name: 'Apply mine on top' }).click();
    await bob.getByText('Saved: version 3.').waitFor();
    expect(await banner.count()).toBe(0);
    // Ada's title, which Bob had not touched, came along; Bob's body is on top.
    expect(await bob.getByLabel('Title').inputValue()).toBe('Two authors, one post, retitled');
    const saved = await site.api().GET('/posts/{id}', { params: { path: { id: id! } } });
    expect(saved.data).toMatchObject({
      version: 3,
      title: 'Two authors, one post, retitled',
      slug: 'two-authors-one-post',
      body: 'The first line.\nBob rewrote the second line.',
    });

    // Saved work leaves no local copy behind (it is kept only while a form has changes).
    const copies = "Object.keys(localStorage).filter((key) => key.startsWith('margincms:unsaved:')).length";
    expect(await ada.evaluate<number>(copies)).toBe(0);
    expect(await bob.evaluate<number>(copies)).toBe(0);
    site.expectClean(ada);
    site.expectClean(bob);
    await ada.context().close();
    await bob.context().close();
  });
});
