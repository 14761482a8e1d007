import * as hooks from '../../../app/webhooks.js';
import type { WebhookDelivery, WebhookSubscription } from '../../../domain/index.js';
import { API_ROOT } from '../contract.js';
import type { HandlerRegistry } from '../registry.js';
import type { components } from '../../../../generated/api.js';

type Schemas = components['schemas'];

type WebhookHandlers = Pick<
  HandlerRegistry,
  'createWebhook' | 'listWebhooks' | 'getWebhook' | 'updateWebhook' | 'deleteWebhook' | 'listWebhookDeliveries' | 'redeliverWebhookDelivery'
>;

/** A subscription as the API shows it: never its secrets. */
function toApiWebhook(s: WebhookSubscription): Schemas['WebhookSubscription'] {
  return {
    id: s.id,
    url: s.url,
    events: [...s.events],
    description: s.description,
    enabled: s.enabled,
    disabledReason: s.disabledReason,
    createdAt: s.createdAt.toISOString(),
    updatedAt: s.updatedAt.toISOString(),
  };
}

/** A subscription with its current secret: only in the answer that made the secret. */
function withSecret(s: WebhookSubscription): Schemas['WebhookSubscriptionWithSecret'] {
  return { ...toApiWebhook(s), secret: s.secret };
}

const iso = (at: Date | null) => (at === null ? null : at.toISOString());

function toApiDelivery(d: WebhookDelivery): Schemas['WebhookDelivery'] {
  return {
    id: d.id,
    eventId: d.eventId,
    eventType: d.eventType,
    postId: d.postId,
    status: d.status,
    attempts: d.attempts,
    nextAttemptAt: iso(d.nextAttemptAt),
    lastAttemptAt: iso(d.lastAttemptAt),
    responseStatus: d.responseStatus,
    error: d.error,
    latencyMs: d.latencyMs,
    createdAt: d.createdAt.toISOString(),
  };
}

/** Webhook subscriptions and their delivery logs (tag `webhooks`). */
export function webhookHandlers(deps: hooks.WebhookDeps): WebhookHandlers {
  return {
    async createWebhook({ body }) {
      const created = await hooks.createWebhook(deps, body);
      return { status: 201, body: withSecret(created), headers: { Location: `${API_ROOT}/webhooks/${created.id}` } };
    },

    async listWebhooks() {
      return { status: 200, body: { items: (await hooks.listWebhooks(deps)).map(toApiWebhook) } };
    },

    async getWebhook({ params }) {
      return { status: 200, body: toApiWebhook(await hooks.getWebhook(deps, params.id)) };
    },

    async updateWebhook({ params, body }) {
      const updated = await hooks.updateWebhook(deps, params.id, body);
      return { status: 200, body: body.rotateSecret === true ? withSecret(updated) : toApiWebhook(updated) };
    },

    async deleteWebhook({ params }) {
      await hooks.deleteWebhook(deps, params.id);
      return { status: 204 };
    },

    async listWebhookDeliveries({ params, query }) {
      const page = await hooks.listWebhookDeliveries(deps, params.id, {
        ...(query.status === undefined ? {} : { status: query.status }),
        limit: query.limit,
        cursor: query.cursor ?? null,
      });
      return { status: 200, body: { items: page.items.map(toApiDelivery), nextCursor: page.nextCursor } };
    },

    async redeliverWebhookDelivery({ params }) {
      return { status: 202, body: toApiDelivery(await hooks.redeliverWebhookDelivery(deps, params.id, params.deliveryId)) };
    },
  };
}
