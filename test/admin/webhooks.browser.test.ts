/**
 * Webhooks and preview links end to end in Chromium (see harness.ts), on a server that allows
 * loopback receivers (as WEBHOOK_ALLOW_PRIVATE_NETWORKS=true does): a subscription created on the
 * Webhooks page to a receiver on 127.0.0.1 shows its secret once, receives a post published
 * through the API (the worker run once), and its log says so; a draft's preview link, created in
 * the editor, opens in the browser on the Content API and shows the draft. axe on the Webhooks
 * page. On the embedded store and on PostgreSQL.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createHttpWebhookTransport } from '../../src/adapters/webhooks/http-transport.js';
import { describeAdmin, seriousViolations } from './harness.js';

/** A receiver on loopback that answers 204 and keeps each request's event type. */
function useReceiver() {
  const received: string[] = [];
  let server: Server | undefined;
  beforeAll(async () => {
    server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      request.on('end', () => {
        received.push((JSON.parse(body) as { type: string }).type);
        response.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  });
  afterAll(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));
  return { received, url: () => `http://127.0.0.1:${(server!.address() as AddressInfo).port}/hook` };
}

describeAdmin(
  'webhooks and preview links in headless Chromium',
  (site) => {
    const receiver = useReceiver();

    it('creates a subscription to a loopback receiver (its secret once, then gone), which receives post.published; the log shows the delivery; axe clean', async () => {
      const page = await site.page();
      page.setDefaultTimeout(20_000);
      await site.signIn(page);
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Webhooks' }).click();
      await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
      await page.getByText('No subscriptions yet.').waitFor();

      const form = page.getByRole('form', { name: 'New subscription' });
      await form.getByLabel('URL').fill(receiver.url());
      await form.getByLabel('Description').fill('The test receiver');
      await form.getByRole('button', { name: 'Create subscription' }).click();
      const panel = page.getByRole('region', { name: `Signing secret of ${receiver.url()}` });
      const secret = await panel.getByLabel('Secret').inputValue();
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(await seriousViolations(page)).toEqual([]);
      await panel.getByRole('button', { name: 'Dismiss' }).click();
      expect(await page.content()).not.toContain(secret);
      expect(page.url()).not.toContain(secret);
      // Nothing but the session's refresh token is kept in storage.
      expect(await page.evaluate<unknown[]>('[Object.keys(localStorage), sessionStorage.length]')).toEqual([
        ['margincms:refresh-token'],
        0,
      ]);

      const created = await site.api().POST('/posts', { body: { title: 'Told the world', body: 'Live.\n', status: 'published' } });
      expect(created.response.status).toBe(201);
      await site.server().webhookDelivery.runOnce();
      expect(receiver.received).toEqual(['post.published']);

      const item = page.getByRole('listitem', { name: receiver.url() });
      await item.getByRole('button', { name: 'Deliveries' }).click();
      const row = item.getByRole('table', { name: 'Deliveries, the newest first' }).locator('tbody tr');
      await row.getByText('Succeeded').waitFor();
      expect(await row.locator('td').nth(1).textContent()).toBe('post.published');
      expect(await row.locator('td').nth(5).textContent()).toBe('204');
      expect(await seriousViolations(page)).toEqual([]);
      await page.emulateMedia({ colorScheme: 'dark' });
      expect(await seriousViolations(page)).toEqual([]);
      // On a phone: nothing wider than the screen (the log scrolls in its own box).
      await page.setViewportSize({ width: 360, height: 740 });
      expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(360);
      expect(await seriousViolations(page)).toEqual([]);
      site.expectClean(page);
    });

    it('creates a preview link to a draft in the editor; opened in the browser it shows the draft, which the Content API otherwise 404s', async () => {
      const draft = await site.api().POST('/posts', { body: { title: 'Not yet out', body: 'Draft body.\n' } });
      const id = draft.data!.id;
      const page = await site.page();
      page.setDefaultTimeout(20_000);
      await site.signIn(page);
      // Within the app: a reload would forget the session, which lives in memory only.
      await page.getByRole('link', { name: 'Not yet out' }).click();
      await page.getByLabel('Title').waitFor();
      await page.getByRole('button', { name: 'Share preview' }).click();
      await page.getByLabel('Expires after').selectOption('1');
      await page.getByRole('button', { name: 'Create preview link' }).click();
      const panel = page.getByRole('region', { name: 'New preview link' });
      const url = await panel.getByLabel('Preview URL').inputValue();
      expect(url).toMatch(new RegExp(`^${site.apiUrl()}/api/v1/content/preview/[A-Za-z0-9_-]{43}$`));
      await page.getByRole('cell', { name: 'Active' }).waitFor();
      expect(await seriousViolations(page)).toEqual([]);

      // The preview is on the Content API's origin: a tab of its own, not watched as the admin's pages are.
      const preview = await page.context().newPage();
      const answer = await preview.goto(url);
      expect(answer?.status()).toBe(200);
      expect(answer?.headers()['cache-control']).toBe('no-store');
      // A browser is answered the readable page (an API client the JSON: test/http/preview-page.test.ts).
      expect(answer?.headers()['content-type']).toBe('text/html; charset=utf-8');
      await preview.getByRole('heading', { level: 1, name: 'Not yet out' }).waitFor();
      expect((await fetch(`${site.apiUrl()}/api/v1/content/posts/${id}`)).status).toBe(404);
      await preview.close();

      await panel.getByRole('button', { name: 'Dismiss' }).click();
      await page.getByRole('button', { name: /^Revoke the link created/ }).click();
      await page.getByRole('button', { name: 'Yes, revoke it' }).click();
      await page.getByRole('cell', { name: 'Revoked' }).waitFor();
      expect((await fetch(url)).status).toBe(404);
      site.expectClean(page);
    });
  },
  { webhookTransport: createHttpWebhookTransport({ allowPrivateNetworks: true }) },
);
