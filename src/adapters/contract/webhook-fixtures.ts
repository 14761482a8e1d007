import type { Store } from '../../domain/ports/store.js';
import { WEBHOOK_EVENT_TYPES, type ClaimedDelivery, type WebhookEvent, type WebhookSubscription } from '../../domain/webhooks.js';
import { minute, ulid } from './fixtures.js';

/** A subscription id; ids sort (in byte order) by `n`, apart from the posts' ids. */
export function subscriptionId(n: number): string {
  return ulid(5000 + n);
}

/** An enabled subscription to every event type, created and updated at `minute(n % 60)`. */
export function newSubscription(n: number, overrides: Partial<WebhookSubscription> = {}): WebhookSubscription {
  return {
    id: subscriptionId(n),
    url: `https://hooks.example/${n}`,
    events: [...WEBHOOK_EVENT_TYPES],
    description: `Hook ${n}`,
    enabled: true,
    disabledReason: null,
    secret: `whsec_${String(n).padStart(4, '0')}${'A'.repeat(40)}`,
    previousSecret: null,
    createdAt: minute(n % 60),
    updatedAt: minute(n % 60),
    ...overrides,
  };
}

/** Later than any instant of the fixtures: every delivery is due. */
const FAR_FUTURE = new Date('2100-01-01T00:00:00.000Z');

/** A successful attempt at `at`. */
export function success(at: Date = FAR_FUTURE) {
  return { at, ok: true, responseStatus: 204, error: null, latencyMs: 12, retryAt: null };
}

/**
 * Every event delivered to the subscriptions, in the order their deliveries are claimed: claims
 * (each subscription's oldest pending delivery at a time) settled as successes until none is left.
 */
export async function drain(store: Store): Promise<ClaimedDelivery[]> {
  const claimed: ClaimedDelivery[] = [];
  for (let round = 0; round < 100; round += 1) {
    const batch = await store.webhooks.claim(FAR_FUTURE, 60_000, 100, 100);
    if (batch.length === 0) return claimed;
    for (const c of batch) {
      if (!(await store.webhooks.settle(c, success()))) throw new Error(`lost the claim on ${c.delivery.id}`);
    }
    claimed.push(...batch);
  }
  throw new Error('the outbox does not drain');
}

/** The events drained for one subscription, in order. */
export async function eventsOf(store: Store, subscription: string): Promise<WebhookEvent[]> {
  return (await drain(store)).filter((c) => c.subscription.id === subscription).map((c) => c.event);
}
