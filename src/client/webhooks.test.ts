/**
 * The typed client's webhook and preview link calls against the real app (every response checked
 * against the contract): a subscription's life (create with its secret, get and list without it,
 * update, rotate, delete), its delivery log and redelivery, and a post's preview links.
 */
import { expect, it } from 'vitest';
import { ADMIN, FixedClock, testServer } from '../../test/support/http.js';
import { describeOnEveryStore, type MakeStore } from '../../test/support/stores.js';
import { createMarginClient } from './index.js';

const BASE_URL = 'http://localhost/api/v1';

/** The app over a store, and a signed-in client over it. */
async function serve(make: MakeStore) {
  const clock = new FixedClock(new Date('2026-12-01T10:00:00.000Z'));
  const server = await testServer({ store: await make(), clock });
  const client = createMarginClient({ baseUrl: BASE_URL, fetch: (request) => server.fetch(request) });
  expect((await client.login(ADMIN.email, ADMIN.password)).response.status).toBe(200);
  return { client, server };
}

describeOnEveryStore('createMarginClient: webhooks and preview links', (make) => {
  it('createWebhook answers the secret once; get and list do not; updateWebhook changes and rotates (a new secret); deleteWebhook makes it 404', async () => {
    const { client } = await serve(make);
    const created = await client.createWebhook({ url: 'https://hooks.example.com/a', events: ['post.published'] });
    expect(created.response.status).toBe(201);
    const { id, secret } = created.data!;
    expect(secret).toMatch(/^whsec_/);

    expect((await client.getWebhook(id)).data).not.toHaveProperty('secret');
    expect((await client.listWebhooks()).data?.items.map((hook) => [hook.id, 'secret' in hook])).toEqual([[id, false]]);

    const disabled = await client.updateWebhook(id, { enabled: false, events: ['post.published', 'post.deleted'] });
    expect(disabled.data).toMatchObject({ enabled: false, events: ['post.published', 'post.deleted'] });
    expect(disabled.data).not.toHaveProperty('secret');
    const rotated = await client.updateWebhook(id, { rotateSecret: true });
    expect(rotated.data && 'secret' in rotated.data ? rotated.data.secret : null).toMatch(/^whsec_/);
    expect(rotated.data && 'secret' in rotated.data ? rotated.data.secret : null).not.toBe(secret);

    expect((await client.deleteWebhook(id)).response.status).toBe(204);
    expect((await client.getWebhook(id)).response.status).toBe(404);
  });

  it('createWebhook answers 422 on /body/url for a loopback URL on a server that allows only public addresses', async () => {
    const { client } = await serve(make);
    const refused = await client.createWebhook({ url: 'http://127.0.0.1:9000/hook', events: ['post.published'] });
    expect(refused.response.status).toBe(422);
    expect(refused.error && 'errors' in refused.error ? refused.error.errors.map((e) => e.pointer) : []).toEqual(['/body/url']);
  });

  it('listWebhookDeliveries lists a publication’s delivery, by status too; redeliverWebhookDelivery answers 202 with it pending', async () => {
    const { client } = await serve(make);
    const hook = (await client.createWebhook({ url: 'https://hooks.example.com/a', events: ['post.published'] })).data!;
    await client.createPost({ title: 'Out now', status: 'published' });

    const log = await client.listWebhookDeliveries(hook.id, { status: 'pending' });
    expect(log.data?.items.map((d) => [d.eventType, d.status])).toEqual([['post.published', 'pending']]);
    expect((await client.listWebhookDeliveries(hook.id, { status: 'succeeded' })).data?.items).toEqual([]);
    const delivery = log.data!.items[0]!;
    const again = await client.redeliverWebhookDelivery(hook.id, delivery.id);
    expect(again.response.status).toBe(202);
    expect(again.data).toMatchObject({ id: delivery.id, eventId: delivery.eventId, status: 'pending', attempts: 0 });
  });

  it('createPreviewLink answers the url and token once, expiring when asked; listPreviewLinks lists it without them; revokePreviewLink (204) makes it revoked', async () => {
    const { client } = await serve(make);
    const post = (await client.createPost({ title: 'Draft' })).data!;
    const link = await client.createPreviewLink(post.id, '2026-12-02T10:00:00.000Z');
    expect(link.response.status).toBe(201);
    expect(link.data).toMatchObject({ expiresAt: '2026-12-02T10:00:00.000Z' });
    expect(link.data?.url.endsWith(`/content/preview/${link.data.token}`)).toBe(true);
    const byDefault = await client.createPreviewLink(post.id);
    expect(byDefault.data?.expiresAt).toBe('2026-12-08T10:00:00.000Z');

    const listed = await client.listPreviewLinks(post.id);
    expect(listed.data?.items.map((l) => [l.id, l.status, 'token' in l])).toEqual([
      [byDefault.data!.id, 'active', false],
      [link.data!.id, 'active', false],
    ]);
    expect(listed.data?.nextCursor).toBeNull();
    expect((await client.revokePreviewLink(post.id, link.data!.id)).response.status).toBe(204);
    expect((await client.listPreviewLinks(post.id)).data?.items.find((l) => l.id === link.data!.id)?.status).toBe('revoked');
  });

  it('listPreviewLinks pages with limit and cursor: nextCursor leads to the older links, null on the last page', async () => {
    const { client } = await serve(make);
    const post = (await client.createPost({ title: 'Draft' })).data!;
    const older = (await client.createPreviewLink(post.id, '2026-12-02T10:00:00.000Z')).data!;
    const newer = (await client.createPreviewLink(post.id)).data!;
    const first = (await client.listPreviewLinks(post.id, { limit: 1 })).data!;
    expect(first.items.map((l) => l.id)).toEqual([newer.id]);
    expect(first.nextCursor).not.toBeNull();
    const second = (await client.listPreviewLinks(post.id, { limit: 1, cursor: first.nextCursor! })).data!;
    expect(second).toMatchObject({ items: [{ id: older.id }], nextCursor: null });
  });
});
