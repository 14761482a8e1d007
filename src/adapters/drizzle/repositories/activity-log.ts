import { checkedPageLimit, hasCursor, pageOf } from '../../../domain/paging.js';
import { and, desc, eq, gte, lt, sql, type SQL } from 'drizzle-orm';
import { ACTIVITY_POSITION, activityCursorScope, decodeCursor, encodeCursor } from '../../../domain/cursor.js';
import type { ActivityType } from '../../../domain/post.js';
import type { ActivityEvent, ActivityLog, ActivityQuery, DailyCount } from '../../../domain/ports/activity-log.js';
import { type Database, type DbSession } from '../driver/database.js';
import { activityEvents } from '../schema/schema.js';

const DAY_MS = 86_400_000;

export class DrizzleActivityLog implements ActivityLog {
  constructor(private readonly session: DbSession) {}

  #newestStatement: ReturnType<typeof newestStatement> | undefined;

  /**
   * The newest events, unfiltered: what every Content API list, feed and tag list asks (their
   * Last-Modified, `ContentQueries.lastChange`), so it is prepared once, not built and planned
   * per request (the auto-commit session only: its `db` never changes).
   */
  get #newest() {
    return (this.#newestStatement ??= newestStatement(this.session.db));
  }

  async append(event: ActivityEvent): Promise<void> {
    await this.session.run(
      (db) =>
        db
          .insert(activityEvents)
          .values({
            id: event.id,
            type: event.type,
            postId: event.postId,
            postTitle: event.postTitle,
            postVersion: event.postVersion,
            actorId: event.actor.id,
            actorName: event.actor.name,
            occurredAt: event.occurredAt,
          })
          .prepare('activity_append')
          .execute(),
      { id: event.id },
    );
  }

  async list(query: ActivityQuery): Promise<{ items: ActivityEvent[]; nextCursor: string | null }> {
    const limit = checkedPageLimit(query.limit);
    const scope = activityCursorScope(query);
    const where: SQL[] = [];
    if (query.postId !== undefined) where.push(eq(activityEvents.postId, query.postId));
    if (query.type !== undefined) where.push(eq(activityEvents.type, query.type));
    if (hasCursor(query.cursor)) {
      const [iso, id] = decodeCursor(query.cursor, scope, ACTIVITY_POSITION) as [string, string];
      where.push(sql`(${activityEvents.occurredAt}, ${activityEvents.id}) < (${iso}::timestamptz, ${id})`);
    }
    const rows = await this.session.run((db) =>
      where.length === 0 && !this.session.inTransaction
        ? this.#newest.execute({ fetch: limit + 1 })
        : db
            .select()
            .from(activityEvents)
            .where(and(...where))
            .orderBy(desc(activityEvents.occurredAt), desc(activityEvents.id))
            .limit(limit + 1),
    );
    const events = rows.map((row): ActivityEvent => ({
      id: row.id,
      type: row.type as ActivityType,
      postId: row.postId,
      postTitle: row.postTitle,
      postVersion: row.postVersion,
      actor: { id: row.actorId, name: row.actorName },
      occurredAt: row.occurredAt,
    }));
    return pageOf(events, limit, (last) => encodeCursor(scope, [last.occurredAt.toISOString(), last.id]));
  }

  async countPerDay(from: Date, days: number): Promise<DailyCount[]> {
    if (!Number.isInteger(days) || days < 0) {
      throw new RangeError(`days must be a non-negative integer, got ${days}`);
    }
    const first = Date.UTC(from.getUTCFullYear(), from.getUTCMonth(), from.getUTCDate());
    const end = first + days * DAY_MS;
    const day = sql<number>`floor(extract(epoch from ${activityEvents.occurredAt} - ${new Date(first).toISOString()}::timestamptz) / 86400)::int`;
    const rows =
      days === 0
        ? []
        : await this.session.run((db) =>
            db
              .select({ day: day.mapWith(Number), count: sql<number>`count(*)::int`.mapWith(Number) })
              .from(activityEvents)
              .where(and(gte(activityEvents.occurredAt, new Date(first)), lt(activityEvents.occurredAt, new Date(end))))
              .groupBy(sql`1`),
          );
    const counts = Array.from({ length: days }, () => 0);
    for (const row of rows) {
      if (row.day >= 0 && row.day < days) counts[row.day] = row.count;
    }
    return counts.map((count, i) => ({
      date: new Date(first + i * DAY_MS).toISOString().slice(0, 10),
      count,
    }));
  }
}

function newestStatement(db: Database) {
  return db
    .select()
    .from(activityEvents)
    .orderBy(desc(activityEvents.occurredAt), desc(activityEvents.id))
    .limit(sql.placeholder('fetch'))
    .prepare('activity_newest');
}
