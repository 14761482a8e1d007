import { describe, expect, it } from 'vitest';
import type { components } from '../../generated/api.js';
import { accessLog } from '../../src/adapters/http/access-log.js';
import { createHttpWebhookTransport } from '../../src/adapters/webhooks/http-transport.js';
import { WEBHOOK_SUBSCRIPTIONS_MAX } from '../../src/domain/index.js';
import { createLogger } from '../../src/log.js';
import { describeOnEveryStore } from '../support/stores.js';
import { resolveForTests } from '../support/http.js';
import { expectInvalid, expectProblem, expectUnauthorized, peek, setup, UNKNOWN_ID, type SendInit } from './helpers.js';

type Subscription = components['schemas']['WebhookSubscription'];
type WithSecret = components['schemas']['WebhookSubscriptionWithSecret'];
type DeliveryPage = components['schemas']['WebhookDeliveryPage'];

const HOOK = { url: 'https://hooks.example.com/rebuild', events: ['post.published', 'post.deleted'], description: 'Rebuild' };
/** A well-formed delivery id that no delivery has. */
const UNKNOWN_DELIVERY = 'dlv_00000000000000000000000000000000';
/** A receiver on this machine: refused unless private networks are allowed. */
const LOOPBACK = 'http://127.0.0.1:9/hook';

describeOnEveryStore('webhooks', (make) => {
  async function hooks(options: { allowPrivateNetworks?: boolean; lines?: string[] } = {}) {
    const lines = options.lines;
    const t = await setup(make, {
      webhookTransport: createHttpWebhookTransport({
        allowPrivateNetworks: options.allowPrivateNetworks ?? false,
        resolve: resolveForTests,
      }),
      ...(lines === undefined
        ? {}
        : { logger: createLogger('debug', (l) => lines.push(l)), observers: [accessLog(createLogger('info', (l) => lines.push(l)))] }),
    });
    async function subscribe(body: Record<string, unknown> = HOOK): Promise<WithSecret> {
      const response = await t.send('POST', '/webhooks', { body });
      expect(response.status, await peek(response)).toBe(201);
      return (await response.json()) as WithSecret;
    }
    async function read<T>(method: string, path: string, status: number, init: SendInit = {}): Promise<T> {
      const response = await t.send(method, path, init);
      expect(response.status, await peek(response)).toBe(status);
      return (await response.json()) as T;
    }
    return { ...t, subscribe, read };
  }

  describe('createWebhook', () => {
    it('answers 201 with Location and the whsec_ secret, which neither get nor list show again', async () => {
      const t = await hooks();
      const response = await t.send('POST', '/webhooks', { body: HOOK });
      expect(response.status, await peek(response)).toBe(201);
      const created = (await response.json()) as WithSecret;
      expect(created).toMatchObject({ ...HOOK, enabled: true, disabledReason: null });
      expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(response.headers.get('location')).toBe(`/api/v1/webhooks/${created.id}`);
      const got = await t.read<Subscription>('GET', `/webhooks/${created.id}`, 200);
      const { secret: _secret, ...withoutSecret } = created;
      expect(got).toEqual(withoutSecret);
      const list = await t.read<{ items: Subscription[] }>('GET', '/webhooks', 200);
      expect(list.items).toEqual([withoutSecret]);
      expect(JSON.stringify(list)).not.toContain(created.secret.slice(6));
    });

    it('answers 422 at /body/url for a loopback URL unless private networks are allowed', async () => {
      const strict = await hooks();
      const problem = await expectInvalid(await strict.send('POST', '/webhooks', { body: { ...HOOK, url: LOOPBACK } }), '/body/url');
      expect(JSON.stringify(problem.errors)).toMatch(/127\.0\.0\.1/);
      expect((await strict.read<{ items: unknown[] }>('GET', '/webhooks', 200)).items).toEqual([]);
      const open = await hooks({ allowPrivateNetworks: true });
      expect((await open.subscribe({ ...HOOK, url: LOOPBACK })).url).toBe(LOOPBACK);
    });

    it('answers 422 at /body/url for a URL with a fragment, saying so, and stores nothing', async () => {
      const t = await hooks({ allowPrivateNetworks: true });
      const problem = await expectInvalid(
        await t.send('POST', '/webhooks', { body: { ...HOOK, url: 'https://hooks.example.com/rebuild#now' } }),
        '/body/url',
      );
      expect(problem.errors).toEqual([
        { pointer: '/body/url', message: 'a URL with a fragment (#…) is not allowed: a fragment is never sent to the receiver' },
      ]);
      expect((await t.read<{ items: unknown[] }>('GET', '/webhooks', 200)).items).toEqual([]);
    });

    it('resolves the host when saved: 422 at /body/url naming the address of a name that resolves to loopback, or a name not found', async () => {
      const strict = await hooks();
      const loopback = await expectInvalid(
        await strict.send('POST', '/webhooks', { body: { ...HOOK, url: 'http://receiver.test:8080/hook' } }),
        '/body/url',
      );
      expect(loopback.errors).toEqual([
        {
          pointer: '/body/url',
          message:
            'host receiver.test resolves to 127.0.0.1, which is not a public address (WEBHOOK_ALLOW_PRIVATE_NETWORKS=true allows private targets)',
        },
      ]);
      const localhost = await expectInvalid(
        await strict.send('POST', '/webhooks', { body: { ...HOOK, url: 'http://localhost:8080/hook' } }),
        '/body/url',
      );
      expect(localhost.errors).toEqual([{ pointer: '/body/url', message: 'host localhost is not public' }]);
      const invalid = await expectInvalid(
        await strict.send('POST', '/webhooks', { body: { ...HOOK, url: 'https://something.invalid/hook' } }),
        '/body/url',
      );
      expect(invalid.errors).toEqual([{ pointer: '/body/url', message: 'host something.invalid was not found (it has no address)' }]);
      expect((await strict.read<{ items: unknown[] }>('GET', '/webhooks', 200)).items).toEqual([]);
      const open = await hooks({ allowPrivateNetworks: true });
      expect((await open.subscribe({ ...HOOK, url: 'http://receiver.test:8080/hook' })).url).toBe('http://receiver.test:8080/hook');
    });

    it('answers 422 for no events, a repeated event and a description over 500 characters', async () => {
      const t = await hooks();
      await expectInvalid(await t.send('POST', '/webhooks', { body: { ...HOOK, events: [] } }), '/body/events');
      await expectInvalid(
        await t.send('POST', '/webhooks', { body: { ...HOOK, events: ['post.updated', 'post.updated'] } }),
        '/body/events',
      );
      await expectInvalid(await t.send('POST', '/webhooks', { body: { ...HOOK, description: 'x'.repeat(501) } }), '/body/description');
    });

    it(`answers 409 webhook-limit-reached past ${WEBHOOK_SUBSCRIPTIONS_MAX} subscriptions, creating nothing`, async () => {
      const t = await hooks();
      for (let n = 0; n < WEBHOOK_SUBSCRIPTIONS_MAX; n += 1) await t.subscribe();
      await expectProblem(await t.send('POST', '/webhooks', { body: HOOK }), 409, 'webhook-limit-reached');
      expect((await t.read<{ items: unknown[] }>('GET', '/webhooks', 200)).items).toHaveLength(WEBHOOK_SUBSCRIPTIONS_MAX);
    });

    it('logs neither the secret nor the request body', async () => {
      const lines: string[] = [];
      const t = await hooks({ lines });
      const created = await t.subscribe();
      await t.read('PATCH', `/webhooks/${created.id}`, 200, { body: { rotateSecret: true } });
      expect(lines.length).toBeGreaterThan(0);
      expect(lines.join('\n')).not.toMatch(/whsec_|hooks\.example\.com/);
    });
  });

  describe('updateWebhook', () => {
    it('disables and enables without showing the secret, and shows a new one once on rotateSecret', async () => {
      const t = await hooks();
      const created = await t.subscribe();
      const disabled = await t.read<Subscription>('PATCH', `/webhooks/${created.id}`, 200, { body: { enabled: false } });
      expect(disabled).toMatchObject({ enabled: false, disabledReason: null });
      expect(disabled).not.toHaveProperty('secret');
      const enabled = await t.read<Subscription>('PATCH', `/webhooks/${created.id}`, 200, {
        body: { enabled: true, events: ['post.updated'] },
      });
      expect(enabled).toMatchObject({ enabled: true, events: ['post.updated'], url: HOOK.url });
      const rotated = await t.read<WithSecret>('PATCH', `/webhooks/${created.id}`, 200, { body: { rotateSecret: true } });
      expect(rotated.secret).toMatch(/^whsec_/);
      expect(rotated.secret).not.toBe(created.secret);
      expect(await t.read('GET', `/webhooks/${created.id}`, 200)).not.toHaveProperty('secret');
    });

    it('re-checks a new URL (422 at /body/url), its host resolved again, and answers 404 for an unknown subscription', async () => {
      const t = await hooks();
      const created = await t.subscribe();
      await expectInvalid(await t.send('PATCH', `/webhooks/${created.id}`, { body: { url: LOOPBACK } }), '/body/url');
      for (const url of ['https://something.invalid/hook', 'http://receiver.test/hook', 'https://hooks.example.com/x#y'])
        await expectInvalid(await t.send('PATCH', `/webhooks/${created.id}`, { body: { url } }), '/body/url');
      expect(
        (await t.read<Subscription>('PATCH', `/webhooks/${created.id}`, 200, { body: { url: 'https://api.example.com/h' } })).url,
      ).toBe('https://api.example.com/h');
      await t.read('PATCH', `/webhooks/${created.id}`, 200, { body: { url: HOOK.url } });
      expect((await t.read<Subscription>('GET', `/webhooks/${created.id}`, 200)).url).toBe(HOOK.url);
      await expectProblem(await t.send('PATCH', `/webhooks/${UNKNOWN_ID}`, { body: { enabled: true } }), 404, 'not-found');
    });
  });

  describe('deleteWebhook', () => {
    it('answers 204, then 404 to a get and to a second delete', async () => {
      const t = await hooks();
      const created = await t.subscribe();
      expect((await t.send('DELETE', `/webhooks/${created.id}`)).status).toBe(204);
      await expectProblem(await t.send('GET', `/webhooks/${created.id}`), 404, 'not-found');
      await expectProblem(await t.send('DELETE', `/webhooks/${created.id}`), 404, 'not-found');
    });
  });

  describe('deliveries', () => {
    it('lists the delivery a publication enqueued, filters by status, and redelivers it with 202', async () => {
      const t = await hooks();
      const created = await t.subscribe();
      const post = await t.create({ title: 'Live', body: 'Now.', status: 'published' });
      const page = await t.read<DeliveryPage>('GET', `/webhooks/${created.id}/deliveries`, 200);
      expect(page.items).toHaveLength(1);
      expect(page.items[0]).toMatchObject({ eventType: 'post.published', postId: post.id, status: 'pending', attempts: 0 });
      expect(page.nextCursor).toBeNull();
      expect((await t.read<DeliveryPage>('GET', `/webhooks/${created.id}/deliveries?status=failed`, 200)).items).toEqual([]);
      const delivery = page.items[0]!;
      const again = await t.read('POST', `/webhooks/${created.id}/deliveries/${delivery.id}/redeliver`, 202);
      expect(again).toMatchObject({ id: delivery.id, eventId: delivery.eventId, status: 'pending', attempts: 0 });
    });

    it('pages the log newest first with a cursor', async () => {
      const t = await hooks();
      const created = await t.subscribe();
      const first = await t.create({ title: 'One', body: 'Now.', status: 'published' });
      await t.send('DELETE', `/posts/${first.id}`, { headers: { 'if-match': `"${first.version}"` } });
      const one = await t.read<DeliveryPage>('GET', `/webhooks/${created.id}/deliveries?limit=1`, 200);
      expect(one.items.map((d) => d.eventType)).toEqual(['post.deleted']);
      const two = await t.read<DeliveryPage>('GET', `/webhooks/${created.id}/deliveries?limit=1&cursor=${one.nextCursor}`, 200);
      expect(two.items.map((d) => d.eventType)).toEqual(['post.published']);
    });

    it('answers 404 for an unknown subscription or delivery', async () => {
      const t = await hooks();
      const created = await t.subscribe();
      await expectProblem(await t.send('GET', `/webhooks/${UNKNOWN_ID}/deliveries`), 404, 'not-found');
      await expectProblem(await t.send('POST', `/webhooks/${UNKNOWN_ID}/deliveries/${UNKNOWN_DELIVERY}/redeliver`), 404, 'not-found');
      await expectProblem(await t.send('POST', `/webhooks/${created.id}/deliveries/${UNKNOWN_DELIVERY}/redeliver`), 404, 'not-found');
    });
  });

  it('answers 401 to every operation without a bearer token', async () => {
    const t = await hooks();
    const created = await t.subscribe();
    const id = created.id;
    const calls: [string, string, unknown?][] = [
      ['GET', '/webhooks'],
      ['POST', '/webhooks', HOOK],
      ['GET', `/webhooks/${id}`],
      ['PATCH', `/webhooks/${id}`, { enabled: false }],
      ['DELETE', `/webhooks/${id}`],
      ['GET', `/webhooks/${id}/deliveries`],
      ['POST', `/webhooks/${id}/deliveries/${UNKNOWN_DELIVERY}/redeliver`],
    ];
    for (const [method, path, body] of calls)
      await expectUnauthorized(await t.send(method, path, { anonymous: true, ...(body === undefined ? {} : { body }) }));
    expect((await t.read<Subscription>('GET', `/webhooks/${id}`, 200)).enabled).toBe(true);
  });
});
