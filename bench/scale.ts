/**
 * `make bench-scale`: how the API's list queries grow with the data.
 *
 * Seeds BENCH_SCALE_MIN (1,000) posts by SQL, measures the API's p50 latency of four list
 * queries, grows the table to BENCH_SCALE_MAX (100,000) posts and measures again, then prints
 * the ratio large/small per query. Each size gets a fresh API process. Latency is timed on
 * sequential requests (one at a time, so no queueing): the median of BENCH_SCALE_SAMPLES (200),
 * or of as many as fit in BENCH_SCALE_SECONDS (10) for a slow query, after 10 warm-up requests.
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
import { COMMON_WORD } from './text.js';

const MIN = Math.floor(envNumber('BENCH_SCALE_MIN', 1000));
const MAX = Math.floor(envNumber('BENCH_SCALE_MAX', 100_000));
const SAMPLES = Math.floor(envNumber('BENCH_SCALE_SAMPLES', 200));
const SECONDS = envNumber('BENCH_SCALE_SECONDS', 10);
const TAG = 'postgres';

interface Query {
  name: string;
  path: string;
  /** How many posts the query's filter matches (its `total`). */
  matches: number;
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

async function queriesAt(baseUrl: string, token: string, sql: postgres.Sql, size: number): Promise<Query[]> {
  const deep = await findDeepPosition(baseUrl, token, size);
  // Counted in SQL: the API's total stops at 1,000.
  const [tagged] = await sql<{ n: number }[]>`select count(*)::int as n from posts where tags @> array[${TAG}]::text[]`;
  const [found] = await sql<{ n: number }[]>`select count(*)::int as n from posts where search_text like ${`%${COMMON_WORD}%`}`;
  return [
    { name: 'first page', path: '/api/v1/posts?limit=20', matches: size },
    {
      name: `deep page (after ${fmt(deep.depth)})`,
      path: `/api/v1/posts?limit=20&cursor=${encodeURIComponent(deep.apiCursor)}`,
      matches: size,
    },
    { name: `tag=${TAG}`, path: `/api/v1/posts?limit=20&tag=${TAG}`, matches: tagged!.n },
    { name: `q=${COMMON_WORD}`, path: `/api/v1/posts?limit=20&q=${COMMON_WORD}`, matches: found!.n },
  ];
}

async function measureSize(env: Record<string, string>, credentials: Credentials, sql: postgres.Sql, size: number): Promise<Measured[]> {
  const api = await startServer('api', env);
  try {
    const token = await login(api.baseUrl, credentials);
    const origin = new URL(api.baseUrl).origin;
    const out: Measured[] = [];
    say(`At ${fmt(await countPosts(sql))} posts:`);
    const queries = await queriesAt(api.baseUrl, token, sql, size);
    // Warm the server's JIT on every query first, so that no query is timed on cold code.
    for (let round = 0; round < 50; round += 1) {
      for (const query of queries)
        await (await fetch(`${origin}${query.path}`, { headers: { authorization: `Bearer ${token}` } })).arrayBuffer();
    }
    for (const query of queries) {
      const timing = await time(`${origin}${query.path}`, token);
      say(`  ${query.name.padEnd(28)} p50 ${fmt(timing.p50Ms, 2).padStart(8)} ms  (${timing.samples} requests)`);
      out.push({ ...query, timing });
    }
    return out;
  } finally {
    await api.stop();
  }
}

async function main(): Promise<void> {
  requireBuiltApi();
  if (MAX <= MIN) throw new Error('BENCH_SCALE_MAX must be larger than BENCH_SCALE_MIN');
  say(`# MarginCMS scale benchmark: ${fmt(MIN)} → ${fmt(MAX)} posts`);
  say();
  say('Posts are seeded by SQL (INSERT … SELECT generate_series; same columns, search_text computed the same way,');
  say('~1 KB bodies of sentences, 1–2 tags of 10, 60% published, distinct timestamps, ULID-shaped ids),');
  say(`not through the API. p50 of up to ${SAMPLES} sequential requests (at most ${SECONDS} s) per query. Server output: ${logFile}`);
  say();

  const db = await createScratchDatabase(serverUrl);
  await migrate(db.url);
  const credentials = await createUser(db.url);
  const env = postgresEnv(db.url, randomBytes(48).toString('base64'));

  await seedBySql(db.sql, 0, MIN);
  const small = await measureSize(env, credentials, db.sql, MIN);
  const t0 = performance.now();
  await seedBySql(db.sql, MIN, MAX);
  say(`Grew to ${fmt(MAX)} posts by SQL in ${fmt((performance.now() - t0) / 1000, 1)} s.`);
  const large = await measureSize(env, credentials, db.sql, MAX);

  say();
  say(`## API p50 latency at ${fmt(MIN)} and ${fmt(MAX)} posts`);
  say();
  const rows = small.map((s, i) => {
    const l = large[i]!;
    return [
      s.name.replace(/\(after .*\)/, '(middle)'),
      `${fmt((100 * l.matches) / MAX)}%`,
      fmt(s.timing.p50Ms, 2),
      fmt(l.timing.p50Ms, 2),
      `**${fmt(l.timing.p50Ms / s.timing.p50Ms, 2)}×**`,
    ];
  });
  const file = join(resultsDir, `${stamp}-scale.json`);
  writeFileSync(file, JSON.stringify({ min: MIN, max: MAX, small, large }, null, 2));
  say(table(['query', `matches at ${fmt(MAX)}`, `p50 ms @${fmt(MIN)}`, `p50 ms @${fmt(MAX)}`, `ratio ${fmt(MAX)}/${fmt(MIN)}`], rows));
  say();
  say(`Raw figures: ${file}`);
}

runMain('bench-scale', main);
