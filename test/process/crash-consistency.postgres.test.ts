/**
 * kill -9 in the middle of a bulk action and of an import, then a restart on the same PostgreSQL
 * database: every post is left with its revisions and activity consistent (each write is one
 * transaction), and the same request sent again to the new server finishes the work.
 */
import { zipSync } from 'fflate';
import postgres from 'postgres';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestDatabase, requirePostgres, testServerUrl, type TestDatabase } from '../support/databases.js';
import { accessToken, createUser, startServer, stopServers, type Started } from '../support/server-process.js';

const serverUrl = testServerUrl();
const available = await requirePostgres(serverUrl);

const databases: TestDatabase[] = [];
const clients: postgres.Sql[] = [];
afterEach(async () => {
  stopServers();
  for (const sql of clients.splice(0)) await sql.end({ timeout: 1 });
  for (const db of databases.splice(0)) await db.drop();
});

const ADMIN = { email: 'kill9@example.com', name: 'Kill Nine', password: 'Vq7#mZ2p!Lr9wT4k-xB8' };

/** A migrated database with one user (made by `make user`'s script), and a client of its own to look at it. */
async function databaseWithUser(): Promise<{ db: TestDatabase; sql: postgres.Sql }> {
  const db = await createTestDatabase(serverUrl);
  databases.push(db);
  await createUser(db.url, ADMIN);
  const sql = postgres(db.url, { max: 2, onnotice: () => undefined });
  clients.push(sql);
  return { db, sql };
}

async function login(server: Started): Promise<Record<string, string>> {
  return { authorization: `Bearer ${await accessToken(server.base, ADMIN.email, ADMIN.password)}` };
}

/**
 * Polls `count` every few milliseconds while `work` runs, and SIGKILLs the server as soon as the
 * count reaches `atLeast`; resolves with the count the moment before the kill and after it.
 */
async function killWhen(
  server: Started,
  count: () => Promise<number>,
  atLeast: number,
  work: Promise<unknown>,
): Promise<{ beforeKill: number; afterKill: number }> {
  let finished = false;
  const settled = work.then(
    () => (finished = true),
    () => (finished = true),
  );
  let beforeKill = 0;
  for (;;) {
    beforeKill = await count();
    if (beforeKill >= atLeast) break;
    if (finished) throw new Error(`the work ended before the kill: only ${beforeKill} written, ${atLeast} awaited`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  server.child.kill('SIGKILL');
  await server.exited;
  await settled;
  return { beforeKill, afterKill: await count() };
}

/**
 * Every way a post's history can disagree with the post, as readable lines: a post whose version
 * is not its latest revision's, whose content differs from that revision, whose revisions are not
 * 1..version; a revision without its activity event; an event (other than a deletion) without
 * its revision.
 */
async function inconsistencies(sql: postgres.Sql): Promise<string[]> {
  const found: string[] = [];
  for (const row of await sql`
    SELECT p.id, p.version, count(r.version)::int AS revisions, max(r.version) AS latest
    FROM posts p LEFT JOIN revisions r ON r.post_id = p.id
    GROUP BY p.id, p.version
    HAVING max(r.version) IS DISTINCT FROM p.version OR count(r.version) <> p.version`)
    found.push(`post ${row.id} at version ${row.version} has ${row.revisions} revisions, the latest ${row.latest}`);
  // The latest revision's body is stored as NULL while it is the post's (migration 0017).
  for (const row of await sql`
    SELECT p.id, p.version FROM posts p JOIN revisions r ON r.post_id = p.id AND r.version = p.version
    WHERE (p.title, p.slug, p.excerpt, p.body, p.tags, p.status, p.word_count)
      IS DISTINCT FROM (r.title, r.slug, r.excerpt, coalesce(r.body, p.body), r.tags, r.status, r.word_count)`)
    found.push(`post ${row.id} differs from its revision ${row.version}`);
  for (const row of await sql`
    SELECT r.post_id, r.version FROM revisions r
    WHERE NOT EXISTS (SELECT 1 FROM activity_events a WHERE a.post_id = r.post_id AND a.post_version = r.version)`)
    found.push(`revision ${row.version} of post ${row.post_id} has no activity event`);
  for (const row of await sql`
    SELECT a.id, a.type, a.post_id, a.post_version FROM activity_events a
    WHERE a.type <> 'deleted'
      AND NOT EXISTS (SELECT 1 FROM revisions r WHERE r.post_id = a.post_id AND r.version = a.post_version)`)
    found.push(`event ${row.id} (${row.type}) of post ${row.post_id} version ${row.post_version} has no revision`);
  return found;
}

async function countOf(query: PromiseLike<{ n: number }[]>): Promise<number> {
  const [row] = await query;
  return row!.n;
}

// Each test starts three processes and writes a thousand posts or so.
describe.skipIf(!available)('a server killed with SIGKILL mid-write, then restarted on the same database', { timeout: 120_000 }, () => {
  it('leaves every post of a bulk publish either untouched or published with its revision and event, and a retry publishes the rest', async () => {
    const { db, sql } = await databaseWithUser();
    const first = await startServer(db.url, { PUBLISH_INTERVAL_SECONDS: '0' });
    const auth = await login(first);

    // 1,000 drafts, created through the API (each with its revision 1 and `created` event).
    const total = 1000;
    const ids: string[] = [];
    for (let i = 0; i < total; i += 50) {
      const created = await Promise.all(
        Array.from({ length: 50 }, async (_, j) => {
          const response = await fetch(`${first.base}/posts`, {
            method: 'POST',
            headers: { ...auth, 'content-type': 'application/json' },
            body: JSON.stringify({ title: `Bulk post ${i + j}`, body: `The body of post ${i + j}.`, tags: ['bulk'] }),
          });
          expect(response.status).toBe(201);
          return ((await response.json()) as { id: string }).id;
        }),
      );
      ids.push(...created);
    }
    expect(await inconsistencies(sql)).toEqual([]);

    // Five bulk requests of 200 posts at once; the server is killed once some posts are published.
    const bulk = (server: Started, headers: Record<string, string>, chunk: string[]) =>
      fetch(`${server.base}/posts/bulk`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ ids: chunk, action: 'publish' }),
      });
    const chunks = Array.from({ length: total / 200 }, (_, k) => ids.slice(k * 200, (k + 1) * 200));
    const published = () => countOf(sql<{ n: number }[]>`SELECT count(*)::int AS n FROM posts WHERE status = 'published'`);
    const { beforeKill, afterKill } = await killWhen(first, published, 100, Promise.all(chunks.map((chunk) => bulk(first, auth, chunk))));
    console.info(`bulk publish: ${beforeKill} of ${total} posts published when the server was killed, ${afterKill} committed`);
    expect(afterKill).toBeLessThan(total);

    const second = await startServer(db.url, { PUBLISH_INTERVAL_SECONDS: '0' });
    expect(await inconsistencies(sql)).toEqual([]);
    const states = await sql<{ status: string; version: number; n: number }[]>`
      SELECT status, version, count(*)::int AS n FROM posts GROUP BY status, version ORDER BY status`;
    expect(states).toEqual([
      { status: 'draft', version: 1, n: total - afterKill },
      { status: 'published', version: 2, n: afterKill },
    ]);
    const events = await sql<
      { type: string; n: number }[]
    >`SELECT type, count(*)::int AS n FROM activity_events GROUP BY type ORDER BY type`;
    expect(events).toEqual([
      { type: 'created', n: total },
      { type: 'published', n: afterKill },
    ]);

    // The same requests sent to the new server publish the rest; the posts already published fail alone.
    const auth2 = await login(second);
    const answers = await Promise.all(chunks.map((chunk) => bulk(second, auth2, chunk)));
    const outcomes = (await Promise.all(answers.map((a) => a.json()))) as { succeeded: unknown[]; failed: { reason: string }[] }[];
    expect(answers.map((a) => a.status)).toEqual(chunks.map(() => 200));
    expect(outcomes.reduce((n, o) => n + o.succeeded.length, 0)).toBe(total - afterKill);
    expect(outcomes.flatMap((o) => o.failed.map((f) => f.reason))).toEqual(Array.from({ length: afterKill }, () => 'invalid_transition'));
    expect(await inconsistencies(sql)).toEqual([]);
    expect(await published()).toBe(total);
  });

  it('leaves every post of an import created or updated whole, with its revision and event, and the same import again finishes it', async () => {
    const { db, sql } = await databaseWithUser();
    const first = await startServer(db.url, { PUBLISH_INTERVAL_SECONDS: '0' });
    const auth = await login(first);
    const encoder = new TextEncoder();
    /** A Hugo site of posts `from`..`to - 1`, whose bodies say `edition`. */
    const site = (from: number, to: number, edition: string) => {
      const files: Record<string, Uint8Array> = {};
      for (let i = from; i < to; i += 1)
        files[`content/posts/post-${i}.md`] = encoder.encode(
          `---\ntitle: "Imported post ${i}"\ndate: 2024-01-01T00:00:00Z\ntags: ["imported", "batch-${i % 7}"]\n---\n\n${edition} body of post ${i}.\n`,
        );
      return zipSync(files);
    };
    const importApply = (server: Started, headers: Record<string, string>, zip: Uint8Array) =>
      fetch(`${server.base}/import?mode=apply`, { method: 'POST', headers: { ...headers, 'content-type': 'application/zip' }, body: zip });

    // 250 posts imported first, whole; then an archive of 500: those 250 changed and 250 new.
    const seeded = await importApply(first, auth, site(0, 250, 'First'));
    expect(seeded.status).toBe(200);
    expect(await inconsistencies(sql)).toEqual([]);
    const events = () => countOf(sql<{ n: number }[]>`SELECT count(*)::int AS n FROM activity_events`);
    const baseline = await events();
    expect(baseline).toBe(250);

    const archive = site(0, 500, 'Second');
    const written = async () => (await events()) - baseline;
    const { beforeKill, afterKill } = await killWhen(first, written, 50, importApply(first, auth, archive));
    console.info(`import: ${beforeKill} of 500 posts written when the server was killed, ${afterKill} committed`);
    expect(afterKill).toBeLessThan(500);

    const second = await startServer(db.url, { PUBLISH_INTERVAL_SECONDS: '0' });
    expect(await inconsistencies(sql)).toEqual([]);
    const [counts] = await sql<{ posts: number; second: number; updated: number }[]>`
      SELECT count(*)::int AS posts,
             count(*) FILTER (WHERE body LIKE '%Second body%')::int AS second,
             count(*) FILTER (WHERE version = 2)::int AS updated
      FROM posts`;
    // Every write is whole: a post is either as before or as the archive has it.
    expect(counts!.second).toBe(afterKill);
    expect(counts!.posts - 250 + counts!.updated).toBe(afterKill);
    // And its history with it: an updated post's first revision holds the first edition, which the
    // update moved there from the post in its own transaction (the 0017 rule: NULL is a newer body).
    const [history] = await sql<{ updated: number; kept: number }[]>`
      SELECT count(*)::int AS updated, count(*) FILTER (WHERE r.body LIKE '%First body of post %')::int AS kept
      FROM posts p JOIN revisions r ON r.post_id = p.id AND r.version = 1 WHERE p.version = 2`;
    expect(history!.updated).toBeGreaterThan(0);
    expect(history!.kept).toBe(history!.updated);

    const again = await importApply(second, await login(second), archive);
    expect(again.status).toBe(200);
    const report = (await again.json()) as { items: { action: string }[] };
    const actions: Record<string, number> = {};
    for (const item of report.items) actions[item.action] = (actions[item.action] ?? 0) + 1;
    expect(actions).toEqual({ unchanged: afterKill, create: 500 - counts!.posts, update: 250 - counts!.updated });
    expect(await inconsistencies(sql)).toEqual([]);
    const [done] = await sql<{ posts: number; second: number }[]>`
      SELECT count(*)::int AS posts, count(*) FILTER (WHERE body LIKE '%Second body%')::int AS second FROM posts`;
    expect(done).toEqual({ posts: 500, second: 500 });
  });
});
