/**
 * The author's session across access-token expiries, in Chromium with the browser's own `fetch`
 * (see harness.ts). The server's clock runs ahead of the browser's by a quarter of an hour at a
 * time, so each expiry costs no waiting: the browser still sends the token it holds, the server
 * answers 401, and the typed client must refresh and send the request again.
 */
import { expect, it } from 'vitest';
import { AheadClock } from '../support/ahead-clock.js';
import { describeAdmin } from './harness.js';

const clock = new AheadClock();
/** Past the default access-token lifetime (900 s) and its tolerance. */
const EXPIRY = 16 * 60 * 1000;

describeAdmin(
  'saving after the access token expired, in headless Chromium',
  (site) => {
    it('saves after each of several access-token expiries, and an idle posts list still loads', async () => {
      // Each expiry answers one 401 before the refresh; that is the path under test.
      const page = await site.page({ expected: [/^HTTP 401: /, /responded with a status of 401/] });
      page.setDefaultTimeout(8000);
      await site.signIn(page);
      await page.getByRole('link', { name: 'New post' }).click();
      await page.getByLabel('Title').fill('Written across expiries');
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByRole('heading', { level: 1, name: 'Edit post' }).waitFor();
      const id = /\/admin\/posts\/([0-9A-Z]{26})$/.exec(page.url())?.[1];
      expect(id).toBeDefined();

      for (let expiry = 1; expiry <= 3; expiry += 1) {
        clock.advance(EXPIRY);
        await page.getByLabel('Title').fill(`Written across expiries, take ${expiry}`);
        await page.keyboard.press('Control+s');
        await page.getByText(`Saved: version ${expiry + 1}.`).waitFor();
        // The harness's own token expired with the browser's: sign in afresh to read the post.
        const { client } = await site.server().authedClient();
        const saved = await client.GET('/posts/{id}', { params: { path: { id: id! } } });
        expect(saved.data).toMatchObject({ title: `Written across expiries, take ${expiry}`, version: expiry + 1 });
      }

      // Left idle past another expiry, the list still loads.
      clock.advance(EXPIRY);
      await page.getByRole('link', { name: 'Posts' }).first().click();
      await page.getByRole('heading', { level: 1, name: 'Posts' }).waitFor();
      await page.getByRole('link', { name: 'Written across expiries, take 3' }).waitFor();
      expect(await page.getByText('The server could not be reached').count()).toBe(0);

      site.expectClean(page);
      await page.context().close();
    });
  },
  { clock },
);
