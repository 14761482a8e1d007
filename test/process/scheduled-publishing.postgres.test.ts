/**
 * Scheduled publishing with two server processes on one PostgreSQL database, both running the job
 * every second: every due draft is published exactly once, with one revision and one `published`
 * event by the system actor, and shows on the Content API.
 */
import { describe, expect, it } from 'vitest';
import { openPostgres } from '../../src/adapters/drizzle/driver/connect-postgres.js';
import { postgresSettings } from '../../src/config.js';
import { storeOver } from '../../src/open-store.js';
import { requirePostgres, testServerUrl } from '../support/databases.js';
import { startServer, useScratchDatabases } from '../support/server-process.js';

const serverUrl = testServerUrl();
const available = await requirePostgres(serverUrl);

const scratchDatabase = useScratchDatabases(serverUrl);

describe.skipIf(!available)('scheduled publishing across two server processes', () => {
  it('publishes each due draft exactly once, as the system actor, and the Content API shows it', async () => {
    const db = await scratchDatabase();
    const env = { PUBLISH_INTERVAL_SECONDS: '1', CONTENT_RATE_LIMIT_PER_MINUTE: '0' };
    const servers = await Promise.all([startServer(db.url, env), startServer(db.url, env)]);

    const pg = await openPostgres({ ...postgresSettings(db.url), poolSize: 2 });
    const store = storeOver(pg, async () => undefined);
    try {
      const due = Date.now() + 1500;
      const ids = Array.from({ length: 40 }, (_, i) => `01JSCHED0000000000000000${String(i).padStart(2, '0')}`);
      for (const [i, id] of ids.entries()) {
        await store.posts.create({
          id,
          title: `Scheduled ${i}`,
          slug: `scheduled-${i}`,
          excerpt: '',
          body: `Post ${i}`,
          tags: ['scheduled'],
          status: 'draft',
          wordCount: 2,
          createdAt: new Date(),
          publishedAt: null,
          publishAt: new Date(due + (i % 4) * 100),
        });
      }
      const reader = servers[0]!;
      expect((await fetch(`${reader.base}/content/posts/slug/scheduled-0`)).status).toBe(404);

      await expect
        .poll(
          async () => (await store.posts.list({ status: ['published'], sort: { key: 'createdAt', direction: 'asc' }, limit: 100 })).total,
          {
            timeout: 15_000,
            interval: 250,
          },
        )
        .toBe(ids.length);
      // Both servers had time for more runs: nothing may be published twice.
      await new Promise((resolve) => setTimeout(resolve, 2500));

      for (const id of ids) {
        const post = await store.posts.get(id);
        expect(post, id).toMatchObject({ status: 'published', version: 2, publishAt: null });
        expect(post!.publishedAt!.getTime()).toBeGreaterThanOrEqual(due);
        const events = await store.activity.list({ postId: id, limit: 10 });
        expect(
          events.items.map((e) => [e.type, e.actor.id]),
          id,
        ).toEqual([['published', 'system']]);
        expect(
          (await store.revisions.list(id, { limit: 10 })).items.map((r) => r.version),
          id,
        ).toEqual([2]);
      }
      const shown = await fetch(`${servers[1]!.base}/content/posts?tag=scheduled&limit=100`);
      expect(shown.status).toBe(200);
      expect(((await shown.json()) as { items: unknown[] }).items).toHaveLength(ids.length);
      // Log lines are written in batches, at most half a second late.
      await new Promise((resolve) => setTimeout(resolve, 700));
      const logged = servers.map((s) => (s.output().match(/published a scheduled post/g) ?? []).length);
      expect(logged[0]! + logged[1]!).toBe(ids.length);
    } finally {
      await pg.close();
    }
  });
});
