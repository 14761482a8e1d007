/**
 * `make bench`: the built API against the floor (bench/floor.mjs) on the same scratch database.
 *
 * Seeds BENCH_POSTS posts through the API, then for BENCH_ROUNDS rounds runs every scenario on
 * a fresh server process per cell, in the order API, floor, floor, API (quick mode: API, floor).
 * Prints medians and the API/floor ratio per scenario, then an embedded (PGlite) line, and
 * writes every cell to bench/results/<timestamp>.json.
 */
import { execSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { login } from './client.js';
import { createScratchDatabase, createUser, migrate, resetWrites, type Credentials } from './database.js';
import { envNumber, loadSettings, quick, serverUrl, type LoadSettings } from './env.js';
import { log, logFile, onCleanup, resultsDir, runMain, stamp } from './lifecycle.js';
import { SCENARIOS, WRITES, runLoad, type LoadResult, type Scenario, type Target } from './load.js';
import { cpuMicros, postgresCpu, postgresCpuDelta } from './measure.js';
import { fmt, mean, median, table } from './report.js';
import { findDeepPosition, seedThroughApi } from './seed.js';
import { postgresEnv, requireBuiltApi, startServer, type RunningServer, type ServerKind } from './servers.js';

interface Cell {
  round: number;
  scenario: Scenario;
  server: string;
  startMs: number;
  peakRssMiB: number | null;
  serverCpuUsPerReq: number | null;
  pgCpuUsPerReq: number | null;
  load: LoadResult;
  /** Rows deleted after a writing cell, so that the next cell sees the seeded data only. */
  resetPosts?: number;
}

const settings = loadSettings();
const POSTS = quick ? 300 : Math.floor(envNumber('BENCH_POSTS', 10_000));
const ROUNDS = quick ? 1 : Math.floor(envNumber('BENCH_ROUNDS', 3));
const EMBEDDED_POSTS = quick ? 100 : Math.floor(envNumber('BENCH_EMBEDDED_POSTS', 1000));
/** Short cells for the embedded line (quick: half a second of warm-up, one second measured). */
const EMBEDDED_LOAD: LoadSettings = quick
  ? { ...settings, warmupSeconds: 0.5, durationSeconds: 1 }
  : { ...settings, durationSeconds: Math.min(settings.durationSeconds, 5) };
const ORDER: ServerKind[] = quick ? ['api', 'floor'] : ['api', 'floor', 'floor', 'api'];
/** BENCH_SCENARIOS=get-one,create runs only those (for iterating on one path); default all. */
const ONLY: readonly Scenario[] = selectedScenarios(process.env.BENCH_SCENARIOS);
/** BENCH_EMBEDDED=0 skips the embedded (PGlite) line. */
const EMBEDDED = process.env.BENCH_EMBEDDED !== '0';

function selectedScenarios(raw: string | undefined): readonly Scenario[] {
  if (raw === undefined || raw.trim() === '') return SCENARIOS;
  const names = raw.split(',').map((name) => name.trim());
  const unknown = names.filter((name) => !(SCENARIOS as readonly string[]).includes(name));
  if (unknown.length > 0) throw new Error(`BENCH_SCENARIOS: unknown ${unknown.join(', ')}; known: ${SCENARIOS.join(', ')}`);
  return SCENARIOS.filter((scenario) => names.includes(scenario));
}

const say = (line = '') => console.log(line);

/** With BENCH_PROFILE=1, each cell's server writes a V8 CPU profile (open it in Chrome DevTools). */
const profileArgs = (cell: string): string[] => [
  ...(process.env.BENCH_PROFILE === '1'
    ? ['--cpu-prof', `--cpu-prof-dir=${join(resultsDir, `${stamp}-profiles`)}`, `--cpu-prof-name=${cell}.cpuprofile`]
    : []),
  ...(process.env.BENCH_NODE_ARGS?.split(/\s+/).filter(Boolean) ?? []),
];

/** Runs one scenario on a server that is already up, sampling /proc in the measured window. */
async function measure(server: RunningServer, scenario: Scenario, target: Target, load: LoadSettings, round: number): Promise<Cell> {
  let cpu0: number | null = null;
  let cpu1: number | null = null;
  let pg0 = new Map<number, number>();
  let pg1 = new Map<number, number>();
  const result = await runLoad(scenario, target, load, {
    before: () => {
      cpu0 = cpuMicros(server.pid);
      pg0 = postgresCpu();
    },
    after: () => {
      cpu1 = cpuMicros(server.pid);
      pg1 = postgresCpu();
    },
  });
  const perRequest = (micros: number | null) => (micros === null || result.requests === 0 ? null : micros / result.requests);
  const serverCpu = cpu0 !== null && cpu1 !== null ? (cpu1 as number) - (cpu0 as number) : null;
  return {
    round,
    scenario,
    server: server.kind,
    startMs: server.startMs,
    peakRssMiB: server.peakRssMiB(),
    serverCpuUsPerReq: perRequest(serverCpu),
    pgCpuUsPerReq: perRequest(postgresCpuDelta(pg0, pg1)),
    load: result,
  };
}

interface Seeded {
  token: string;
  ids: string[];
  /** Published posts' slugs, for the Content API scenarios. */
  slugs: string[];
  apiCursor: string;
  floorCursor: string;
  depth: number;
  cutoff: Date;
}

async function seed(env: Record<string, string>, credentials: Credentials, sql: import('postgres').Sql): Promise<Seeded> {
  const t0 = performance.now();
  const api = await startServer('api', env);
  try {
    const token = await login(api.baseUrl, credentials);
    const ids = await seedThroughApi(api.baseUrl, token, POSTS);
    const deep = await findDeepPosition(api.baseUrl, token, POSTS);
    const [row] = await sql<{ cutoff: Date }[]>`select max(created_at) as cutoff from posts`;
    const slugs = (await sql<{ slug: string }[]>`select slug from posts where status = 'published'`).map((r) => r.slug);
    await sql.unsafe('VACUUM (ANALYZE)');
    say(
      `Seeded ${fmt(POSTS)} posts through the API in ${fmt((performance.now() - t0) / 1000, 1)} s; deep cursor after ${fmt(deep.depth)} posts.`,
    );
    return { token, ids, slugs, ...deep, cutoff: row!.cutoff };
  } finally {
    await api.stop();
  }
}

async function runPostgresCells(
  databaseUrl: string,
  env: Record<string, string>,
  seeded: Seeded,
  sql: import('postgres').Sql,
): Promise<Cell[]> {
  const floorEnv = { DATABASE_URL: databaseUrl, DB_POOL_SIZE: env.DB_POOL_SIZE! };
  const cells: Cell[] = [];
  for (let round = 1; round <= ROUNDS; round += 1) {
    for (const scenario of ONLY) {
      for (const kind of ORDER) {
        const server = await startServer(kind, kind === 'api' ? env : floorEnv, kind, profileArgs(`${round}-${scenario}-${kind}`));
        const target: Target = {
          baseUrl: server.baseUrl,
          token: seeded.token,
          ids: seeded.ids,
          deepCursor: kind === 'api' ? seeded.apiCursor : seeded.floorCursor,
          slugs: seeded.slugs,
        };
        let cell: Cell;
        try {
          cell = await measure(server, scenario, target, settings, round);
        } finally {
          await server.stop();
        }
        if (WRITES.has(scenario)) cell.resetPosts = await resetWrites(sql, seeded.cutoff);
        log(`cell ${round} ${scenario} ${kind}: ${JSON.stringify(cell.load)}`);
        process.stdout.write(`  round ${round} ${scenario.padEnd(12)} ${kind.padEnd(5)} ${fmt(cell.load.reqPerSec).padStart(7)} req/s\n`);
        cells.push(cell);
      }
    }
  }
  return cells;
}

interface Embedded {
  firstStartMs: number;
  secondStartMs: number;
  posts: number;
  cells: Cell[];
}

/** The API on embedded PGlite: two starts (fresh, existing directory), then get, list and create. */
async function runEmbedded(): Promise<Embedded> {
  const dataDir = mkdtempSync(join(tmpdir(), 'margin-bench-'));
  onCleanup(() => rmSync(dataDir, { recursive: true, force: true }));
  const credentials = { email: 'bench@example.com', password: randomBytes(18).toString('base64url') };
  const env = {
    DATA_DIR: dataDir,
    ADMIN_EMAIL: credentials.email,
    ADMIN_PASSWORD: credentials.password,
    LOG_LEVEL: 'warn',
    ACCESS_TOKEN_TTL_SECONDS: '7200',
    CONTENT_RATE_LIMIT_PER_MINUTE: '0',
  };
  const first = await startServer('api', env, 'embedded');
  await first.stop();
  const server = await startServer('api', env, 'embedded');
  try {
    const token = await login(server.baseUrl, credentials);
    const ids = await seedThroughApi(server.baseUrl, token, EMBEDDED_POSTS, 8);
    const target: Target = { baseUrl: server.baseUrl, token, ids, deepCursor: '', slugs: [] };
    const cells: Cell[] = [];
    for (const scenario of ['get-one', 'list-20', 'create'] as const) {
      const cell = await measure(server, scenario, target, EMBEDDED_LOAD, 1);
      cell.pgCpuUsPerReq = null; // PGlite runs inside the server process
      process.stdout.write(`  embedded ${scenario.padEnd(12)} ${fmt(cell.load.reqPerSec).padStart(7)} req/s\n`);
      cells.push(cell);
    }
    return { firstStartMs: first.startMs, secondStartMs: server.startMs, posts: EMBEDDED_POSTS, cells };
  } finally {
    await server.stop();
  }
}

// ---------------------------------------------------------------------------------------------
// Report

const of = (cells: Cell[], scenario: string, server: string) => cells.filter((c) => c.scenario === scenario && c.server === server);
const med = (cells: Cell[], pick: (c: Cell) => number | null) => median(cells.map(pick).filter((v): v is number => v !== null));
const failures = (cells: Cell[]) => cells.reduce((n, c) => n + c.load.non2xx + c.load.errors + c.load.timeouts, 0);

/** API req/s ÷ floor req/s per round (each side the mean of its cells in that round). */
function roundRatios(cells: Cell[], scenario: string): number[] {
  const ratios: number[] = [];
  for (let round = 1; round <= ROUNDS; round += 1) {
    const inRound = cells.filter((c) => c.round === round);
    const api = mean(of(inRound, scenario, 'api').map((c) => c.load.reqPerSec));
    const floor = mean(of(inRound, scenario, 'floor').map((c) => c.load.reqPerSec));
    if (floor > 0) ratios.push(api / floor);
  }
  return ratios;
}

function comparisonTable(cells: Cell[]): string {
  const rows = ONLY.map((scenario) => {
    const api = of(cells, scenario, 'api');
    const floor = of(cells, scenario, 'floor');
    const ratios = roundRatios(cells, scenario);
    const cpu = (cs: Cell[]) => `${fmt(med(cs, (c) => c.serverCpuUsPerReq))} / ${fmt(med(cs, (c) => c.pgCpuUsPerReq))}`;
    const latency = (cs: Cell[]) =>
      `${fmt(
        med(cs, (c) => c.load.p50Ms),
        1,
      )} / ${fmt(
        med(cs, (c) => c.load.p99Ms),
        1,
      )}`;
    return [
      scenario,
      fmt(med(api, (c) => c.load.reqPerSec)),
      fmt(med(floor, (c) => c.load.reqPerSec)),
      `**${fmt(median(ratios), 2)}** (${fmt(Math.min(...ratios), 2)}–${fmt(Math.max(...ratios), 2)})`,
      latency(api),
      latency(floor),
      cpu(api),
      cpu(floor),
      `${failures(api)} / ${failures(floor)}`,
    ];
  });
  return table(
    [
      'scenario',
      'API req/s',
      'floor req/s',
      'API/floor req/s (min–max)',
      'API p50/p99 ms',
      'floor p50/p99 ms',
      'API CPU µs/req srv/PG',
      'floor CPU µs/req srv/PG',
      'non-2xx+errors API/floor',
    ],
    rows,
  );
}

function processTable(cells: Cell[]): string {
  const row = (server: string) => {
    const cs = cells.filter((c) => c.server === server);
    return [
      server,
      fmt(
        med(cs, (c) => c.peakRssMiB),
        1,
      ),
      fmt(Math.max(...cs.map((c) => c.peakRssMiB ?? 0)), 1),
      fmt(med(cs, (c) => c.startMs)),
    ];
  };
  return table(['server', 'peak RSS MiB (median)', 'peak RSS MiB (max)', 'start ms (median)'], [row('api'), row('floor')]);
}

function embeddedTable(e: Embedded): string {
  const rows = e.cells.map((c) => [
    c.scenario,
    fmt(c.load.reqPerSec),
    `${fmt(c.load.p50Ms, 1)} / ${fmt(c.load.p99Ms, 1)}`,
    fmt(c.serverCpuUsPerReq),
    String(c.load.non2xx + c.load.errors + c.load.timeouts),
    fmt(c.peakRssMiB, 1),
  ]);
  return table(['embedded', 'req/s', 'p50/p99 ms', 'CPU µs/req (server incl. PGlite)', 'non-2xx+errors', 'peak RSS MiB'], rows);
}

function gitDescription(): string {
  try {
    const sha = execSync('git rev-parse --short HEAD', { encoding: 'utf8' }).trim();
    const dirty = execSync('git status --porcelain -- src', { encoding: 'utf8' }).trim() !== '';
    return `${sha}${dirty ? ' + uncommitted changes in src/' : ''}`;
  } catch {
    return 'unknown';
  }
}

async function main(): Promise<void> {
  const built = requireBuiltApi();
  say(`# MarginCMS benchmark${quick ? ' (quick)' : ''}`);
  say();
  say(
    `API: ${built}, git ${gitDescription()}. ${ROUNDS} round(s), order ${ORDER.join(',')} per scenario, ` +
      `${settings.connections} connections, ${settings.warmupSeconds} s warm-up + ${settings.durationSeconds} s measured per cell.`,
  );
  say(`Server output: ${logFile}`);

  const db = await createScratchDatabase(serverUrl);
  await migrate(db.url);
  const credentials = await createUser(db.url);
  const env = postgresEnv(db.url, randomBytes(48).toString('base64'));
  const seeded = await seed(env, credentials, db.sql);

  const cells = await runPostgresCells(db.url, env, seeded, db.sql);
  let embedded: Embedded | null = null;
  if (EMBEDDED) {
    say(`Embedded (PGlite), ${fmt(EMBEDDED_POSTS)} posts:`);
    embedded = await runEmbedded();
  }

  const file = join(resultsDir, `${stamp}.json`);
  writeFileSync(file, JSON.stringify({ quick, settings, posts: POSTS, rounds: ROUNDS, order: ORDER, cells, embedded }, null, 2));

  say();
  say(`## PostgreSQL, ${fmt(POSTS)} posts: API vs floor (medians over cells; ratio is the median of per-round ratios)`);
  say();
  say(comparisonTable(cells));
  say();
  say(processTable(cells));
  say();
  if (embedded) {
    say(
      `## Embedded PGlite, ${fmt(embedded.posts)} posts: first start ${fmt(embedded.firstStartMs)} ms (fresh directory), ` +
        `second start ${fmt(embedded.secondStartMs)} ms`,
    );
    say();
    say(embeddedTable(embedded));
    say();
  }
  say(`Raw cells: ${file}`);

  const empty = [...cells, ...(embedded?.cells ?? [])].filter((c) => c.load.ok === 0);
  if (empty.length > 0) {
    throw new Error(`no successful request in ${empty.map((c) => `${c.server} ${c.scenario} (round ${c.round})`).join(', ')}`);
  }
}

runMain('bench', main);
