/**
 * `make bench-ab REV=<commit>` (scripts/bench-ab.sh): the `create` scenario of this checkout's
 * build against another commit's, built beside it in a git worktree (BENCH_BASELINE_DIR), in one
 * interleaved run on the same machine (#32: creates ≥ 1.5× the build before the search change).
 *
 * Each build gets a scratch database migrated by its own `dist/migrate.js` (the schemas may
 * differ), a user made by its own `dist/create-user.js` and BENCH_POSTS (10,000; quick 300) posts
 * seeded through its own API. Then, for BENCH_ROUNDS (3; quick 1) rounds, the create load
 * (autocannon, BENCH_CONNECTIONS, BENCH_WARMUP + BENCH_DURATION as in `make bench`) on a fresh
 * process per cell, in the order old, new in odd rounds and new, old in even ones; the rows a cell
 * adds are deleted before the next. Then WAL per create (bench/wal.ts) per build and round.
 * Prints each build's req/s (median, min–max), the new/old ratio per round and its median.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { login } from './client.js';
import { createScratchDatabase, createUser, migrate, resetWrites, type ScratchDatabase } from './database.js';
import { envNumber, loadSettings, quick, serverUrl } from './env.js';
import { log, logFile, resultsDir, runMain, stamp } from './lifecycle.js';
import { runLoad, type LoadResult } from './load.js';
import { cpuAround } from './measure.js';
import { fmt, median, table } from './report.js';
import { seedThroughApi } from './seed.js';
import { postgresEnv, startServer } from './servers.js';
import { enableWalInspect, judgedBytes, measureWalPerCreate, postgresSettings, walTable, type WalRun } from './wal.js';

const settings = loadSettings();
const POSTS = quick ? 300 : Math.floor(envNumber('BENCH_POSTS', 10_000));
const ROUNDS = quick ? 1 : Math.floor(envNumber('BENCH_ROUNDS', 3));
const WAL_CREATES = Math.floor(envNumber('BENCH_WAL_CREATES', 2000));
/** The target: this build's creates per second at least this many times the old one's. */
const TARGET = 1.5;

const say = (line = '') => console.log(line);

interface Build {
  name: 'old' | 'new';
  dir: string;
  rev: string;
  db: ScratchDatabase;
  env: Record<string, string>;
  token: string;
  cutoff: Date;
}

interface Cell {
  build: 'old' | 'new';
  round: number;
  load: LoadResult;
  serverCpuUsPerReq: number | null;
  pgCpuUsPerReq: number | null;
}

function describe(dir: string): string {
  try {
    const rev = execFileSync('git', ['-C', dir, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['-C', dir, 'status', '--porcelain', '--', 'src', 'drizzle'], { encoding: 'utf8' }).trim();
    return `${rev}${dirty === '' ? '' : ' + uncommitted changes'}`;
  } catch {
    return 'unknown';
  }
}

/** A scratch database migrated and given a user by the build in `dir`, then seeded through its API. */
async function prepare(name: 'old' | 'new', dir: string): Promise<Build> {
  if (!existsSync(join(dir, 'dist/main.js'))) throw new Error(`${dir}/dist/main.js is missing: build it first`);
  const db = await createScratchDatabase(serverUrl);
  await migrate(db.url, dir);
  const credentials = await createUser(db.url, dir);
  const env = postgresEnv(db.url, randomBytes(48).toString('base64'));
  const t0 = performance.now();
  const api = await startServer('api', env, `${name}-seed`, [], dir);
  let token: string;
  try {
    token = await login(api.baseUrl, credentials);
    await seedThroughApi(api.baseUrl, token, POSTS);
  } finally {
    await api.stop();
  }
  const [row] = await db.sql<{ cutoff: Date }[]>`select max(created_at) as cutoff from posts`;
  await db.sql.unsafe('VACUUM (ANALYZE)');
  const rev = describe(dir);
  say(`${name}: ${rev} (${dir}), seeded ${fmt(POSTS)} posts in ${fmt((performance.now() - t0) / 1000, 1)} s.`);
  return { name, dir, rev, db, env, token, cutoff: row!.cutoff };
}

async function createCell(build: Build, round: number): Promise<Cell> {
  const server = await startServer('api', build.env, `${build.name}-create`, [], build.dir);
  const target = { baseUrl: server.baseUrl, token: build.token, ids: [], deepCursor: '', slugs: [] };
  const cpu = cpuAround(server.pid);
  let load: LoadResult;
  try {
    load = await runLoad('create', target, settings, cpu);
  } finally {
    await server.stop();
  }
  await resetWrites(build.db.sql, build.cutoff);
  return { build: build.name, round, load, ...cpu.perRequest(load.requests) };
}

async function walRun(build: Build, round: number): Promise<WalRun> {
  const inspect = await enableWalInspect(build.db.sql);
  const server = await startServer('api', build.env, `${build.name}-wal`, [], build.dir);
  try {
    return await measureWalPerCreate(
      build.db.sql,
      { server: build.name, baseUrl: server.baseUrl, token: build.token },
      round,
      WAL_CREATES,
      inspect,
    );
  } finally {
    await server.stop();
    await resetWrites(build.db.sql, build.cutoff);
  }
}

const spread = (xs: readonly number[], digits = 0) =>
  `${fmt(median(xs), digits)} (${fmt(Math.min(...xs), digits)}–${fmt(Math.max(...xs), digits)})`;

function report(builds: Build[], cells: Cell[], wal: WalRun[]): void {
  const rows = builds.map((b) => {
    const mine = cells.filter((c) => c.build === b.name);
    const pick = (f: (c: Cell) => number | null) => median(mine.map(f).filter((v): v is number => v !== null));
    return [
      `${b.name} (${b.rev})`,
      mine.map((c) => fmt(c.load.reqPerSec)).join(', '),
      `**${spread(mine.map((c) => c.load.reqPerSec))}**`,
      `${fmt(
        pick((c) => c.load.p50Ms),
        1,
      )} / ${fmt(
        pick((c) => c.load.p99Ms),
        1,
      )}`,
      `${fmt(pick((c) => c.serverCpuUsPerReq))} / ${fmt(pick((c) => c.pgCpuUsPerReq))}`,
      String(mine.reduce((n, c) => n + c.load.non2xx + c.load.errors + c.load.timeouts, 0)),
    ];
  });
  say(table(['build', 'create req/s by round', 'median (min–max)', 'p50/p99 ms', 'CPU µs/req srv/PG', 'non-2xx+errors'], rows));
  say();
  const ratios = Array.from({ length: ROUNDS }, (_, i) => {
    const of = (name: string) => cells.find((c) => c.round === i + 1 && c.build === name)!.load.reqPerSec;
    return of('new') / of('old');
  });
  const ratio = median(ratios);
  say(
    `create req/s new/old by round: ${ratios.map((r) => fmt(r, 2)).join(', ')}; median **${fmt(ratio, 2)}** — ` +
      `target ≥ ${fmt(TARGET, 1)}: ${ratio >= TARGET ? 'met' : 'NOT met'}`,
  );
  if (wal.length > 0) {
    say();
    say(`WAL per create, ${fmt(WAL_CREATES)} creates per run right after a CHECKPOINT:`);
    say();
    say(walTable(wal));
    const perBuild = (name: string) => median(wal.filter((r) => r.server === name).map(judgedBytes));
    say();
    say(`WAL per create new/old: **${fmt(perBuild('new') / perBuild('old'), 2)}** (${fmt(perBuild('new'))} vs ${fmt(perBuild('old'))} B)`);
  }
}

async function main(): Promise<void> {
  const baseline = process.env.BENCH_BASELINE_DIR;
  if (!baseline) throw new Error('BENCH_BASELINE_DIR (a checkout of the old commit with dist/ built) is required: see scripts/bench-ab.sh');
  say(`# MarginCMS create A/B${quick ? ' (quick)' : ''}`);
  say();
  say(
    `${ROUNDS} round(s), old,new then new,old; ${settings.connections} connections, ${settings.warmupSeconds} s warm-up + ` +
      `${settings.durationSeconds} s measured per cell, a fresh process per cell. Server output: ${logFile}`,
  );
  const builds = [await prepare('old', resolve(baseline)), await prepare('new', process.cwd())];
  say(`PostgreSQL: ${await postgresSettings(builds[0]!.db.sql)}`);
  const cells: Cell[] = [];
  const wal: WalRun[] = [];
  for (let round = 1; round <= ROUNDS; round += 1) {
    const order = round % 2 === 1 ? builds : [...builds].reverse();
    for (const build of order) {
      const cell = await createCell(build, round);
      log(`ab ${round} ${build.name}: ${JSON.stringify(cell)}`);
      say(`  round ${round} create ${build.name} ${fmt(cell.load.reqPerSec).padStart(7)} req/s`);
      cells.push(cell);
    }
  }
  if (process.env.BENCH_WAL !== '0') {
    for (let round = 1; round <= ROUNDS; round += 1) {
      for (const build of round % 2 === 1 ? builds : [...builds].reverse()) wal.push(await walRun(build, round));
    }
  }
  const file = join(resultsDir, `${stamp}-ab.json`);
  writeFileSync(
    file,
    JSON.stringify(
      { settings, posts: POSTS, rounds: ROUNDS, builds: builds.map((b) => ({ name: b.name, dir: b.dir, rev: b.rev })), cells, wal },
      null,
      2,
    ),
  );
  say();
  report(builds, cells, wal);
  say();
  say(`Raw cells: ${file}`);
  if (cells.some((c) => c.load.ok === 0)) throw new Error('a cell had no successful create');
}

runMain('bench-ab', main);
