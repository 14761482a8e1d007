import { describe, expect, it } from 'vitest';
import { activityCursorScope, encodeCursor } from '../../domain/cursor.js';
import { InvalidCursorError } from '../../domain/errors.js';
import type { ActivityType } from '../../domain/post.js';
import type { ActivityEvent, ActivityLog, ActivityQuery } from '../../domain/ports/activity-log.js';
import { ADA, type MakeStore, minute, newPost, rejectionOf, ulid, useStore } from './fixtures.js';

const P1 = ulid(101);
const P2 = ulid(102);
const P3 = ulid(103);

function event(n: number, postId: string, type: ActivityType, occurredAt: Date): ActivityEvent {
  return {
    id: ulid(n),
    type,
    postId,
    postTitle: `Title of ${postId.slice(-3)}`,
    postVersion: n,
    actor: { ...ADA },
    occurredAt,
  };
}

/** Four events share minute 20; inserted in an order that is neither newest first nor its reverse. */
const EVENTS: ActivityEvent[] = [
  event(3, P2, 'created', minute(20)),
  event(8, P1, 'updated', minute(40)),
  event(1, P1, 'created', minute(10)),
  event(7, P2, 'updated', minute(20)),
  event(5, P2, 'updated', minute(5)),
  event(2, P1, 'updated', minute(20)),
  event(6, P3, 'created', minute(30)),
  event(4, P1, 'published', minute(20)),
];
const NEWEST_FIRST = [8, 6, 7, 4, 3, 2, 1, 5];

export function describeActivityLogContract(make: MakeStore): void {
  describe('ActivityLog', () => {
    const store = useStore(make);
    const activity = (): ActivityLog => store().activity;

    async function seed(): Promise<void> {
      for (const e of EVENTS) await activity().append(e);
    }

    async function ids(query: Partial<ActivityQuery>): Promise<number[]> {
      const page = await activity().list({ limit: 100, ...query });
      return page.items.map((e) => Number(e.id.slice(-4)));
    }

    async function walk(query: Omit<ActivityQuery, 'cursor'>, between?: () => Promise<void>): Promise<number[][]> {
      const pages: number[][] = [];
      let cursor: string | null = null;
      do {
        const page = await activity().list({ ...query, cursor });
        pages.push(page.items.map((e) => Number(e.id.slice(-4))));
        cursor = page.nextCursor;
        if (pages.length > 50) throw new Error('the walk does not end');
        if (cursor !== null && between !== undefined) await between();
      } while (cursor !== null);
      return pages;
    }

    it('append stores an event that list returns as stored', async () => {
      const e = event(1, P1, 'created', new Date('2026-03-04T05:06:07.891Z'));
      await activity().append(e);
      expect((await activity().list({ limit: 10 })).items).toStrictEqual([e]);
    });

    it('events outlive their post: appending for a deleted post works and its events stay listed', async () => {
      const post = await store().posts.create(newPost(101, { title: 'Gone soon' }));
      await activity().append({ ...event(1, post.id, 'created', minute(1)), postTitle: 'Gone soon' });
      await store().posts.delete(post.id, 1);
      await activity().append({ ...event(2, post.id, 'deleted', minute(2)), postTitle: 'Gone soon' });
      const page = await activity().list({ postId: post.id, limit: 10 });
      expect(page.items.map((e) => [e.type, e.postTitle])).toEqual([
        ['deleted', 'Gone soon'],
        ['created', 'Gone soon'],
      ]);
    });

    it('list returns events newest first (by occurredAt, ties by id, both descending)', async () => {
      await seed();
      expect(await ids({})).toEqual(NEWEST_FIRST);
    });

    it('list keeps one post and/or one type when asked', async () => {
      await seed();
      expect(await ids({ postId: P1 })).toEqual([8, 4, 2, 1]);
      expect(await ids({ type: 'updated' })).toEqual([8, 7, 2, 5]);
      expect(await ids({ postId: P1, type: 'updated' })).toEqual([8, 2]);
      expect(await ids({ postId: P2, type: 'updated' })).toEqual([7, 5]);
      expect(await ids({ postId: P3, type: 'deleted' })).toEqual([]);
    });

    it('list is keyset-paginated: every event once, nextCursor null on the last page', async () => {
      await seed();
      expect(await walk({ limit: 3 })).toEqual([
        [8, 6, 7],
        [4, 3, 2],
        [1, 5],
      ]);
      expect(await walk({ limit: 2 })).toEqual([
        [8, 6],
        [7, 4],
        [3, 2],
        [1, 5],
      ]);
      expect(await walk({ limit: 1 })).toEqual(NEWEST_FIRST.map((n) => [n]));
      expect(await walk({ limit: 8 })).toEqual([NEWEST_FIRST]);
      expect(await walk({ limit: 1, postId: P1 })).toEqual([[8], [4], [2], [1]]);
      expect(await walk({ limit: 1, type: 'updated', postId: P2 })).toEqual([[7], [5]]);
    });

    it('a page resumes strictly after its cursor when events are appended between fetches', async () => {
      await seed();
      let k = 0;
      const pages = await walk({ limit: 3 }, async () => {
        k += 1;
        await activity().append(event(100 + k, P1, 'updated', minute(50 + k)));
        await activity().append(event(200 + k, P1, 'updated', minute(0)));
      });
      const seen = pages.flat();
      expect(new Set(seen).size).toBe(seen.length);
      expect(seen.filter((n) => n < 100)).toEqual(NEWEST_FIRST);
      expect(seen.filter((n) => n > 200)).toEqual([202, 201]);
    });

    it('a cursor from other filters throws InvalidCursorError', async () => {
      await seed();
      const cursor = (await activity().list({ limit: 1, postId: P1 })).nextCursor;
      expect(cursor).not.toBeNull();
      const others: ActivityQuery[] = [{ limit: 1 }, { limit: 1, postId: P2 }, { limit: 1, postId: P1, type: 'updated' }];
      for (const other of others) {
        expect(await rejectionOf(activity().list({ ...other, cursor }))).toBeInstanceOf(InvalidCursorError);
      }
      const byType = (await activity().list({ limit: 1, type: 'updated' })).nextCursor;
      const error = await rejectionOf(activity().list({ limit: 1, type: 'created', cursor: byType }));
      expect(error).toBeInstanceOf(InvalidCursorError);
    });

    it('a garbled cursor throws InvalidCursorError', async () => {
      await seed();
      const own = (await activity().list({ limit: 1 })).nextCursor!;
      for (const cursor of [
        'garbage',
        'not a cursor',
        own.slice(0, -3),
        encodeCursor(activityCursorScope({}), [8]),
        encodeCursor(activityCursorScope({}), ['noon', ulid(1)]),
      ]) {
        expect(await rejectionOf(activity().list({ limit: 1, cursor })), cursor).toBeInstanceOf(InvalidCursorError);
      }
    });

    it('no events is [] with nextCursor null', async () => {
      expect(await activity().list({ limit: 10 })).toStrictEqual({ items: [], nextCursor: null });
      await seed();
      expect(await activity().list({ limit: 10, postId: ulid(404) })).toStrictEqual({
        items: [],
        nextCursor: null,
      });
    });

    it('returns copies: mutating an input or a result does not change the stored event', async () => {
      const input = event(1, P1, 'created', minute(1));
      await activity().append(input);
      input.actor.name = 'input';
      input.occurredAt.setUTCFullYear(1990);
      const listed = (await activity().list({ limit: 1 })).items[0]!;
      listed.actor.name = 'listed';
      listed.occurredAt.setUTCFullYear(1991);
      expect((await activity().list({ limit: 1 })).items).toStrictEqual([event(1, P1, 'created', minute(1))]);
    });

    describe('countPerDay', () => {
      it('returns exactly `days` entries, one per UTC day starting at the UTC day of `from`, oldest first, days without events included with 0', async () => {
        const at = (iso: string, n: number): ActivityEvent => event(n, P1, 'updated', new Date(iso));
        for (const e of [
          at('2026-02-28T23:59:59.999Z', 1),
          at('2026-03-01T00:00:00.000Z', 2),
          at('2026-03-01T23:59:59.999Z', 3),
          at('2026-03-02T00:00:00.000Z', 4),
          at('2026-03-04T23:59:59.999Z', 5),
          at('2026-03-05T00:00:00.000Z', 6),
        ]) {
          await activity().append(e);
        }
        // `from` late in its day: the whole UTC day counts, not only the hours after `from`.
        expect(await activity().countPerDay(new Date('2026-03-01T15:30:00.000Z'), 4)).toStrictEqual([
          { date: '2026-03-01', count: 2 },
          { date: '2026-03-02', count: 1 },
          { date: '2026-03-03', count: 0 },
          { date: '2026-03-04', count: 1 },
        ]);
        expect(await activity().countPerDay(new Date('2026-02-28T23:59:59.999Z'), 1)).toStrictEqual([{ date: '2026-02-28', count: 1 }]);
        expect(await activity().countPerDay(new Date('2026-03-05T00:00:00.000Z'), 2)).toStrictEqual([
          { date: '2026-03-05', count: 1 },
          { date: '2026-03-06', count: 0 },
        ]);
      });

      it('countPerDay counts every type and post, across month and year ends', async () => {
        await activity().append(event(1, P1, 'created', new Date('2026-12-31T10:00:00.000Z')));
        await activity().append(event(2, P2, 'deleted', new Date('2026-12-31T11:00:00.000Z')));
        await activity().append(event(3, P3, 'published', new Date('2027-01-01T00:00:00.000Z')));
        expect(await activity().countPerDay(new Date('2026-12-30T12:00:00.000Z'), 4)).toStrictEqual([
          { date: '2026-12-30', count: 0 },
          { date: '2026-12-31', count: 2 },
          { date: '2027-01-01', count: 1 },
          { date: '2027-01-02', count: 0 },
        ]);
      });

      it('countPerDay of an empty log is `days` zeros; zero days is []', async () => {
        expect(await activity().countPerDay(new Date('2026-03-01T00:00:00.000Z'), 3)).toStrictEqual([
          { date: '2026-03-01', count: 0 },
          { date: '2026-03-02', count: 0 },
          { date: '2026-03-03', count: 0 },
        ]);
        expect(await activity().countPerDay(new Date('2026-03-01T00:00:00.000Z'), 0)).toStrictEqual([]);
      });
    });
  });
}
