/**
 * The typed client's calls for webhook subscriptions (their delivery log, redelivery) and for a
 * post's preview links (kept apart so that `createMarginClient` stays short). The secrets these
 * answer (a subscription's `secret`, a preview link's `token` and `url`) are in one answer only;
 * the client keeps none of them.
 */
import type { Client } from 'openapi-fetch';
import type { components, operations, paths } from '../../generated/api.js';
import type { ApiResult } from './types.js';

export type WebhookSubscription = components['schemas']['WebhookSubscription'];
export type WebhookSubscriptionWithSecret = components['schemas']['WebhookSubscriptionWithSecret'];
export type WebhookEventType = components['schemas']['WebhookEventType'];
export type WebhookDelivery = components['schemas']['WebhookDelivery'];
export type WebhookDeliveryPage = components['schemas']['WebhookDeliveryPage'];
export type WebhookDeliveryStatus = components['schemas']['WebhookDeliveryStatus'];
export type CreateWebhookRequest = components['schemas']['CreateWebhookRequest'];
export type UpdateWebhookRequest = components['schemas']['UpdateWebhookRequest'];
export type WebhookDeliveryQuery = NonNullable<operations['listWebhookDeliveries']['parameters']['query']>;
export type PreviewLink = components['schemas']['PreviewLink'];
export type PreviewLinkCreated = components['schemas']['PreviewLinkCreated'];
export type PreviewLinkPage = components['schemas']['PreviewLinkPage'];
export type PreviewLinkQuery = NonNullable<operations['listPreviewLinks']['parameters']['query']>;

export interface WebhookCalls {
  /** Every subscription, the oldest first (one answer: a server holds at most 50). */
  listWebhooks(signal?: AbortSignal): Promise<ApiResult<'listWebhooks'>>;
  /** 201 with the subscription and its `secret`, shown this once; 422 on `/body/url` for a URL the server refuses. */
  createWebhook(body: CreateWebhookRequest): Promise<ApiResult<'createWebhook'>>;
  getWebhook(id: string): Promise<ApiResult<'getWebhook'>>;
  /** Changes what `patch` names; with `rotateSecret: true` the answer carries the new `secret`, once. */
  updateWebhook(id: string, patch: UpdateWebhookRequest): Promise<ApiResult<'updateWebhook'>>;
  deleteWebhook(id: string): Promise<ApiResult<'deleteWebhook'>>;
  /** One page of a subscription's deliveries, the newest first; pass `nextCursor` back as `cursor`. */
  listWebhookDeliveries(id: string, query?: WebhookDeliveryQuery, signal?: AbortSignal): Promise<ApiResult<'listWebhookDeliveries'>>;
  /** Schedules a delivery again (same `webhook-id`, attempts from 0): 202 with the delivery. */
  redeliverWebhookDelivery(id: string, deliveryId: string): Promise<ApiResult<'redeliverWebhookDelivery'>>;
  /** One page of a post's preview links, the newest first, without their tokens; pass `nextCursor` back as `cursor`. */
  listPreviewLinks(postId: string, query?: PreviewLinkQuery, signal?: AbortSignal): Promise<ApiResult<'listPreviewLinks'>>;
  /**
   * 201 with the link's `url` and `token`, shown this once; `expiresAt` left out is 7 days from now. A post with 20 active
   * links already is a 422 `preview-link-limit-reached`: revoke one first.
   */
  createPreviewLink(postId: string, expiresAt?: string): Promise<ApiResult<'createPreviewLink'>>;
  /** 204, also for a link already revoked or expired. */
  revokePreviewLink(postId: string, linkId: string): Promise<ApiResult<'revokePreviewLink'>>;
}

export function webhookCalls(api: Client<paths>): WebhookCalls {
  const on = (signal: AbortSignal | undefined) => (signal ? { signal } : {});
  return {
    listWebhooks: (signal) => api.GET('/webhooks', on(signal)),
    createWebhook: (body) => api.POST('/webhooks', { body }),
    getWebhook: (id) => api.GET('/webhooks/{id}', { params: { path: { id } } }),
    updateWebhook: (id, patch) => api.PATCH('/webhooks/{id}', { params: { path: { id } }, body: patch }),
    deleteWebhook: (id) => api.DELETE('/webhooks/{id}', { params: { path: { id } } }),
    listWebhookDeliveries: (id, query = {}, signal) =>
      api.GET('/webhooks/{id}/deliveries', { params: { path: { id }, query }, ...on(signal) }),
    redeliverWebhookDelivery: (id, deliveryId) =>
      api.POST('/webhooks/{id}/deliveries/{deliveryId}/redeliver', { params: { path: { id, deliveryId } } }),
    listPreviewLinks: (postId, query = {}, signal) =>
      api.GET('/posts/{id}/preview-links', { params: { path: { id: postId }, query }, ...on(signal) }),
    createPreviewLink: (postId, expiresAt) =>
      api.POST('/posts/{id}/preview-links', { params: { path: { id: postId } }, body: expiresAt ? { expiresAt } : {} }),
    revokePreviewLink: (postId, linkId) => api.DELETE('/posts/{id}/preview-links/{linkId}', { params: { path: { id: postId, linkId } } }),
  };
}
