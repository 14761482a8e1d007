import {
  DEFAULT_RETRY_SCHEDULE_MS,
  isDeliverySuccess,
  retryDelayMs,
  WEBHOOK_IN_FLIGHT_MAX,
  WEBHOOK_IN_FLIGHT_PER_SUBSCRIPTION,
  type AttemptOutcome,
  type ClaimedDelivery,
  type Clock,
  type Post,
  type WebhookRepository,
  type WebhookRequest,
  type WebhookResponse,
  type WebhookSigner,
  type WebhookTransport,
} from '../domain/index.js';
import { runEvery } from './periodic.js';

type LogFields = Record<string, unknown>;

/** A post as the payload shows it (its cover looked up, maybe). */
type PresentPost = (post: Post) => unknown | Promise<unknown>;

export interface WebhookDeliveryOptions {
  webhooks: Pick<WebhookRepository, 'claim' | 'settle'>;
  transport: Pick<WebhookTransport, 'send'>;
  signer: Pick<WebhookSigner, 'sign'>;
  clock: Clock;
  /** The post as a payload shows it: the Content API's representation (`ContentPost`, without `html`). */
  presentPost: PresentPost;
  /** The transport's timeout: a claim holds 5 s longer than it (WEBHOOK_TIMEOUT_MS). */
  timeoutMs: number;
  /** Pauses after each failed attempt (WEBHOOK_RETRY_SCHEDULE); its length + 1 attempts in all. */
  retrySchedule?: readonly number[];
  /** In [0, 1): lengthens each pause by 0 to 20 % (`retryDelayMs`). */
  random?: () => number;
  /** Most deliveries this process has in flight at once (default `WEBHOOK_IN_FLIGHT_MAX`: every subscription's share). */
  concurrency?: number;
  /** Most deliveries of one subscription in flight at once, in every process together (default `WEBHOOK_IN_FLIGHT_PER_SUBSCRIPTION`). */
  perSubscription?: number;
  log: {
    debug(message: string, fields?: LogFields): void;
    info(message: string, fields?: LogFields): void;
    warn(message: string, fields?: LogFields): void;
  };
}

/** What one round did. */
export interface DeliveryRound {
  /** Deliveries claimed. */
  claimed: number;
  /** Attempts recorded as a success or failure (a lost claim is neither). */
  succeeded: number;
  failed: number;
}

/** How long a claim outlasts the transport's timeout: room to build the payload and settle. */
const LEASE_MARGIN_MS = 5000;

/** `ms` in the largest unit that keeps it above one: "40 seconds", "12 minutes", "27 hours". */
function spanInWords(ms: number): string {
  const [value, unit] = ms >= 3_600_000 ? [ms / 3_600_000, 'hour'] : ms >= 60_000 ? [ms / 60_000, 'minute'] : [ms / 1000, 'second'];
  const rounded = value >= 10 ? Math.round(value) : Math.round(value * 10) / 10;
  return `${rounded} ${unit}${rounded === 1 ? '' : 's'}`;
}

/** Why an attempt failed, in words: the receiver's status (a redirect is not followed), or the transport's error. */
function failureOf(response: WebhookResponse): string {
  if (response.kind === 'failed') return response.error;
  if (response.status >= 300 && response.status < 400) return `HTTP ${response.status}: redirect not followed`;
  return `HTTP ${response.status}`;
}

/**
 * The body of every delivery of an event: `{ type, timestamp, data: { post } }` (the spec's
 * `WebhookPayload`). A post never published shows as `publishedAt` its `publishAt` when it was
 * scheduled, else the event's time.
 */
async function webhookPayloadOf(claimed: ClaimedDelivery, presentPost: PresentPost): Promise<unknown> {
  const { event } = claimed;
  const post = { ...event.post, publishedAt: event.post.publishedAt ?? event.post.publishAt ?? event.occurredAt };
  return { type: event.type, timestamp: event.occurredAt.toISOString(), data: { post: await presentPost(post) } };
}

/**
 * Delivers the webhook outbox: keeps up to `concurrency` deliveries in flight, each on its own,
 * claiming more whenever a slot frees (a delivery settled), at every poll and at `wake()`. Events
 * are independent, but for a post's: a claim takes a delivery only when it is the oldest pending
 * one of its post to its subscription, and at most `perSubscription` of a subscription are in
 * flight (see `WebhookRepository.claim`). So a failing event is retried without holding back
 * other posts' events, and a receiver that hangs holds only its own subscription's slots: the
 * default `concurrency` has room for every subscription's `perSubscription`. Each is sent signed with the subscription's secret and, until it expires, its
 * previous one too, and settled: success on a 2xx; otherwise a retry after the schedule's next
 * pause, or, after the last, the delivery failed and its subscription disabled with the reason.
 * Every attempt carries the event's id as `webhook-id`, so receivers drop the repeats that
 * at-least-once delivery brings (a process that died after sending and before settling). Logs
 * never carry the secret, the signature or the body.
 */
export class WebhookDeliveryWorker {
  readonly #options: WebhookDeliveryOptions;
  readonly #schedule: readonly number[];
  readonly #concurrency: number;
  readonly #perSubscription: number;
  /** The deliveries in flight (each settles itself and frees its slot). */
  readonly #inFlight = new Set<Promise<unknown>>();
  /** The claim under way: one at a time. */
  #claiming: Promise<void> | null = null;
  /** A slot freed, or a wake, while a claim was under way: claim again after it. */
  #again = false;
  #stopped = false;

  constructor(options: WebhookDeliveryOptions) {
    this.#options = options;
    this.#schedule = options.retrySchedule ?? DEFAULT_RETRY_SCHEDULE_MS;
    this.#concurrency = options.concurrency ?? WEBHOOK_IN_FLIGHT_MAX;
    this.#perSubscription = options.perSubscription ?? WEBHOOK_IN_FLIGHT_PER_SUBSCRIPTION;
  }

  /** How long a claim holds: the transport's timeout and 5 s. */
  get leaseMs(): number {
    return this.#options.timeoutMs + LEASE_MARGIN_MS;
  }

  /**
   * One round, outside the pool: claims what is due (up to `concurrency`) and delivers it, waiting
   * for every one to settle. Throws only when claiming does (the store down).
   */
  async runOnce(): Promise<DeliveryRound> {
    const { webhooks, clock } = this.#options;
    const claimed = await webhooks.claim(clock.now(), this.leaseMs, this.#concurrency, this.#perSubscription);
    const outcomes = await Promise.all(claimed.map((c) => this.#deliver(c)));
    return {
      claimed: claimed.length,
      succeeded: outcomes.filter((o) => o === 'succeeded').length,
      failed: outcomes.filter((o) => o === 'failed').length,
    };
  }

  /** Fills the pool and waits until nothing is in flight and a claim found nothing more due. */
  async runDue(): Promise<void> {
    await this.#fill();
    await this.#idle();
  }

  /**
   * Polls every `intervalMs` (a claim that fails, the store down, is logged and the next comes on
   * time). Returns a stop function that lets the deliveries in flight finish and settle.
   */
  start(intervalMs: number): () => Promise<void> {
    this.#stopped = false;
    const stopPolling = runEvery('webhook delivery', intervalMs, () => this.#fill(), this.#options.log);
    return async () => {
      this.#stopped = true;
      await stopPolling();
      await this.#idle();
    };
  }

  /** Claims soon (after a write that may have enqueued deliveries), not waiting for the next tick. */
  wake(): void {
    if (this.#stopped) return;
    this.#fill().catch((error: unknown) => this.#options.log.warn('webhook delivery failed', { error }));
  }

  /** Claims into the free slots, and again while a slot freed meanwhile; one claim at a time. */
  #fill(): Promise<void> {
    if (this.#claiming !== null) {
      this.#again = true;
      return this.#claiming;
    }
    this.#claiming = (async () => {
      try {
        do {
          this.#again = false;
          await this.#claimInto(this.#concurrency - this.#inFlight.size);
        } while (this.#again && !this.#stopped);
      } finally {
        this.#claiming = null;
      }
    })();
    return this.#claiming;
  }

  async #claimInto(free: number): Promise<void> {
    if (free <= 0 || this.#stopped) return;
    const { webhooks, clock, log } = this.#options;
    const claimed = await webhooks.claim(clock.now(), this.leaseMs, free, this.#perSubscription);
    for (const c of claimed) {
      const flight: Promise<unknown> = this.#deliver(c).finally(() => {
        this.#inFlight.delete(flight);
        if (!this.#stopped) this.#fill().catch((error: unknown) => log.warn('webhook delivery failed', { error }));
      });
      this.#inFlight.add(flight);
    }
  }

  /** Until no claim is under way and no delivery in flight. */
  async #idle(): Promise<void> {
    while (this.#claiming !== null || this.#inFlight.size > 0) {
      await Promise.all([this.#claiming?.catch(() => undefined), ...this.#inFlight]);
    }
  }

  /** One attempt, settled; a failure to build or settle is logged and the claim left to lapse (retried then). */
  async #deliver(claimed: ClaimedDelivery): Promise<'succeeded' | 'failed' | 'lost'> {
    const ids = { deliveryId: claimed.delivery.id, subscriptionId: claimed.subscription.id, eventId: claimed.event.id };
    try {
      const response = await this.#options.transport.send(await this.#requestOf(claimed));
      const outcome = this.#outcomeOf(claimed, response);
      const recorded = await this.#options.webhooks.settle(claimed, outcome);
      this.#logAttempt(claimed, response, outcome, recorded, ids);
      if (!recorded) return 'lost';
      return outcome.ok ? 'succeeded' : 'failed';
    } catch (error) {
      this.#options.log.warn('webhook delivery could not be completed; it is retried when its claim lapses', { ...ids, error });
      return 'lost';
    }
  }

  async #requestOf(claimed: ClaimedDelivery): Promise<WebhookRequest> {
    const { signer, clock, presentPost } = this.#options;
    const { subscription, event } = claimed;
    const body = JSON.stringify(await webhookPayloadOf(claimed, presentPost));
    const now = clock.now();
    const timestamp = Math.floor(now.getTime() / 1000);
    const secrets = [subscription.secret];
    const previous = subscription.previousSecret;
    if (previous !== null && previous.expiresAt.getTime() > now.getTime()) secrets.push(previous.secret);
    const signature = secrets.map((secret) => signer.sign(secret, event.id, timestamp, body)).join(' ');
    return {
      url: subscription.url,
      headers: { 'webhook-id': event.id, 'webhook-timestamp': String(timestamp), 'webhook-signature': signature },
      body,
    };
  }

  #outcomeOf(claimed: ClaimedDelivery, response: WebhookResponse): AttemptOutcome {
    const at = this.#options.clock.now();
    const base = {
      at,
      responseStatus: response.kind === 'answered' ? response.status : null,
      latencyMs: response.latencyMs,
    };
    if (response.kind === 'answered' && isDeliverySuccess(response.status)) return { ...base, ok: true, error: null, retryAt: null };
    const error = failureOf(response);
    const attempts = claimed.delivery.attempts;
    const delay = retryDelayMs(attempts, this.#schedule, this.#options.random ?? Math.random);
    if (delay !== null) return { ...base, ok: false, error, retryAt: new Date(at.getTime() + delay) };
    const last =
      response.kind === 'answered' ? `the last answer was HTTP ${response.status}` : `the last attempt failed: ${response.error}`;
    const span = spanInWords(at.getTime() - claimed.delivery.createdAt.getTime());
    return {
      ...base,
      ok: false,
      error,
      retryAt: null,
      disableReason: `Disabled at ${at.toISOString()} after the delivery ${claimed.event.id} failed ${attempts} attempt${attempts === 1 ? '' : 's'} over ${span}; ${last}.`,
    };
  }

  #logAttempt(claimed: ClaimedDelivery, response: WebhookResponse, outcome: AttemptOutcome, recorded: boolean, ids: LogFields): void {
    const { log } = this.#options;
    const fields = {
      ...ids,
      eventType: claimed.event.type,
      attempt: claimed.delivery.attempts,
      status: response.kind === 'answered' ? response.status : null,
      latencyMs: response.latencyMs,
    };
    if (!recorded) log.info('webhook attempt not recorded: its claim lapsed and another worker took the delivery', fields);
    else if (outcome.ok) log.info('webhook delivered', fields);
    else if (outcome.retryAt !== null) log.info('webhook attempt failed', { ...fields, error: outcome.error, retryAt: outcome.retryAt });
    else
      log.warn('webhook delivery failed for good; subscription disabled', {
        ...fields,
        error: outcome.error,
        reason: outcome.disableReason,
      });
  }
}
