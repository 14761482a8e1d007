/**
 * Webhooks: a subscriber is told of the changes that matter to a published site, signed as the
 * Standard Webhooks specification says (https://www.standardwebhooks.com). Each change is written
 * to an outbox in the transaction that makes it (one delivery per enabled subscription listening
 * to its type), and delivered from there by workers in every server process, at least once, with
 * the same `webhook-id` on every attempt so that receivers deliver it to themselves exactly once.
 */
import type { Post, PostStatus } from './post.js';

/** What a subscription may listen to. */
export const WEBHOOK_EVENT_TYPES = ['post.published', 'post.unpublished', 'post.updated', 'post.deleted'] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** Most subscriptions a site may have. */
export const WEBHOOK_SUBSCRIPTIONS_MAX = 50;
/**
 * Most deliveries of one subscription in flight at once, across every server process: a receiver
 * that hangs holds this many attempts of its own subscription, and no other's.
 */
export const WEBHOOK_IN_FLIGHT_PER_SUBSCRIPTION = 2;
/**
 * Most deliveries one process has in flight: room for every subscription's share, so that
 * subscriptions whose receivers hang never take the slots of another.
 */
export const WEBHOOK_IN_FLIGHT_MAX = WEBHOOK_SUBSCRIPTIONS_MAX * WEBHOOK_IN_FLIGHT_PER_SUBSCRIPTION;
/** Longest description, in characters. */
export const WEBHOOK_DESCRIPTION_MAX = 500;
/** Longest URL, in characters. */
export const WEBHOOK_URL_MAX = 2000;
/** How long a rotated-out secret keeps signing beside the new one. */
export const WEBHOOK_SECRET_OVERLAP_MS = 24 * 60 * 60 * 1000;

/**
 * The event a change to a post makes, from its status before (null: it did not exist) and after
 * (null: it was deleted), or null when the change is of no interest to a subscriber (a draft
 * created or edited). The Drizzle store's trigger (migration `webhook_outbox`) follows this rule.
 */
export function webhookEventOf(before: PostStatus | null, after: PostStatus | null): WebhookEventType | null {
  if (after === null) return before === null ? null : 'post.deleted';
  if (after === 'published') return before === 'published' ? 'post.updated' : 'post.published';
  return before === 'published' ? 'post.unpublished' : null;
}

/** A secret's previous value, still signing until `expiresAt` after a rotation. */
interface PreviousSecret {
  secret: string;
  expiresAt: Date;
}

export interface WebhookSubscription {
  /** A ULID. */
  id: string;
  url: string;
  events: WebhookEventType[];
  description: string;
  enabled: boolean;
  /** Why the server disabled it; null when enabled, or disabled by a person. */
  disabledReason: string | null;
  /** `whsec_` + base64 of 32 random bytes. */
  secret: string;
  previousSecret: PreviousSecret | null;
  createdAt: Date;
  updatedAt: Date;
}

/** Fields an update may change; absent fields keep their value. */
export interface WebhookChanges {
  url?: string;
  events?: WebhookEventType[];
  description?: string;
  enabled?: boolean;
  disabledReason?: string | null;
  secret?: string;
  previousSecret?: PreviousSecret | null;
}

/** A change written to the outbox: what every delivery of it sends. */
export interface WebhookEvent {
  /** `msg_` + 32 lowercase hex digits: the `webhook-id` of every delivery and attempt. */
  id: string;
  type: WebhookEventType;
  postId: string;
  /** When the change was made. */
  occurredAt: Date;
  /** The post after the change (as it was, for `post.deleted`). */
  post: Post;
}

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** One event on its way to one subscription, and how its attempts went. */
export interface WebhookDelivery {
  /** `dlv_` + 32 lowercase hex digits. */
  id: string;
  subscriptionId: string;
  eventId: string;
  eventType: WebhookEventType;
  postId: string;
  status: DeliveryStatus;
  /** Attempts made since it was enqueued or last redelivered. */
  attempts: number;
  /** When it is due next; null once it succeeded or failed. */
  nextAttemptAt: Date | null;
  lastAttemptAt: Date | null;
  /** The receiver's HTTP status of the last attempt, when it answered. */
  responseStatus: number | null;
  /** Why the last attempt failed, in words; null when it succeeded or none was made. */
  error: string | null;
  latencyMs: number | null;
  createdAt: Date;
}

/** A delivery a worker holds until `leaseUntil`: what it sends, and to whom. */
export interface ClaimedDelivery {
  delivery: WebhookDelivery;
  event: WebhookEvent;
  subscription: WebhookSubscription;
  /** When the claim lapses and another worker may take the delivery (a worker that died). */
  leaseUntil: Date;
}

/** How one attempt ended, as a worker reports it. */
export interface AttemptOutcome {
  at: Date;
  ok: boolean;
  responseStatus: number | null;
  error: string | null;
  latencyMs: number;
  /** When to try again after a failure; null: give up (the delivery fails). */
  retryAt: Date | null;
  /** When giving up: the reason the subscription is disabled with. */
  disableReason?: string;
}

/**
 * The pause after failed attempt `attempt` (1-based) before the next, or null after the last:
 * Standard Webhooks' schedule (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h: 8 attempts), each pause
 * lengthened by 0 to 20 % with `random()` in [0, 1) so that receivers coming back are not hit by
 * every sender at once. Jitter never shortens a pause, so the attempts span at least the
 * schedule's sum whatever `random` answers: 27.6 hours (up to 33) for the default, so a delivery
 * is retried for at least 24 hours, as Standard Webhooks asks.
 */
export function retryDelayMs(attempt: number, schedule: readonly number[], random: () => number): number | null {
  const base = schedule[attempt - 1];
  if (base === undefined) return null;
  return Math.round(base * (1 + RETRY_JITTER * random()));
}

/** The most a pause is lengthened by (`retryDelayMs`): 20 %. */
const RETRY_JITTER = 0.2;

export const DEFAULT_RETRY_SCHEDULE_MS: readonly number[] = [5e3, 3e5, 18e5, 72e5, 18e6, 36e6, 36e6];

/** Whether a status answers success (2xx); anything else is a failed attempt. */
export function isDeliverySuccess(status: number): boolean {
  return status >= 200 && status < 300;
}
