import { activityCursorScope } from '../../domain/cursor.js';
import { DuplicateIdError } from '../../domain/errors.js';
import type { ActivityEvent, ActivityLog, ActivityQuery, DailyCount } from '../../domain/ports/activity-log.js';
import { newestFirstPage } from './newest-first.js';
import { copyDate, type Session } from './state.js';

const DAY_MS = 86_400_000;

function copyEvent(e: ActivityEvent): ActivityEvent {
  return {
    id: e.id,
    type: e.type,
    postId: e.postId,
    postTitle: e.postTitle,
    postVersion: e.postVersion,
    actor: { id: e.actor.id, name: e.actor.name },
    occurredAt: copyDate(e.occurredAt),
  };
}

export class MemoryActivityLog implements ActivityLog {
  readonly #session: Session;

  constructor(session: Session) {
    this.#session = session;
  }

  append(event: ActivityEvent): Promise<void> {
    return this.#session.exec((data) => {
      if (data.activity.has(event.id)) throw new DuplicateIdError(event.id);
      data.activity.set(event.id, copyEvent(event));
    });
  }

  list(query: ActivityQuery): Promise<{ items: ActivityEvent[]; nextCursor: string | null }> {
    return this.#session.exec((data) => {
      const kept = [...data.activity.values()].filter(
        (e) => (query.postId === undefined || e.postId === query.postId) && (query.type === undefined || e.type === query.type),
      );
      const page = newestFirstPage(kept, (e) => e.occurredAt, activityCursorScope(query), query);
      return { items: page.items.map(copyEvent), nextCursor: page.nextCursor };
    });
  }

  countPerDay(from: Date, days: number): Promise<DailyCount[]> {
    return this.#session.exec((data) => {
      if (!Number.isInteger(days) || days < 0) {
        throw new RangeError(`days must be a non-negative integer, got ${days}`);
      }
      const first = Date.UTC(from.getUTCFullYear(), from.getUTCMonth(), from.getUTCDate());
      const counts = Array.from({ length: days }, () => 0);
      for (const event of data.activity.values()) {
        const index = Math.floor((event.occurredAt.getTime() - first) / DAY_MS);
        if (index >= 0 && index < days) counts[index]! += 1;
      }
      return counts.map((count, i) => ({
        date: new Date(first + i * DAY_MS).toISOString().slice(0, 10),
        count,
      }));
    });
  }
}
