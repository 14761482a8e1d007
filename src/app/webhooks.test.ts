import { describe, expect, it } from 'vitest';
import { createMemoryStore } from '../adapters/memory/store.js';
import { createUlidIds } from '../adapters/system/ulid-ids.js';
import {
  FixedClock,
  NotFoundError,
  ValidationError,
  WEBHOOK_SECRET_OVERLAP_MS,
  WEBHOOK_SUBSCRIPTIONS_MAX,
  WebhookLimitReachedError,
  type NewPost,
  type Store,
} from '../domain/index.js';
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listWebhookDeliveries,
  listWebhooks,
  redeliverWebhookDelivery,
  updateWebhook,
  type WebhookDeps,
} from './webhooks.js';

const T0 = new Date('2026-12-06T09:00:00.000Z');

function depsOver(store: Store = createMemoryStore()) {
  const clock = new FixedClock(T0);
  let secrets = 0;
  const deps: WebhookDeps = {
    webhooks: store.webhooks,
    refusal: async (url) => (url.startsWith('http://10.') ? 'resolves to 10.0.0.1, which is not a public address' : null),
    newSecret: () => `whsec_${String((secrets += 1)).padStart(43, 'A')}=`,
    ids: createUlidIds(clock),
    clock,
  };
  return { deps, clock, store };
}

/** The issues of the ValidationError `promise` rejects with. */
async function issuesOf(promise: Promise<unknown>) {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ValidationError);
  return (error as ValidationError).issues;
}

const HOOK = { url: 'https://hooks.example.com/blog', events: ['post.published' as const] };

describe('createWebhook', () => {
  it('stores an enabled subscription with a new secret, an empty description and a ULID', async () => {
    const { deps } = depsOver();
    const created = await createWebhook(deps, HOOK);
    expect(created).toMatchObject({ ...HOOK, description: '', enabled: true, disabledReason: null, previousSecret: null });
    expect(created.secret).toMatch(/^whsec_/);
    expect(created.id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(created.createdAt).toEqual(T0);
    expect(await getWebhook(deps, created.id)).toEqual(created);
  });

  it('refuses a URL the transport refuses, at /url with its reason, and stores nothing', async () => {
    const { deps } = depsOver();
    const issues = await issuesOf(createWebhook(deps, { ...HOOK, url: 'http://10.0.0.1/hook' }));
    expect(issues).toEqual([{ pointer: '/url', message: 'resolves to 10.0.0.1, which is not a public address' }]);
    expect(await listWebhooks(deps)).toEqual([]);
  });

  it('refuses no events, an event twice, an unknown event and a description over 500 characters', async () => {
    const { deps } = depsOver();
    expect(await issuesOf(createWebhook(deps, { ...HOOK, events: [] }))).toEqual([
      { pointer: '/events', message: 'must name at least one event' },
    ]);
    expect((await issuesOf(createWebhook(deps, { ...HOOK, events: ['post.updated', 'post.updated'] })))[0]?.pointer).toBe('/events');
    const unknown = await issuesOf(createWebhook(deps, { ...HOOK, events: ['post.created' as 'post.updated'] }));
    expect(unknown[0]?.pointer).toBe('/events/0');
    expect((await issuesOf(createWebhook(deps, { ...HOOK, description: 'x'.repeat(501) })))[0]?.pointer).toBe('/description');
    await createWebhook(deps, { ...HOOK, description: 'é'.repeat(500) });
  });

  it(`refuses the ${WEBHOOK_SUBSCRIPTIONS_MAX + 1}st subscription with WebhookLimitReachedError`, async () => {
    const { deps } = depsOver();
    for (let n = 0; n < WEBHOOK_SUBSCRIPTIONS_MAX; n += 1) await createWebhook(deps, HOOK);
    await expect(createWebhook(deps, HOOK)).rejects.toBeInstanceOf(WebhookLimitReachedError);
    expect(await listWebhooks(deps)).toHaveLength(WEBHOOK_SUBSCRIPTIONS_MAX);
  });
});

describe('updateWebhook', () => {
  it('changes only the fields given and re-checks a new URL', async () => {
    const { deps, clock } = depsOver();
    const created = await createWebhook(deps, { ...HOOK, description: 'Netlify' });
    clock.advance(1000);
    const updated = await updateWebhook(deps, created.id, { events: ['post.deleted'] });
    expect(updated).toMatchObject({ url: HOOK.url, description: 'Netlify', events: ['post.deleted'], secret: created.secret });
    expect(updated.updatedAt).toEqual(clock.now());
    expect((await issuesOf(updateWebhook(deps, created.id, { url: 'http://10.1.2.3/' })))[0]?.pointer).toBe('/url');
    expect((await getWebhook(deps, created.id)).url).toBe(HOOK.url);
  });

  it('clears the reason the server disabled it when it is enabled, or disabled, by a person', async () => {
    const { deps, store } = depsOver();
    const created = await createWebhook(deps, HOOK);
    await store.webhooks.update(created.id, { enabled: false, disabledReason: 'failed 8 attempts' }, T0);
    const enabled = await updateWebhook(deps, created.id, { enabled: true });
    expect(enabled).toMatchObject({ enabled: true, disabledReason: null });
    await store.webhooks.update(created.id, { enabled: false, disabledReason: 'failed 8 attempts' }, T0);
    expect(await updateWebhook(deps, created.id, { enabled: false })).toMatchObject({ enabled: false, disabledReason: null });
  });

  it('rotates the secret, keeping the previous one for the overlap; a second rotation drops the oldest', async () => {
    const { deps, clock } = depsOver();
    const created = await createWebhook(deps, HOOK);
    const rotated = await updateWebhook(deps, created.id, { rotateSecret: true });
    expect(rotated.secret).not.toBe(created.secret);
    expect(rotated.previousSecret).toEqual({ secret: created.secret, expiresAt: new Date(T0.getTime() + WEBHOOK_SECRET_OVERLAP_MS) });
    clock.advance(60_000);
    const again = await updateWebhook(deps, created.id, { rotateSecret: true });
    expect(again.previousSecret?.secret).toBe(rotated.secret);
    expect((await updateWebhook(deps, created.id, { rotateSecret: false })).secret).toBe(again.secret);
  });

  it("keeps every replaced secret when two rotations run at once: the later keeps the earlier one's new secret", async () => {
    const { deps } = depsOver();
    const created = await createWebhook(deps, HOOK);
    const [a, b] = await Promise.all([
      updateWebhook(deps, created.id, { rotateSecret: true }),
      updateWebhook(deps, created.id, { rotateSecret: true, description: 'rotated' }),
    ]);
    const [first, second] = a.previousSecret!.secret === created.secret ? [a, b] : [b, a];
    expect(first.previousSecret!.secret).toBe(created.secret);
    expect(second.previousSecret!.secret).toBe(first.secret);
    const stored = await getWebhook(deps, created.id);
    expect([stored.secret, stored.previousSecret!.secret, stored.description]).toEqual([second.secret, first.secret, 'rotated']);
  });

  it('throws NotFoundError for an unknown subscription, rotating or not', async () => {
    const { deps } = depsOver();
    await expect(updateWebhook(deps, '01JDQ8Z4M6X2V7K9T3N5R8W1YB', { enabled: true })).rejects.toMatchObject({ entity: 'webhook' });
    await expect(updateWebhook(deps, '01JDQ8Z4M6X2V7K9T3N5R8W1YB', { rotateSecret: true })).rejects.toBeInstanceOf(NotFoundError);
  });
});

function published(id: string): NewPost {
  return {
    id,
    title: 'Live',
    slug: `live-${id.slice(-4).toLowerCase()}`,
    excerpt: '',
    body: 'Hello.',
    tags: [],
    status: 'published',
    wordCount: 1,
    createdAt: T0,
    publishedAt: T0,
    publishAt: null,
  };
}

describe('deliveries', () => {
  it('pages a subscription’s deliveries and redelivers one; unknown subscriptions and deliveries are NotFoundError', async () => {
    const { deps, store, clock } = depsOver();
    const hook = await createWebhook(deps, HOOK);
    await store.posts.create(published('01JEX0000000000000000000P1'));
    const page = await listWebhookDeliveries(deps, hook.id, { limit: 10 });
    expect(page.items).toHaveLength(1);
    expect(page.items[0]).toMatchObject({ eventType: 'post.published', status: 'pending', attempts: 0 });
    clock.advance(5000);
    const again = await redeliverWebhookDelivery(deps, hook.id, page.items[0]!.id);
    expect(again).toMatchObject({ id: page.items[0]!.id, status: 'pending', attempts: 0, nextAttemptAt: clock.now() });
    const unknown = '01JDQ8Z4M6X2V7K9T3N5R8W1YB';
    await expect(listWebhookDeliveries(deps, unknown, { limit: 10 })).rejects.toMatchObject({ entity: 'webhook' });
    await expect(redeliverWebhookDelivery(deps, unknown, page.items[0]!.id)).rejects.toMatchObject({ entity: 'webhook' });
    await expect(redeliverWebhookDelivery(deps, hook.id, 'dlv_00000000000000000000000000000000')).rejects.toMatchObject({
      entity: 'delivery',
    });
  });

  it('deletes a subscription with its deliveries; a second delete is NotFoundError', async () => {
    const { deps } = depsOver();
    const hook = await createWebhook(deps, HOOK);
    await deleteWebhook(deps, hook.id);
    expect(await listWebhooks(deps)).toEqual([]);
    await expect(deleteWebhook(deps, hook.id)).rejects.toMatchObject({ entity: 'webhook' });
  });
});
