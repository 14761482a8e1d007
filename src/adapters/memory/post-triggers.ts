import type { Post } from '../../domain/post.js';
import { compareUtf8 } from '../../domain/text.js';
import { webhookEventOf, type WebhookEventType } from '../../domain/webhooks.js';
import type { MemoryData, Session } from './state.js';

/** 32 random lowercase hex digits (Web Crypto's `crypto`, a global: the memory adapter imports no module). */
function randomHex32(): string {
  return crypto.randomUUID().replace(/-/g, '');
}

/**
 * The webhook outbox (`PostRepository`, "Webhook outbox"), as the Drizzle store's trigger
 * `webhook_outbox` writes it: for a change of one post, from `before` (undefined: it did not exist)
 * to `after` (undefined: it was deleted), the event `webhookEventOf` names and one pending
 * delivery per enabled subscription listening to it (in subscription id order); nothing when it
 * names none or none listens.
 */
function writeOutbox(data: MemoryData, before: Post | undefined, after: Post | undefined): void {
  const type = webhookEventOf(before?.status ?? null, after?.status ?? null);
  if (type === null) return;
  const listening = [...data.webhooks.values()].filter((s) => s.enabled && s.events.includes(type)).sort((a, b) => compareUtf8(a.id, b.id));
  if (listening.length === 0) return;
  const post = (after ?? before)!;
  // A deletion has no `updatedAt` of its own: the one place the memory store reads the clock.
  const occurredAt = after !== undefined ? new Date(after.updatedAt.getTime()) : new Date();
  const eventId = `msg_${randomHex32()}`;
  data.webhookEvents.set(eventId, { id: eventId, type, postId: post.id, occurredAt, post: structuredClone(post) });
  for (const subscription of listening) enqueue(data, subscription.id, eventId, type, post.id, occurredAt);
}

function enqueue(data: MemoryData, subscriptionId: string, eventId: string, eventType: WebhookEventType, postId: string, at: Date): void {
  data.deliverySeq += 1;
  const id = `dlv_${randomHex32()}`;
  data.deliveries.set(id, {
    id,
    seq: data.deliverySeq,
    subscriptionId,
    eventId,
    eventType,
    postId,
    status: 'pending',
    attempts: 0,
    nextAttemptAt: new Date(at.getTime()),
    lastAttemptAt: null,
    responseStatus: null,
    error: null,
    latencyMs: null,
    createdAt: new Date(at.getTime()),
    leaseUntil: null,
  });
}

/** What the Drizzle store's triggers and cascades on `posts` do after a row is written. */
function afterPostWrite(data: MemoryData, before: Post | undefined, after: Post | undefined): void {
  writeOutbox(data, before, after);
  if (after === undefined && before !== undefined) {
    for (const [id, link] of data.previewLinks) if (link.postId === before.id) data.previewLinks.delete(id);
  }
}

/** `posts` with its `set` and `delete` reporting each row's change to `onWrite`, after it is made. */
function watched(posts: Map<string, Post>, onWrite: (before: Post | undefined, after: Post | undefined) => void): Map<string, Post> {
  return new Proxy(posts, {
    get(target, property) {
      if (property === 'set') {
        return (id: string, post: Post) => {
          const before = target.get(id);
          target.set(id, post);
          onWrite(before, post);
          return target;
        };
      }
      if (property === 'delete') {
        return (id: string) => {
          const before = target.get(id);
          const deleted = target.delete(id);
          if (before !== undefined) onWrite(before, undefined);
          return deleted;
        };
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/**
 * The session the post repository writes through: each row it writes to `posts` runs what the
 * Drizzle store's triggers on `posts` run (the webhook outbox, the preview links' cascade) in the
 * same atomic call, so they are committed, or dropped with a unit of work's draft, together.
 * Every write of posts is caught here, whichever method makes it.
 */
export function withPostTriggers(session: Session): Session {
  return {
    exec: (fn) =>
      session.exec((data) => {
        const posts = data.posts;
        data.posts = watched(posts, (before, after) => afterPostWrite(data, before, after));
        try {
          return fn(data);
        } finally {
          data.posts = posts;
        }
      }),
  };
}
