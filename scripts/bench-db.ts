/**
 * Listing benchmark on PostgreSQL, through the real repository code.
 *
 * Creates a fresh database, seeds 10,000 then 100,000 posts, and for each size prints the median
 * time of `posts.list` (page + total) for: the first page by -updatedAt, a deep cursor page
 * (after half the posts), a tag filter and a `q` search, each with the `EXPLAIN (ANALYZE,
 * BUFFERS)` plans of the SQL the repository sent. Also times the first page of every sort, and the
 * scheduled drafts (one draft in ten is scheduled) as the admin's tabs ask for them. Drops its
 * database at the end.
 *
 * Usage: npx tsx scripts/bench-db.ts
 * Environment: BENCH_DATABASE_URL (a server URL; default TEST_DATABASE_URL, then
 *   postgres://postgres@127.0.0.1:5432/postgres), BENCH_RUNS (default 20), BENCH_SIZES (default
 *   10000,100000).
 */
import type { Logger } from 'drizzle-orm';
import postgres from 'postgres';
import { encodeCursor, postCursorScope } from '../src/domain/cursor.js';
import type { PostQuery, PostSortKey } from '../src/domain/ports/post-repository.js';
import type { Store } from '../src/domain/ports/store.js';
import { openPostgres } from '../src/adapters/drizzle/driver/connect-postgres.js';
import { maskUrl } from '../src/mask-url.js';
import { searchVectorOf } from '../src/adapters/drizzle/repositories/post-repository.js';
import { parseSearchQuery, queryText } from '../src/domain/search.js';
import { storeOver } from '../src/open-store.js';
import { countWords } from '../src/domain/word-count.js';
import { createTestDatabase, testServerUrl } from '../test/support/databases.js';
import { postgresSettings } from '../src/config.js';

const SIZES = (process.env.BENCH_SIZES ?? '10000,100000').split(',').map(Number);
const RUNS = Number(process.env.BENCH_RUNS ?? 20);
const serverUrl = process.env.BENCH_DATABASE_URL || testServerUrl();

// ---------------------------------------------------------------------------------------------
// Deterministic data

/** mulberry32: small, seeded, and without the serial correlation of a plain LCG. */
let seed = 20_260_304;
function rnd(): number {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
}
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;

/** A 20,000-word vocabulary of random 2–10 letter words (diverse trigrams, like real text). */
const LETTERS = 'abcdefghijklmnopqrstuvwxyz';
const WORDS = Array.from({ length: 20_000 }, () => Array.from({ length: 2 + Math.floor(rnd() * 9) }, () => pick([...LETTERS])).join(''));
/** Zipf-like: word i is drawn with weight 1/(i+1). */
function zipfIndex(n: number): number {
  return Math.min(n - 1, Math.floor(Math.exp(rnd() * Math.log(n + 1))) - 1);
}
const word = () => WORDS[zipfIndex(WORDS.length)]!;
const words = (n: number) => Array.from({ length: n }, word).join(' ');
const TAGS = Array.from({ length: 200 }, (_, i) => `tag-${String(i).padStart(3, '0')}`);

const BASE = Date.parse('2023-01-01T00:00:00.000Z');
const SPAN = 3 * 365 * 86_400_000;

function id(n: number): string {
  return `01J${String(n).padStart(23, '0')}`;
}

function postRow(n: number) {
  const title = `${words(3 + Math.floor(rnd() * 5))}`;
  const excerpt = words(12);
  const body = `# ${title}\n\n${words(80 + Math.floor(rnd() * 120))}\n\n${words(40)}`;
  const r = rnd();
  const status = r < 0.6 ? 'published' : r < 0.9 ? 'draft' : 'archived';
  const createdAt = new Date(BASE + Math.floor(rnd() * SPAN));
  const updatedAt = new Date(createdAt.getTime() + Math.floor(rnd() * 30 * 86_400_000));
  const publishedAt =
    status === 'published' || (status === 'archived' && rnd() < 0.5)
      ? new Date(createdAt.getTime() + Math.floor(rnd() * 86_400_000))
      : null;
  const tags = [...new Set(Array.from({ length: Math.floor(rnd() * 5) }, () => TAGS[zipfIndex(TAGS.length)]!))];
  return {
    id: id(n),
    title,
    slug: `post-${n}`,
    excerpt,
    body,
    search: searchVectorOf({ title, excerpt, tags, body }),
    tags,
    status,
    version: 1,
    word_count: countWords(body),
    created_at: createdAt,
    updated_at: updatedAt,
    published_at: publishedAt,
    // Without a draw of rnd(), so the other columns stay as they were before drafts were scheduled.
    publish_at: status === 'draft' && n % 10 === 0 ? new Date(BASE + SPAN + (n % 997) * 3_600_000) : null,
  };
}

async function seed_(sql: postgres.Sql, from: number, to: number): Promise<void> {
  const BATCH = 1000;
  for (let start = from; start < to; start += BATCH) {
    const rows = Array.from({ length: Math.min(BATCH, to - start) }, (_, i) => postRow(start + i));
    await sql`insert into posts ${sql(rows)}`;
  }
  await sql`vacuum analyze posts`;
}

// ---------------------------------------------------------------------------------------------
// Measuring

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

interface Captured {
  query: string;
  params: unknown[];
}

async function main(): Promise<void> {
  const database = await createTestDatabase(serverUrl, { prefix: 'margin_bench' });
  console.log(`bench-db: database ${database.name} on ${maskUrl(serverUrl)}, ${RUNS} runs per query\n`);
  let captured: Captured[] = [];
  const logger: Logger = { logQuery: (query, params) => captured.push({ query, params }) };
  const conn = await openPostgres({
    ...postgresSettings(database.url),
    poolSize: 4,
    connectTimeoutSeconds: 10,
    statementTimeoutMs: 60_000,
    logger,
  });
  // As the server wires it: calls go through the pool's gate.
  const store = storeOver(conn);
  const admin = postgres(database.url, { max: 1, onnotice: () => undefined });
  try {
    let seeded = 0;
    for (const size of SIZES) {
      const t0 = performance.now();
      await seed_(admin, seeded, size);
      seeded = size;
      console.log(`=== ${size.toLocaleString('en')} posts (seeded in ${((performance.now() - t0) / 1000).toFixed(1)} s)`);

      const byUpdated = { sort: { key: 'updatedAt', direction: 'desc' } } as const;
      const depth = size / 2;
      const [anchor] = await admin<{ updated_at: string; id: string }[]>`
        select to_char(updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as updated_at, id
        from posts order by updated_at desc, id desc offset ${depth - 1} limit 1`;
      const deepCursor = encodeCursor(postCursorScope(byUpdated), [anchor!.updated_at, anchor!.id]);
      const tagCounts = await admin<{ tag: string; n: number }[]>`
        select tag, count(*)::int as n from posts, unnest(tags) tag group by tag order by n desc, tag`;
      const commonTag = tagCounts[10]!;
      const rareTag = closest(tagCounts, size * 0.005);
      const qCandidates: { word: string; n: number }[] = [];
      for (const i of [40, 300, 1000, 3000, 6000, 10_000, 19_000]) {
        const w = WORDS[i]!;
        const [row] = await admin<
          { n: number }[]
        >`select count(*)::int as n from posts where search @@ ${queryText(parseSearchQuery(w))}::tsquery`;
        qCandidates.push({ word: w, n: row!.n });
      }
      const rareQ = closest(qCandidates, size * 0.01);
      const commonQ = qCandidates[0]!;

      const cases: Array<[string, PostQuery, boolean]> = [
        ['first page, -updatedAt', { ...byUpdated, limit: 20 }, true],
        [`deep page after ${depth.toLocaleString('en')} rows, -updatedAt`, { ...byUpdated, limit: 20, cursor: deepCursor }, true],
        [`tag '${commonTag.tag}' (${commonTag.n} posts), -updatedAt`, { ...byUpdated, tag: commonTag.tag, limit: 20 }, true],
        [`tag '${rareTag.tag}' (${rareTag.n} posts), -updatedAt`, { ...byUpdated, tag: rareTag.tag, limit: 20 }, true],
        [`q '${rareQ.word}' (${rareQ.n} posts), -updatedAt`, { ...byUpdated, q: rareQ.word, limit: 20 }, true],
        [`q '${commonQ.word}' (${commonQ.n} posts), -updatedAt`, { ...byUpdated, q: commonQ.word, limit: 20 }, true],
      ];
      cases.push(
        ['scheduled, publishAt (the Scheduled tab)', { scheduled: true, sort: { key: 'publishAt', direction: 'asc' }, limit: 20 }, true],
        ['scheduled, -publishAt', { scheduled: true, sort: { key: 'publishAt', direction: 'desc' }, limit: 20 }, true],
        ['scheduled, -updatedAt', { scheduled: true, ...byUpdated, limit: 20 }, true],
        ['draft, not scheduled, -updatedAt (the Drafts tab)', { status: ['draft'], scheduled: false, ...byUpdated, limit: 20 }, true],
      );
      for (const key of ['updatedAt', 'createdAt', 'publishedAt', 'publishAt', 'title'] as PostSortKey[]) {
        for (const direction of ['asc', 'desc'] as const) {
          cases.push([`first page, ${direction === 'desc' ? '-' : ''}${key}`, { sort: { key, direction }, limit: 20 }, false]);
        }
      }
      cases.push([
        'status = published, -publishedAt, deep (after half)',
        await deepQuery(store, { status: ['published'], sort: { key: 'publishedAt', direction: 'desc' }, limit: 20 }, size / 4),
        false,
      ]);

      const plans: string[] = [];
      console.log(`${'query'.padEnd(58)} ${'median'.padStart(9)} ${'min'.padStart(8)} ${'max'.padStart(8)}  items  total`);
      for (const [label, query, explain] of cases) {
        for (let i = 0; i < 3; i += 1) await store.posts.list(query); // warm-up
        const times: number[] = [];
        let result = await store.posts.list(query);
        for (let i = 0; i < RUNS; i += 1) {
          captured = [];
          const t = performance.now();
          result = await store.posts.list(query);
          times.push(performance.now() - t);
        }
        console.log(
          `${label.padEnd(58)} ${median(times).toFixed(2).padStart(6)} ms ${Math.min(...times)
            .toFixed(2)
            .padStart(5)} ms ${Math.max(...times)
            .toFixed(2)
            .padStart(5)} ms  ${String(result.items.length).padStart(5)}  ${result.total}`,
        );
        if (explain) {
          const sent = captured;
          for (const { query: text, params } of sent) {
            const rows = await admin.unsafe<{ 'QUERY PLAN': string }[]>(
              `EXPLAIN (ANALYZE, BUFFERS) ${text}`,
              params as postgres.ParameterOrJSON<never>[],
            );
            plans.push(`--- ${label}\n${text}\n${rows.map((r) => r['QUERY PLAN']).join('\n')}`);
          }
        }
      }
      console.log(`\n${plans.join('\n\n')}\n`);
    }
  } finally {
    await admin.end({ timeout: 5 });
    await store.close();
    await database.drop();
    console.log(`bench-db: dropped ${database.name}`);
  }
}

function closest<T extends { n: number }>(xs: T[], target: number): T {
  return xs.reduce((best, x) => (Math.abs(x.n - target) < Math.abs(best.n - target) ? x : best));
}

/** A query whose cursor sits after `skip` rows, obtained by walking pages with the repository. */
async function deepQuery(store: Store, query: PostQuery, skip: number): Promise<PostQuery> {
  let cursor: string | null = null;
  for (let seen = 0; seen < skip;) {
    const page = await store.posts.list({ ...query, limit: 100, cursor });
    seen += page.items.length;
    if (page.nextCursor === null) break;
    cursor = page.nextCursor;
  }
  return { ...query, cursor };
}

main().catch((error: unknown) => {
  console.error('bench-db: failed:', error);
  process.exitCode = 1;
});
