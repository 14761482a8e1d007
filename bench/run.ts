/**
 * `make bench`: the built API against the floor (bench/floor.mjs) on the same scratch database.
 *
 * Seeds BENCH_POSTS posts through the API, then for BENCH_ROUNDS rounds runs every scenario on
 * a fresh server process per cell, in the order API, floor, floor, API (quick mode: API, floor).
 * Prints medians and the API/floor ratio per scenario, then an embedded (PGlite) line, and
 * writes every cell to bench/results/<timestamp>.json. The image line (#31): `media-get` is a
 * scenario as the others (its floor is Hono's `serveStatic` of the same bytes from disk);
 * `media-upload` (uploads/s, a fresh server per round) and `media-rss` (peak RSS of ten parallel
 * ~20 MiB uploads) are runs of their own, after the cells (bench/media.ts); so is `media-parallel`
 * (#40: twenty ~15 MB uploads at once, on PostgreSQL and on PGlite: RSS idle, peak and after,
 * the worst /healthz; bench/media-parallel.ts).
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
import {
  RSS_JPEG,
  UPLOAD_JPEG,
  distinctJpegs,
  measureUploadRss,
  runUploads,
  storeServedFile,
  type RssRun,
  type UploadRun,
} from './media.js';
import { measureParallelUploads, parallelJpegs, parallelLine, type ParallelRun } from './media-parallel.js';
import { cpuAround } from './measure.js';
import { fmt, mean, median, table } from './report.js';
import { findDeepPosition, seedThroughApi } from './seed.js';
import { postgresEnv, requireBuiltApi, startServer, type RunningServer, type ServerKind } from './servers.js';
import { enableWalInspect, measureWalPerCreate, postgresSettings, walTable, walTargetLine, type WalRun } from './wal.js';

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
/** The image runs that are not a fixed-time load (bench/media.ts). */
const MEDIA_RUNS = ['media-upload', 'media-rss', 'media-parallel'] as const;
type MediaRun = (typeof MEDIA_RUNS)[number];
const KNOWN: readonly string[] = [...SCENARIOS, ...MEDIA_RUNS];
/** BENCH_SCENARIOS=get-one,create runs only those (for iterating on one path); default all. */
const ONLY: readonly Scenario[] = selectedScenarios(process.env.BENCH_SCENARIOS);
const ONLY_RUNS: readonly MediaRun[] = MEDIA_RUNS.filter((run) => selected(process.env.BENCH_SCENARIOS, run));
/** Uploads timed per round of `media-upload` (quick: 3), by BENCH_MEDIA_PARALLEL (4) clients. */
const UPLOADS = quick ? 3 : Math.floor(envNumber('BENCH_MEDIA_UPLOADS', 12));
const UPLOAD_PARALLEL = Math.floor(envNumber('BENCH_MEDIA_PARALLEL', 4));
/** Creates per WAL measurement (bench/wal.ts), per server and round, quick mode too. */
const WAL_CREATES = Math.floor(envNumber('BENCH_WAL_CREATES', 2000));
/** The WAL per create step runs with the `create` scenario; BENCH_WAL=0 skips it. */
const WAL = process.env.BENCH_WAL !== '0' && ONLY.includes('create');
/** Where the floor's `serveStatic` finds the media files (`<dir>/<id>/<name>`). */
const floorMediaDir = mkdtempSync(join(tmpdir(), 'margin-bench-media-'));
onCleanup(() => rmSync(floorMediaDir, { recursive: true, force: true }));

function selected(raw: string | undefined, name: string): boolean {
  return raw === undefined || raw.trim() === '' || raw.split(',').some((n) => n.trim() === name);
}
/** BENCH_EMBEDDED=0 skips the embedded (PGlite) line. */
const EMBEDDED = process.env.BENCH_EMBEDDED !== '0';

function selectedScenarios(raw: string | undefined): readonly Scenario[] {
  if (raw === undefined || raw.trim() === '') return SCENARIOS;
  const names = raw.split(',').map((name) => name.trim());
  const unknown = names.filter((name) => !KNOWN.includes(name));
  if (unknown.length > 0) throw new Error(`BENCH_SCENARIOS: unknown ${unknown.join(', ')}; known: ${KNOWN.join(', ')}`);
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
  const cpu = cpuAround(server.pid);
  const result = await runLoad(scenario, target, load, cpu);
  return {
    round,
    scenario,
    server: server.kind,
    startMs: server.startMs,
    peakRssMiB: server.peakRssMiB(),
    ...cpu.perRequest(result.requests),
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
  /** A stored variant of about 100 KB (with `media-get`), also in `floorMediaDir`. */
  mediaPath?: string;
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
    const media = ONLY.includes('media-get') ? await storeServedFile(api.baseUrl, token, floorMediaDir) : undefined;
    if (media) say(`Stored ${media.path}: ${fmt(media.bytes.byteLength / 1024, 1)} KiB, served by the floor from disk.`);
    say(
      `Seeded ${fmt(POSTS)} posts through the API in ${fmt((performance.now() - t0) / 1000, 1)} s; deep cursor after ${fmt(deep.depth)} posts.`,
    );
    return { token, ids, slugs, ...deep, cutoff: row!.cutoff, ...(media ? { mediaPath: media.path } : {}) };
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
  const floorEnv = { DATABASE_URL: databaseUrl, DB_POOL_SIZE: env.DB_POOL_SIZE!, BENCH_MEDIA_DIR: floorMediaDir };
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
          ...(seeded.mediaPath === undefined ? {} : { mediaPath: seeded.mediaPath }),
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

/**
 * WAL per create (#32): per round, the API and the floor each on a fresh process, WAL_CREATES
 * creates right after a CHECKPOINT (bench/wal.ts); rows are reset after each.
 */
async function runWal(env: Record<string, string>, floorEnv: Record<string, string>, seeded: Seeded, sql: import('postgres').Sql) {
  const inspect = await enableWalInspect(sql);
  if (!inspect) say('pg_walinspect is not available: WAL per create is the LSN difference of the whole server only.');
  const runs: WalRun[] = [];
  for (let round = 1; round <= ROUNDS; round += 1) {
    for (const kind of ORDER) {
      const server = await startServer(kind, kind === 'api' ? env : floorEnv, kind, profileArgs(`${round}-wal-${kind}`));
      let run: WalRun;
      try {
        run = await measureWalPerCreate(sql, { server: kind, baseUrl: server.baseUrl, token: seeded.token }, round, WAL_CREATES, inspect);
      } finally {
        await server.stop();
      }
      await resetWrites(sql, seeded.cutoff);
      log(`wal ${round} ${kind}: ${JSON.stringify(run)}`);
      const own = run.ownBytes === null ? '' : `, ${fmt(run.ownBytes / run.creates)} B in the bench database`;
      process.stdout.write(
        `  round ${round} wal-create   ${kind.padEnd(5)} ${fmt(run.lsnBytes / run.creates).padStart(7)} B/create${own}\n`,
      );
      runs.push(run);
    }
  }
  return runs;
}

interface Embedded {
  firstStartMs: number;
  secondStartMs: number;
  posts: number;
  cells: Cell[];
  /** The floor's `media-get` cell, run after the embedded server's (none without `media-get`). */
  floorCells: Cell[];
}

/**
 * The API on embedded PGlite: two starts (fresh, existing directory), then get, list and create;
 * with `media-get`, a stored file served, then by the floor (`floorEnv`) from disk.
 */
async function runEmbedded(floorEnv: Record<string, string>): Promise<Embedded> {
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
  const server = await startServer('api', env, 'embedded', profileArgs('embedded-api'));
  try {
    const token = await login(server.baseUrl, credentials);
    const postScenarios = (['get-one', 'list-20', 'create'] as const).filter((scenario) => ONLY.includes(scenario));
    const ids = postScenarios.length > 0 ? await seedThroughApi(server.baseUrl, token, EMBEDDED_POSTS, 8) : [];
    const media = ONLY.includes('media-get') ? await storeServedFile(server.baseUrl, token, floorMediaDir) : undefined;
    const target: Target = { baseUrl: server.baseUrl, token, ids, deepCursor: '', slugs: [] };
    if (media) target.mediaPath = media.path;
    const cells: Cell[] = [];
    for (const scenario of [...postScenarios, ...(media ? (['media-get'] as const) : [])]) {
      const cell = await measure(server, scenario, target, EMBEDDED_LOAD, 1);
      cell.pgCpuUsPerReq = null; // PGlite runs inside the server process
      process.stdout.write(`  embedded ${scenario.padEnd(12)} ${fmt(cell.load.reqPerSec).padStart(7)} req/s\n`);
      cells.push(cell);
    }
    await server.stop();
    const floorCells: Cell[] = [];
    if (media) {
      const floor = await startServer('floor', floorEnv, 'floor', profileArgs('embedded-media-get-floor'));
      try {
        floorCells.push(await measure(floor, 'media-get', { ...target, baseUrl: floor.baseUrl }, EMBEDDED_LOAD, 1));
      } finally {
        await floor.stop();
      }
      process.stdout.write(`  floor    media-get    ${fmt(floorCells[0]!.load.reqPerSec).padStart(7)} req/s\n`);
    }
    return { firstStartMs: first.startMs, secondStartMs: server.startMs, posts: EMBEDDED_POSTS, cells, floorCells };
  } finally {
    await server.stop();
  }
}

interface MediaRuns {
  uploads: UploadRun[];
  rss: RssRun | null;
  parallel: ParallelRun[];
}

/**
 * `media-upload`: per round, a fresh API process, one untimed upload, then UPLOADS distinct JPEGs
 * by UPLOAD_PARALLEL clients. `media-rss`: a fresh API process given ten ~20 MiB JPEGs at once.
 * Every JPEG is made before the timed part.
 */
async function runMedia(env: Record<string, string>, token: string): Promise<MediaRuns> {
  const runs: MediaRuns = { uploads: [], rss: null, parallel: [] };
  if (ONLY_RUNS.includes('media-upload')) {
    const t0 = performance.now();
    const jpegs = await distinctJpegs((UPLOADS + 1) * ROUNDS, UPLOAD_JPEG);
    const made = fmt((performance.now() - t0) / 1000, 1);
    say(`Made ${jpegs.length} distinct ${UPLOAD_JPEG.width} × ${UPLOAD_JPEG.height} JPEGs in ${made} s.`);
    for (let round = 1; round <= ROUNDS; round += 1) {
      const mine = jpegs.slice((round - 1) * (UPLOADS + 1), round * (UPLOADS + 1));
      const server = await startServer('api', env, 'api', profileArgs(`${round}-media-upload-api`));
      try {
        const run = await runUploads(server, token, mine[0]!, mine.slice(1), UPLOAD_PARALLEL);
        log(`media-upload ${round}: ${JSON.stringify(run)}`);
        process.stdout.write(`  round ${round} media-upload api   ${fmt(run.perSec, 2).padStart(7)} uploads/s\n`);
        runs.uploads.push(run);
      } finally {
        await server.stop();
      }
    }
  }
  if (ONLY_RUNS.includes('media-rss')) {
    const jpegs = await distinctJpegs(10, RSS_JPEG);
    const server = await startServer('api', env, 'api', profileArgs('media-rss-api'));
    try {
      runs.rss = await measureUploadRss(server, token, jpegs);
      log(`media-rss: ${JSON.stringify(runs.rss)}`);
    } finally {
      await server.stop();
    }
  }
  if (ONLY_RUNS.includes('media-parallel')) runs.parallel.push(await runParallel('PostgreSQL', env, token, 0));
  return runs;
}

/** `media-parallel` on a fresh API process of `env`; `token` null: log in as the embedded admin of `env`. */
async function runParallel(store: string, env: Record<string, string>, token: string | null, offset: number): Promise<ParallelRun> {
  const { warmUp, jpegs } = await parallelJpegs(offset);
  const server = await startServer('api', env, `${store}-parallel`, profileArgs(`media-parallel-${store}`));
  try {
    const bearer = token ?? (await login(server.baseUrl, { email: env.ADMIN_EMAIL!, password: env.ADMIN_PASSWORD! }));
    // The server runs with scripts/start-server.sh's malloc settings unless BENCH_MALLOC=glibc.
    const label = process.env.BENCH_MALLOC === 'glibc' ? `${store} (glibc's malloc defaults)` : store;
    const run = await measureParallelUploads(server, label, bearer, warmUp, jpegs);
    log(`media-parallel ${store}: ${JSON.stringify(run)}`);
    process.stdout.write(`  media-parallel ${store}: peak ${fmt(run.peakMiB)} MiB, /healthz worst ${fmt(run.healthzWorstMs)} ms\n`);
    return run;
  } finally {
    await server.stop();
  }
}

/** `media-parallel` on embedded PGlite, in a data folder of its own. */
function runEmbeddedParallel(): Promise<ParallelRun> {
  const dataDir = mkdtempSync(join(tmpdir(), 'margin-bench-'));
  onCleanup(() => rmSync(dataDir, { recursive: true, force: true }));
  const env = {
    DATA_DIR: dataDir,
    ADMIN_EMAIL: 'bench@example.com',
    ADMIN_PASSWORD: randomBytes(18).toString('base64url'),
    LOG_LEVEL: 'warn',
    ACCESS_TOKEN_TTL_SECONDS: '7200',
  };
  return runParallel('PGlite', env, null, 1);
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
      `${fmt(med(api, (c) => c.load.bytesPerReq ?? null))} / ${fmt(med(floor, (c) => c.load.bytesPerReq ?? null))}`,
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
      'bytes/answer API/floor',
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

/** The embedded `media-get` against the floor's cell run after it (one cell each). */
function embeddedMediaLine(e: Embedded): string | null {
  const api = e.cells.find((c) => c.scenario === 'media-get');
  const floor = e.floorCells[0];
  if (api === undefined || floor === undefined || floor.load.reqPerSec === 0) return null;
  return (
    `media-get on PGlite: ${fmt(api.load.reqPerSec)} req/s, floor (serveStatic from disk) ${fmt(floor.load.reqPerSec)} req/s: ` +
    `**${fmt(api.load.reqPerSec / floor.load.reqPerSec, 2)}** of the floor (one cell each)`
  );
}

function uploadTable(runs: UploadRun[]): string {
  const rows = runs.map((r, i) => [
    String(i + 1),
    `${r.created} / ${r.uploads}`,
    Object.entries(r.statuses)
      .filter(([status]) => status !== '201')
      .map(([status, n]) => `${n} × ${status}`)
      .join(', ') || '–',
    fmt(r.megabytes, 2),
    fmt(r.seconds, 1),
    `**${fmt(r.perSec, 2)}**`,
    `${fmt(r.p50Ms)} / ${fmt(r.maxMs)}`,
    fmt(r.peakRssMiB, 1),
  ]);
  return table(['round', '201 / uploads', 'other answers', 'MiB each', 's', 'uploads/s', 'p50/max ms', 'peak RSS MiB'], rows);
}

/**
 * The Content API's list (limit=20) as it goes out to a client that accepts nothing, br or gzip
 * (#41 item 9): bytes per answer on the wire (headers included) and the API's CPU per request.
 */
function compressionLine(cells: Cell[]): string | null {
  const codings = (['content-list', 'content-list-br', 'content-list-gzip'] as const).filter((scenario) => ONLY.includes(scenario));
  if (codings.length < 2) return null;
  const parts = codings.map((scenario) => {
    const api = of(cells, scenario, 'api');
    const name = scenario === 'content-list' ? 'identity' : scenario.slice('content-list-'.length);
    return `${name} ${fmt(med(api, (c) => c.load.bytesPerReq ?? null))} B/answer, ${fmt(med(api, (c) => c.serverCpuUsPerReq))} µs CPU/req`;
  });
  return `content-list on the wire (#41 item 9): ${parts.join('; ')}`;
}

/** The figures #32 sets targets for that this run measures, each with `met` or `NOT met`. */
function targetLines(cells: Cell[], wal: WalRun[]): string[] {
  const lines = ['Targets (#32):'];
  if (wal.some((r) => r.server === 'api')) lines.push(`- ${walTargetLine(wal)}`);
  if (ONLY.includes('content-list')) {
    const ratios = roundRatios(cells, 'content-list');
    const value = median(ratios);
    lines.push(
      `- content-list API/floor: **${fmt(value, 2)}** (${fmt(Math.min(...ratios), 2)}–${fmt(Math.max(...ratios), 2)}) — ` +
        `target ≥ 0.80: ${value >= 0.8 ? 'met' : 'NOT met'}`,
    );
  }
  const compression = compressionLine(cells);
  if (compression !== null) lines.push(`- ${compression}`);
  lines.push('- create req/s against an older build: `make bench-ab` (bench/ab.ts).');
  return lines;
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
  const pgSettings = await postgresSettings(db.sql);
  say(`PostgreSQL: ${pgSettings}`);
  await migrate(db.url);
  const credentials = await createUser(db.url);
  const env = postgresEnv(db.url, randomBytes(48).toString('base64'));
  const seeded = await seed(env, credentials, db.sql);

  const cells = await runPostgresCells(db.url, env, seeded, db.sql);
  const floorEnv = { DATABASE_URL: db.url, DB_POOL_SIZE: env.DB_POOL_SIZE!, BENCH_MEDIA_DIR: floorMediaDir };
  const wal = WAL ? await runWal(env, floorEnv, seeded, db.sql) : [];
  const media = await runMedia(env, seeded.token);
  let embedded: Embedded | null = null;
  if (EMBEDDED) {
    say(`Embedded (PGlite), ${fmt(EMBEDDED_POSTS)} posts:`);
    embedded = await runEmbedded({ DATABASE_URL: db.url, BENCH_MEDIA_DIR: floorMediaDir });
    if (ONLY_RUNS.includes('media-parallel')) media.parallel.push(await runEmbeddedParallel());
  }

  const file = join(resultsDir, `${stamp}.json`);
  writeFileSync(
    file,
    JSON.stringify({ quick, settings, pgSettings, posts: POSTS, rounds: ROUNDS, order: ORDER, cells, wal, media, embedded }, null, 2),
  );

  say();
  say(`## PostgreSQL, ${fmt(POSTS)} posts: API vs floor (medians over cells; ratio is the median of per-round ratios)`);
  say();
  say(comparisonTable(cells));
  say();
  say(processTable(cells));
  say();
  if (wal.length > 0) {
    say(`## WAL per create on PostgreSQL: ${fmt(WAL_CREATES)} creates per run right after a CHECKPOINT, a fresh process per run`);
    say();
    say(walTable(wal));
    say();
  }
  say(targetLines(cells, wal).join('\n'));
  say();
  if (media.uploads.length > 0) {
    say(
      `## Uploads on PostgreSQL: ${UPLOADS} distinct ${UPLOAD_JPEG.width} × ${UPLOAD_JPEG.height} JPEGs per round by ` +
        `${UPLOAD_PARALLEL} clients, a fresh server per round, after one untimed upload (no floor: the cost is sharp's)`,
    );
    say();
    say(uploadTable(media.uploads));
    say();
  }
  if (media.rss) {
    const r = media.rss;
    say(
      `## Ten parallel uploads of ${fmt(r.uploadMiB, 1)} MiB JPEGs (${RSS_JPEG.width} × ${RSS_JPEG.height}) on PostgreSQL: ` +
        `${r.created} of ${r.uploads} answered 201 in ${fmt(r.seconds, 1)} s; server RSS ${fmt(r.beforeMiB, 1)} MiB before, ` +
        `**peak ${fmt(r.peakMiB, 1)} MiB** (VmHWM)`,
    );
    say();
  }
  if (media.parallel.length > 0) {
    say(
      `## ${media.parallel[0]!.uploads} parallel uploads of ${fmt(media.parallel[0]!.uploadMiB, 1)} MiB JPEGs (half raw, half forms), a fresh server each`,
    );
    say();
    for (const run of media.parallel) say(`- ${parallelLine(run)}`);
    say();
  }
  if (embedded) {
    say(
      `## Embedded PGlite, ${fmt(embedded.posts)} posts: first start ${fmt(embedded.firstStartMs)} ms (fresh directory), ` +
        `second start ${fmt(embedded.secondStartMs)} ms`,
    );
    say();
    say(embeddedTable(embedded));
    say();
    const line = embeddedMediaLine(embedded);
    if (line !== null) {
      say(line);
      say();
    }
  }
  say(`Raw cells: ${file}`);

  // As for the cells, answers other than 201 are shown (the table, the JSON) and only none at all fails.
  const storedNothing = media.parallel.some((r) => r.statuses['201'] === undefined);
  if (media.uploads.some((r) => r.created === 0) || media.rss?.created === 0 || storedNothing)
    throw new Error(`an upload run stored nothing; see ${file}`);
  const empty = [...cells, ...(embedded?.cells ?? []), ...(embedded?.floorCells ?? [])].filter((c) => c.load.ok === 0);
  if (empty.length > 0) {
    throw new Error(`no successful request in ${empty.map((c) => `${c.server} ${c.scenario} (round ${c.round})`).join(', ')}`);
  }
}

runMain('bench', main);
