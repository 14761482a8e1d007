/**
 * `make bench-scale`: how the API's list queries grow with the data.
 *
 * Seeds BENCH_SCALE_MIN (1,000) posts by SQL in one scratch database and BENCH_SCALE_MAX
 * (100,000) in another (the first ones the same), then for BENCH_SCALE_ROUNDS (3) rounds measures
 * the API's p50 latency of the list queries below on each, a fresh API process per size and round,
 * small then large in odd rounds and large then small in even ones (so that a change in the
 * machine's load between the two falls on both), and prints the ratio large/small per round and
 * its median. Latency is timed on sequential requests (one at a time, so no queueing): the median
 * of BENCH_SCALE_SAMPLES (200), or of as many as fit in BENCH_SCALE_SECONDS (5) for a slow query,
 * after 10 warm-up requests.
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type postgres from 'postgres';
import { login } from './client.js';
import { countPosts, createScratchDatabase, createUser, migrate, type Credentials } from './database.js';
import { envNumber, serverUrl } from './env.js';
import { logFile, resultsDir, runMain, stamp } from './lifecycle.js';
import { fmt, median, table } from './report.js';
import { findDeepPosition, seedBySql } from './seed.js';
import { postgresEnv, requireBuiltApi, startServer } from './servers.js';
import { COMMON_WORD, topicWord } from './text.js';
import { postgresSettings } from './wal.js';

const MIN = Math.floor(envNumber('BENCH_SCALE_MIN', 1000));
const MAX = Math.floor(envNumber('BENCH_SCALE_MAX', 100_000));
const SAMPLES = Math.floor(envNumber('BENCH_SCALE_SAMPLES', 200));
const SECONDS = envNumber('BENCH_SCALE_SECONDS', 5);
const ROUNDS = Math.floor(envNumber('BENCH_SCALE_ROUNDS', 3));
const TAG = 'postgres';
/** The target for the judged `q` queries: p50 at MAX at most this many times at MIN. */
const Q_TARGET = 1.5;
/** Topic words written in posts 1–1,000 (text.ts): one alone, two together, one by its prefix. */
const ONE_WORD = topicWord(30);
const TWO_WORDS = `${topicWord(38)} ${topicWord(30)}`;
const PREFIX = topicWord(31).slice(0, 5);

interface Query {
  name: string;
  path: string;
  /** How many posts the query's filter matches (the API's `total`, which stops at 1,000). */
  matches: string;
  /** A `q` query the #32 target applies to. */
  judged: boolean;
}

interface Timing {
  p50Ms: number;
  samples: number;
}

interface Measured extends Query {
  timing: Timing;
}

/** Sequential GETs of `url`: the median time of up to SAMPLES, within SECONDS. */
async function time(url: string, token: string): Promise<Timing> {
  const get = async () => {
    const t = performance.now();
    const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`GET ${url} answered ${res.status}`);
    return performance.now() - t;
  };
  for (let i = 0; i < 10; i += 1) await get();
  const times: number[] = [];
  const deadline = performance.now() + SECONDS * 1000;
  while (times.length < SAMPLES && (times.length < 10 || performance.now() < deadline)) times.push(await get());
  return { p50Ms: median(times), samples: times.length };
}

const say = (line = '') => console.log(line);

/** The API's `total` for `path` (`1,000+` past its cap). */
async function totalOf(origin: string, path: string, token: string): Promise<string> {
  const res = await fetch(`${origin}${path}`, { headers: { authorization: `Bearer ${token}` } });
  const page = (await res.json()) as { total?: number; totalExact?: boolean };
  if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}`);
  return `${fmt(page.total)}${page.totalExact === false ? '+' : ''}`;
}

async function queriesAt(baseUrl: string, token: string, size: number): Promise<Query[]> {
  const deep = await findDeepPosition(baseUrl, token, size);
  const q = (text: string) => `/api/v1/posts?limit=20&q=${encodeURIComponent(text)}`;
  const queries: Omit<Query, 'matches'>[] = [
    { name: 'first page', path: '/api/v1/posts?limit=20', judged: false },
    {
      name: `deep page (after ${fmt(deep.depth)})`,
      path: `/api/v1/posts?limit=20&cursor=${encodeURIComponent(deep.apiCursor)}`,
      judged: false,
    },
    { name: `tag=${TAG}`, path: `/api/v1/posts?limit=20&tag=${TAG}`, judged: false },
    { name: `q=${ONE_WORD}`, path: q(ONE_WORD), judged: true },
    { name: `q=${TWO_WORDS}`, path: q(TWO_WORDS), judged: true },
    { name: `q=${PREFIX} (prefix)`, path: q(PREFIX), judged: true },
    { name: `q=${COMMON_WORD}`, path: q(COMMON_WORD), judged: false },
  ];
  const origin = new URL(baseUrl).origin;
  return Promise.all(queries.map(async (query) => ({ ...query, matches: await totalOf(origin, query.path, token) })));
}

interface Site {
  size: number;
  env: Record<string, string>;
  credentials: Credentials;
  sql: postgres.Sql;
  /** Found on the first measurement (the deep cursor, the matches), kept for the next rounds. */
  queries?: Query[];
}

/** A scratch database with posts 1 to `size` seeded by SQL (the first ones the same at every size). */
async function site(size: number): Promise<Site> {
  const t0 = performance.now();
  const db = await createScratchDatabase(serverUrl);
  await migrate(db.url);
  const credentials = await createUser(db.url);
  await seedBySql(db.sql, 0, size, () => migrate(db.url));
  say(`Seeded ${fmt(await countPosts(db.sql))} posts by SQL in ${fmt((performance.now() - t0) / 1000, 1)} s.`);
  return { size, env: postgresEnv(db.url, randomBytes(48).toString('base64')), credentials, sql: db.sql };
}

/** Every query on a fresh API process over `site`, after warming its JIT on all of them. */
async function measureSize(site: Site, round: number): Promise<Measured[]> {
  const api = await startServer('api', site.env, `api-${site.size}`);
  try {
    const token = await login(api.baseUrl, site.credentials);
    const origin = new URL(api.baseUrl).origin;
    const out: Measured[] = [];
    say(`Round ${round}, ${fmt(site.size)} posts:`);
    site.queries ??= await queriesAt(api.baseUrl, token, site.size);
    // Warm the server's JIT on every query first, so that no query is timed on cold code.
    for (let warm = 0; warm < 50; warm += 1) {
      for (const query of site.queries)
        await (await fetch(`${origin}${query.path}`, { headers: { authorization: `Bearer ${token}` } })).arrayBuffer();
    }
    for (const query of site.queries) {
      const timing = await time(`${origin}${query.path}`, token);
      say(`  ${query.name.padEnd(28)} p50 ${fmt(timing.p50Ms, 2).padStart(8)} ms  (${timing.samples} requests, ${query.matches} matches)`);
      out.push({ ...query, timing });
    }
    return out;
  } finally {
    await api.stop();
  }
}

const spread = (xs: readonly number[], digits = 2) =>
  `${fmt(median(xs), digits)} (${fmt(Math.min(...xs), digits)}–${fmt(Math.max(...xs), digits)})`;

/** The table of medians over rounds and per-round ratios, then the judged line. */
function report(small: Measured[][], large: Measured[][]): void {
  const ratiosOf = (i: number) => small.map((round, r) => large[r]![i]!.timing.p50Ms / round[i]!.timing.p50Ms);
  const rows = small[0]!.map((s, i) => [
    s.name.replace(/\(after .*\)/, '(middle)') + (s.judged ? ' ✱' : ''),
    `${s.matches} / ${large[0]![i]!.matches}`,
    fmt(median(small.map((round) => round[i]!.timing.p50Ms)), 2),
    fmt(median(large.map((round) => round[i]!.timing.p50Ms)), 2),
    `**${spread(ratiosOf(i))}×**`,
  ]);
  const matches = `matches @${fmt(MIN)} / @${fmt(MAX)}`;
  const ratio = `ratio ${fmt(MAX)}/${fmt(MIN)} by round: median (min–max)`;
  say(table(['query', matches, `p50 ms @${fmt(MIN)} (median)`, `p50 ms @${fmt(MAX)} (median)`, ratio], rows));
  say();
  const judged = small[0]!.map((s, i) => ({ name: s.name, judged: s.judged, ratio: median(ratiosOf(i)) })).filter((q) => q.judged);
  const worst = judged.reduce((a, b) => (b.ratio > a.ratio ? b : a));
  say(
    `✱ q p50 ${fmt(MAX)}/${fmt(MIN)} (#32, queries whose matches do not grow with the site): worst ${worst.name} ` +
      `**${fmt(worst.ratio, 2)}×** — target ≤ ${fmt(Q_TARGET, 1)}×: ${worst.ratio <= Q_TARGET ? 'met' : 'NOT met'}`,
  );
}

async function main(): Promise<void> {
  requireBuiltApi();
  if (MAX <= MIN) throw new Error('BENCH_SCALE_MAX must be larger than BENCH_SCALE_MIN');
  say(`# MarginCMS scale benchmark: ${fmt(MIN)} and ${fmt(MAX)} posts, ${ROUNDS} round(s)`);
  say();
  say('Posts are seeded by SQL (INSERT … SELECT generate_series; same columns, the search column filled by the migration');
  say('runner as for rows written before full-text search; ~1 KB bodies of sentences and four topic words of 8,000,');
  say('1–2 tags of 10, 60% published, distinct timestamps, ULID-shaped ids), not through the API, in two databases;');
  say(`then per round each size on a fresh process, small then large in odd rounds, large then small in even ones.`);
  say(`p50 of up to ${SAMPLES} sequential requests (at most ${SECONDS} s) per query. Server output: ${logFile}`);
  say();

  const sites = [await site(MIN), await site(MAX)];
  const pgSettings = await postgresSettings(sites[0]!.sql);
  say(`PostgreSQL: ${pgSettings}`);
  const small: Measured[][] = [];
  const large: Measured[][] = [];
  for (let round = 1; round <= ROUNDS; round += 1) {
    for (const s of round % 2 === 1 ? sites : [...sites].reverse()) {
      (s.size === MIN ? small : large).push(await measureSize(s, round));
    }
  }

  say();
  say(`## API p50 latency at ${fmt(MIN)} and ${fmt(MAX)} posts`);
  say();
  const file = join(resultsDir, `${stamp}-scale.json`);
  writeFileSync(file, JSON.stringify({ pgSettings, min: MIN, max: MAX, rounds: ROUNDS, small, large }, null, 2));
  report(small, large);
  say();
  say(`Raw figures: ${file}`);
}

runMain('bench-scale', main);
