import { UnavailableError } from '../../domain/errors.js';
import type { Post } from '../../domain/post.js';
import type { Media } from '../../domain/media.js';
import type { ActivityEvent } from '../../domain/ports/activity-log.js';
import type { StoredResponse } from '../../domain/ports/idempotency-store.js';
import type { RefreshToken } from '../../domain/ports/refresh-token-repository.js';
import type { Revision } from '../../domain/ports/revision-repository.js';
import type { User } from '../../domain/ports/user-repository.js';
import type { PreviewLink } from '../../domain/preview-links.js';
import type { WebhookDelivery, WebhookEvent, WebhookSubscription } from '../../domain/webhooks.js';

interface IdempotencyRecord {
  fingerprint: string;
  state: 'held' | 'completed';
  /** Epoch ms of the claim that holds (or completed) the key: its fence. */
  claimedAt: number;
  /** Epoch ms at which a held claim may be taken over. */
  leaseUntil: number;
  /** Epoch ms after which the record may be forgotten. */
  expiresAt: number;
  response: StoredResponse | null;
  /** What a multi-step request saved so far (see the port). */
  progress: string | null;
}

/** A delivery as the memory store keeps it: its place in its subscription's queue, and its claim. */
export interface StoredDelivery extends WebhookDelivery {
  /** Orders the deliveries as the writes that made them (`webhook_deliveries.seq`). */
  seq: number;
  /** Epoch ms until which a worker's claim holds it; null when no claim does. */
  leaseUntil: number | null;
}

/** Every table of the memory store. Only plain data, so `structuredClone` copies it. */
export interface MemoryData {
  posts: Map<string, Post>;
  /** postId → version → revision. */
  revisions: Map<string, Map<number, Revision>>;
  activity: Map<string, ActivityEvent>;
  /** `JSON.stringify([userId, key])` → record. */
  idempotency: Map<string, IdempotencyRecord>;
  users: Map<string, User>;
  refreshTokens: Map<string, RefreshToken>;
  /** key → failed logins (an id, and the instant in epoch ms). */
  loginFailures: Map<string, { id: number; at: number }[]>;
  /** The last id given to a failed login. */
  loginFailureSeq: number;
  /** `JSON.stringify([account, address])` → the last login from there, epoch ms. */
  loginAddresses: Map<string, number>;
  /** key → its rate-limit window: hits counted, and its end in epoch ms. */
  rateWindows: Map<string, { hits: number; endsAt: number }>;
  webhooks: Map<string, WebhookSubscription>;
  /** The outbox: events, and their deliveries by id. Written by the post writes (post-triggers.ts). */
  webhookEvents: Map<string, WebhookEvent>;
  deliveries: Map<string, StoredDelivery>;
  /** The last `seq` given to a delivery. */
  deliverySeq: number;
  previewLinks: Map<string, PreviewLink>;
}

function emptyData(): MemoryData {
  return {
    posts: new Map(),
    revisions: new Map(),
    activity: new Map(),
    idempotency: new Map(),
    users: new Map(),
    refreshTokens: new Map(),
    loginFailures: new Map(),
    loginFailureSeq: 0,
    loginAddresses: new Map(),
    rateWindows: new Map(),
    webhooks: new Map(),
    webhookEvents: new Map(),
    deliveries: new Map(),
    deliverySeq: 0,
    previewLinks: new Map(),
  };
}

/**
 * The media library and its bytes. Kept apart from `MemoryData`: no transaction writes them, and a
 * transaction's copy of the data would otherwise copy every blob.
 */
export interface MemoryLibrary {
  media: Map<string, Media>;
  /** key → bytes (held by the store alone) and their type. */
  blobs: Map<string, { bytes: Uint8Array; contentType: string; createdAt: Date }>;
}

/** Where a repository reads and writes: the committed data, or a transaction's draft. */
export interface Session {
  /** Runs `fn` on the data this session sees; `fn` is synchronous, so each call is atomic. */
  exec<T>(fn: (data: MemoryData) => T): Promise<T>;
}

/** A FIFO lock made of a promise chain. */
class Mutex {
  #tail: Promise<unknown> = Promise.resolve();

  lock<T>(fn: () => T | Promise<T>): Promise<T> {
    const result = this.#tail.then(fn);
    this.#tail = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }
}

/**
 * The committed state plus the lock that serialises transactions. Calls outside a transaction
 * take the lock too, so they never see a transaction half done.
 */
export class MemoryDatabase {
  data: MemoryData = emptyData();
  readonly library: MemoryLibrary = { media: new Map(), blobs: new Map() };
  readonly mutex = new Mutex();
  /** The job locks held by running `runExclusive` units. */
  readonly jobs = new Set<string>();
  #closed = false;

  readonly autoCommit: Session = {
    exec: (fn) =>
      this.mutex.lock(() => {
        this.assertOpen();
        return fn(this.data);
      }),
  };

  assertOpen(): void {
    if (this.#closed) throw new UnavailableError(1, 'The memory store is closed.');
  }

  close(): void {
    this.#closed = true;
  }
}

export function copyDate(d: Date): Date {
  return new Date(d.getTime());
}

export function copyNullableDate(d: Date | null): Date | null {
  return d === null ? null : new Date(d.getTime());
}
