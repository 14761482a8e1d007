import type { ActivityType } from '../post.js';
import type { Actor } from './revision-repository.js';

export interface ActivityEvent {
  id: string;
  type: ActivityType;
  postId: string;
  /** The title at the moment of the event; kept after the post is deleted. */
  postTitle: string;
  postVersion: number;
  actor: Actor;
  occurredAt: Date;
}

export interface ActivityQuery {
  postId?: string;
  type?: ActivityType;
  limit: number;
  cursor?: string | null;
}

export interface DailyCount {
  /** `YYYY-MM-DD`, a UTC day. */
  date: string;
  count: number;
}

/**
 * The append-only log of every change to a post.
 * - `append` stores an event; events outlive their post.
 * - `list` returns events newest first (by `occurredAt`, ties by id, both descending), optionally
 *   for one post and/or one type, keyset-paginated like every list (`nextCursor` null on the last
 *   page, a cursor from other filters throws `InvalidCursorError`, no events is `[]`).
 * - `countPerDay(from, days)` returns exactly `days` entries, one per UTC day starting at the UTC
 *   day of `from`, oldest first, days without events included with 0.
 */
export interface ActivityLog {
  append(event: ActivityEvent): Promise<void>;
  list(query: ActivityQuery): Promise<{ items: ActivityEvent[]; nextCursor: string | null }>;
  countPerDay(from: Date, days: number): Promise<DailyCount[]>;
}
