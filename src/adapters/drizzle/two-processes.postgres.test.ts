import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, requirePostgres, testServerUrl, type TestDatabase } from '../../../test/support/databases.js';
import { Housekeeping, HOUSEKEEPING_JOB } from '../../app/housekeeping.js';
import { History } from '../../app/history.js';
import { ScheduledPublishing } from '../../app/scheduled-publishing.js';
import { createUlidIds } from '../system/ulid-ids.js';
import { newPost } from '../contract/fixtures.js';
import { newSubscription, success } from '../contract/webhook-fixtures.js';
import { FixedClock } from '../../domain/clock.js';
import type { Store } from '../../domain/ports/store.js';
import { openPostgres, type PostgresConnection } from './driver/connect-postgres.js';
import { postgresSettings } from '../../config.js';
import { storeOver } from '../../open-store.js';

// Two pools on one database stand for two server processes: PostgreSQL advisory locks belong to
// sessions, and the pools share none.
const serverUrl = testServerUrl();
const available = await requirePostgres(serverUrl);

describe.skipIf(!available)('two processes on one PostgreSQL', () => {
  let database: TestDatabase;
  let pools: PostgresConnection[] = [];
  let stores: Store[] = [];
  beforeAll(async () => {
    database = await createTestDatabase(serverUrl);
    pools = await Promise.all(
      [1, 2].map(() =>
        openPostgres({ ...postgresSettings(database.url), poolSize: 4, idleTimeoutSeconds: 10, statementTimeoutMs: 10_000 }),
      ),
    );
    stores = pools.map((pg) => storeOver(pg, async () => undefined));
  });
  afterAll(async () => {
    await Promise.all(pools.map((pg) => pg.close()));
    await database?.drop();
  });

  describe('job locks', () => {
    it('a job held by one process is refused at once by the other, and free again when the holder commits', async () => {
      const [a, b] = stores as [Store, Store];
      let release!: () => void;
      let entered!: () => void;
      const inside = new Promise<void>((resolve) => (entered = resolve));
      const holder = a.unitOfWork.runExclusive(HOUSEKEEPING_JOB, async () => {
        entered();
        await new Promise<void>((resolve) => (release = resolve));
        return 'a';
      });
      await inside;
      const t0 = performance.now();
      expect(await b.unitOfWork.runExclusive(HOUSEKEEPING_JOB, async () => 'b')).toEqual({ ran: false });
      expect(performance.now() - t0).toBeLessThan(1000);
      const report = await new Housekeeping({
        unitOfWork: b.unitOfWork,
        clock: new FixedClock(new Date()),
        batchSize: 10,
        loginWindowSeconds: 900,
        refreshGraceSeconds: 10,
      }).runOnce();
      expect(report.ran).toBe(false);
      // Another job name is not affected.
      expect(await b.unitOfWork.runExclusive('another-job', async () => 'b')).toEqual({ ran: true, value: 'b' });
      release();
      expect(await holder).toEqual({ ran: true, value: 'a' });
      expect(await b.unitOfWork.runExclusive(HOUSEKEEPING_JOB, async () => 'b')).toEqual({ ran: true, value: 'b' });
    });

    it('a holder that fails releases the lock with its rollback', async () => {
      const [a, b] = stores as [Store, Store];
      await expect(a.unitOfWork.runExclusive(HOUSEKEEPING_JOB, async () => Promise.reject(new Error('job failed')))).rejects.toThrow(
        'job failed',
      );
      expect(await b.unitOfWork.runExclusive(HOUSEKEEPING_JOB, async () => 'b')).toEqual({ ran: true, value: 'b' });
    });
  });

  describe('login throttle', () => {
    it('admits exactly the limit of a burst split over two processes, and counts every admitted attempt once', async () => {
      const at = new Date('2026-06-01T12:00:00.000Z');
      const since = new Date(at.getTime() - 900_000);
      for (let round = 0; round < 5; round++) {
        const key = `address:192.0.2.${round}`;
        const outcomes = await Promise.all(
          Array.from({ length: 24 }, (_, i) => stores[i % 2]!.loginAttempts.admit(key, new Date(at.getTime() + i), since, 5)),
        );
        expect(
          outcomes.filter((o) => o.admitted),
          `round ${round}`,
        ).toHaveLength(5);
        expect((await stores[0]!.loginAttempts.failuresSince(key, since)).count).toBe(5);
      }
    });
  });

  describe('scheduled publishing', () => {
    it('publishes each due post exactly once while both processes run the job at once, in rounds', async () => {
      const [a, b] = stores as [Store, Store];
      const t0 = new Date('2026-06-01T12:00:00.000Z');
      const drafts = Array.from({ length: 120 }, (_, i) => newPost(i, { publishAt: new Date(t0.getTime() + (i % 10) * 1000) }));
      for (const draft of drafts) await a.posts.create(draft);
      const ids = drafts.map((draft) => draft.id);
      const clock = new FixedClock(new Date(t0.getTime() + 60_000));
      const jobs = [a, b].map(
        (store) =>
          new ScheduledPublishing({ unitOfWork: store.unitOfWork, clock, history: new History(createUlidIds(clock), clock), batchSize: 7 }),
      );
      const reports = await Promise.all(Array.from({ length: 6 }, (_, i) => jobs[i % 2]!.runOnce()));
      const published = reports.flatMap((r) => r.published.map((p) => p.id));
      expect(published.sort()).toEqual([...ids].sort());
      for (const id of ids) {
        const post = await b.posts.get(id);
        expect(post, id).toMatchObject({ status: 'published', version: 2, publishAt: null });
        const events = await b.activity.list({ postId: id, limit: 10 });
        expect(events.items.map((e) => [e.type, e.actor.id])).toEqual([['published', 'system']]);
        expect((await b.revisions.list(id, { limit: 10 })).items.map((r) => r.version)).toEqual([2]);
      }
      expect((await jobs[1]!.runOnce()).published).toEqual([]);
    });
  });

  describe('webhook deliveries', () => {
    it('claims each delivery once while workers of both processes claim at once, each post in the order of its events, at most 2 of a subscription held', async () => {
      const [a, b] = stores as [Store, Store];
      const subscriptions = Array.from({ length: 8 }, (_, i) => newSubscription(i + 1));
      for (const s of subscriptions) await a.webhooks.create(s);
      const published: string[] = [];
      for (let i = 0; i < 15; i++) {
        const post = await a.posts.create(newPost(300 + i, { status: 'published' }));
        await b.posts.update(post.id, post.version, { title: `Edited ${i}` }, new Date(post.updatedAt.getTime() + 1000));
        published.push(post.id);
      }
      const now = new Date('2026-06-01T12:00:00.000Z');
      const claimed: string[] = [];
      const order = new Map<string, string[]>();
      const held = new Map<string, number>();
      let mostHeld = 0;
      let lost = 0;
      // Three workers per process; each claims a few, then settles them, until nothing is left.
      const worker = async (store: Store) => {
        for (let idle = 0; idle < 5;) {
          const batch = await store.webhooks.claim(now, 60_000, 3, 2);
          idle = batch.length === 0 ? idle + 1 : 0;
          for (const c of batch) {
            claimed.push(c.delivery.id);
            const lane = `${c.subscription.id} ${c.event.postId}`;
            order.set(lane, [...(order.get(lane) ?? []), c.event.type]);
            held.set(c.subscription.id, (held.get(c.subscription.id) ?? 0) + 1);
            mostHeld = Math.max(mostHeld, held.get(c.subscription.id)!);
          }
          for (const c of batch) {
            held.set(c.subscription.id, held.get(c.subscription.id)! - 1);
            if (!(await store.webhooks.settle(c, success(now)))) lost++;
          }
        }
      };
      await Promise.all([a, b, a, b, a, b].map(worker));
      expect(claimed).toHaveLength(subscriptions.length * published.length * 2);
      expect(new Set(claimed).size).toBe(claimed.length);
      expect(lost).toBe(0);
      expect(mostHeld).toBeLessThanOrEqual(2);
      for (const s of subscriptions)
        for (const id of published) expect(order.get(`${s.id} ${id}`), `${s.id} ${id}`).toEqual(['post.published', 'post.updated']);
    });
  });
});
