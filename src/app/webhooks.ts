import {
  NotFoundError,
  unstorableTextIssues,
  ValidationError,
  WEBHOOK_DESCRIPTION_MAX,
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_SECRET_OVERLAP_MS,
  WEBHOOK_SUBSCRIPTIONS_MAX,
  WEBHOOK_URL_MAX,
  type Clock,
  type DeliveryQuery,
  type IdGenerator,
  type ValidationIssue,
  type WebhookChanges,
  type WebhookDelivery,
  type WebhookEventType,
  type WebhookRepository,
  type WebhookSubscription,
} from '../domain/index.js';

/** What the webhook use cases work with: the subscriptions, the transport's and signer's rules, ids and time. */
export interface WebhookDeps {
  webhooks: WebhookRepository;
  /** Why a URL may not be a subscription's target, or null when it may; its host resolved (`WebhookTransport.refusal`). */
  refusal: (url: string) => Promise<string | null>;
  /** A new signing secret (`WebhookSigner.newSecret`). */
  newSecret: () => string;
  /** Subscription ids (ULIDs). */
  ids: IdGenerator;
  clock: Clock;
}

export interface NewWebhook {
  url: string;
  events: readonly WebhookEventType[];
  description?: string;
}

/** What an update may ask for; absent fields keep their value. */
export interface WebhookEdit {
  url?: string;
  events?: readonly WebhookEventType[];
  description?: string;
  enabled?: boolean;
  /** A new secret; the current one keeps signing beside it for `WEBHOOK_SECRET_OVERLAP_MS`. */
  rotateSecret?: boolean;
}

/** The issues of the fields given (absent ones are not checked); a URL's host is resolved (`refusal`). */
async function issuesOf(
  deps: Pick<WebhookDeps, 'refusal'>,
  fields: Omit<WebhookEdit, 'enabled' | 'rotateSecret'>,
): Promise<ValidationIssue[]> {
  const issues = unstorableTextIssues({ url: fields.url, description: fields.description });
  if (fields.url !== undefined && issues.every((issue) => issue.pointer !== '/url')) {
    const reason = fields.url.length > WEBHOOK_URL_MAX ? `is longer than ${WEBHOOK_URL_MAX} characters` : await deps.refusal(fields.url);
    if (reason !== null) issues.push({ pointer: '/url', message: reason });
  }
  if (fields.events !== undefined) {
    const known = new Set<string>(WEBHOOK_EVENT_TYPES);
    if (fields.events.length === 0) issues.push({ pointer: '/events', message: 'must name at least one event' });
    else if (new Set(fields.events).size !== fields.events.length)
      issues.push({ pointer: '/events', message: 'must name each event once' });
    fields.events.forEach((event, index) => {
      if (!known.has(event)) issues.push({ pointer: `/events/${index}`, message: `is not one of ${WEBHOOK_EVENT_TYPES.join(', ')}` });
    });
  }
  if (fields.description !== undefined && [...fields.description].length > WEBHOOK_DESCRIPTION_MAX)
    issues.push({ pointer: '/description', message: `must be at most ${WEBHOOK_DESCRIPTION_MAX} characters` });
  return issues;
}

async function check(deps: Pick<WebhookDeps, 'refusal'>, fields: Omit<WebhookEdit, 'enabled' | 'rotateSecret'>): Promise<void> {
  const issues = await issuesOf(deps, fields);
  if (issues.length > 0) throw new ValidationError(issues);
}

/**
 * Subscribes a URL to events: enabled, with a new secret (the answer is the only place it is
 * shown to the user).
 * @throws ValidationError at `/url` (the transport's refusal: its form, or its host resolved now to
 *   none or to an address that is not public; or too long), `/events`, `/description`
 * @throws WebhookLimitReachedError when there are `WEBHOOK_SUBSCRIPTIONS_MAX` already (the store counts
 *   and inserts in one step: concurrent creates never make more)
 */
export async function createWebhook(deps: WebhookDeps, input: NewWebhook): Promise<WebhookSubscription> {
  await check(deps, input);
  const now = deps.clock.now();
  return deps.webhooks.create(
    {
      id: deps.ids.next(),
      url: input.url,
      events: [...input.events],
      description: input.description ?? '',
      enabled: true,
      disabledReason: null,
      secret: deps.newSecret(),
      previousSecret: null,
      createdAt: now,
      updatedAt: now,
    },
    WEBHOOK_SUBSCRIPTIONS_MAX,
  );
}

/** Every subscription, oldest first. */
export function listWebhooks(deps: Pick<WebhookDeps, 'webhooks'>): Promise<WebhookSubscription[]> {
  return deps.webhooks.list();
}

/** @throws NotFoundError('webhook') */
export async function getWebhook(deps: Pick<WebhookDeps, 'webhooks'>, id: string): Promise<WebhookSubscription> {
  const found = await deps.webhooks.get(id);
  if (found === null) throw new NotFoundError('webhook', id);
  return found;
}

/**
 * Changes a subscription. `enabled` (either way) clears `disabledReason`: a person decided. A
 * rotation keeps the current secret as `previousSecret` for `WEBHOOK_SECRET_OVERLAP_MS` (one
 * rotated out earlier is dropped). A new `url` is checked as on create, its host resolved again.
 * @throws ValidationError as `createWebhook`; NotFoundError('webhook')
 */
export async function updateWebhook(deps: WebhookDeps, id: string, edit: WebhookEdit): Promise<WebhookSubscription> {
  await check(deps, edit);
  const changes: WebhookChanges = {
    ...(edit.url === undefined ? {} : { url: edit.url }),
    ...(edit.events === undefined ? {} : { events: [...edit.events] }),
    ...(edit.description === undefined ? {} : { description: edit.description }),
    ...(edit.enabled === undefined ? {} : { enabled: edit.enabled, disabledReason: null }),
  };
  const now = deps.clock.now();
  if (edit.rotateSecret !== true) return deps.webhooks.update(id, changes, now);
  // The rotation is one step of the store, so that of two at once each keeps the secret it replaced.
  if (Object.keys(changes).length > 0) await deps.webhooks.update(id, changes, now);
  return deps.webhooks.rotateSecret(id, deps.newSecret(), new Date(now.getTime() + WEBHOOK_SECRET_OVERLAP_MS), now);
}

/** Deletes a subscription with its deliveries. @throws NotFoundError('webhook') */
export function deleteWebhook(deps: Pick<WebhookDeps, 'webhooks'>, id: string): Promise<void> {
  return deps.webhooks.delete(id);
}

/**
 * One page of a subscription's deliveries, newest first.
 * @throws NotFoundError('webhook'); InvalidCursorError
 */
export async function listWebhookDeliveries(
  deps: Pick<WebhookDeps, 'webhooks'>,
  id: string,
  query: DeliveryQuery,
): Promise<{ items: WebhookDelivery[]; nextCursor: string | null }> {
  await getWebhook(deps, id);
  return deps.webhooks.deliveries(id, query);
}

/**
 * Makes a delivery pending again, from its first attempt, due now.
 * @throws NotFoundError('webhook') for an unknown subscription, NotFoundError('delivery') for a delivery it does not have
 */
export async function redeliverWebhookDelivery(
  deps: Pick<WebhookDeps, 'webhooks' | 'clock'>,
  id: string,
  deliveryId: string,
): Promise<WebhookDelivery> {
  await getWebhook(deps, id);
  return deps.webhooks.redeliver(id, deliveryId, deps.clock.now());
}
