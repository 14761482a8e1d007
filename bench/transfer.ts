/**
 * `make bench-transfer`: how fast the built API moves a whole site out and in, and the memory it
 * takes.
 *
 * Seeds BENCH_POSTS (10,000) posts through the API on one scratch database, then for
 * BENCH_ROUNDS (3) rounds, each step on a fresh server process: the export (`GET /export`, read
 * to the end); into a second, empty database: the import's dry run, the import applied, and the
 * same archive imported again (every post unchanged). Prints posts per second and the server's
 * peak RSS per step (medians over rounds), and checks the round trip: the export of the imported
 * site lists the same files with the same SHA-256 as the first.
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { unzipSync } from 'fflate';
import type postgres from 'postgres';
import { MANIFEST_PATH, type Manifest } from '../src/site-files/manifest.js';
import { login } from './client.js';
import { countPosts, createScratchDatabase, createUser, migrate, type Credentials } from './database.js';
import { envNumber, quick, serverUrl } from './env.js';
import { logFile, resultsDir, runMain, stamp } from './lifecycle.js';
import { fmt, median, table } from './report.js';
import { seedThroughApi } from './seed.js';
import { postgresEnv, requireBuiltApi, startServer } from './servers.js';

const POSTS = quick ? 300 : Math.floor(envNumber('BENCH_POSTS', 10_000));
const ROUNDS = quick ? 1 : Math.floor(envNumber('BENCH_ROUNDS', 3));

type Step = 'export' | 'import dry run' | 'import apply' | 're-import (unchanged)';

interface Cell {
  round: number;
  step: Step;
  seconds: number;
  posts: number;
  bytes: number;
  peakRssMiB: number | null;
}

interface Report {
  counts: { files: number; create: number; update: number; unchanged: number; skip: number };
  items: { path: string; action: string; reason: string | null; detail: string | null }[];
}

const say = (line = '') => console.log(line);

/** Runs `work` on a fresh API process over `env`; answers its result, the time it took and the peak RSS. */
async function onFreshServer<T>(
  env: Record<string, string>,
  credentials: Credentials,
  work: (baseUrl: string, token: string) => Promise<T>,
): Promise<{ result: T; seconds: number; peakRssMiB: number | null }> {
  const api = await startServer('api', env);
  try {
    const token = await login(api.baseUrl, credentials);
    const t0 = performance.now();
    const result = await work(api.baseUrl, token);
    const seconds = (performance.now() - t0) / 1000;
    return { result, seconds, peakRssMiB: api.peakRssMiB() };
  } finally {
    await api.stop();
  }
}

async function exportSite(baseUrl: string, token: string): Promise<Uint8Array> {
  const res = await fetch(`${baseUrl}/export`, { headers: { authorization: `Bearer ${token}` } });
  if (res.status !== 200) throw new Error(`GET /export answered ${res.status}`);
  return new Uint8Array(await res.arrayBuffer());
}

async function importSite(baseUrl: string, token: string, zip: Uint8Array, mode: 'dry-run' | 'apply'): Promise<Report> {
  const res = await fetch(`${baseUrl}/import?mode=${mode}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/zip' },
    body: zip,
  });
  const body = (await res.json()) as Report;
  if (res.status !== 200) throw new Error(`POST /import answered ${res.status}: ${JSON.stringify(body).slice(0, 300)}`);
  return body;
}

/** The manifest's files (path, bytes, SHA-256) of an export, for the round-trip check. */
function manifestFiles(zip: Uint8Array): string {
  const manifest = JSON.parse(
    Buffer.from(unzipSync(zip, { filter: (f) => f.name === MANIFEST_PATH })[MANIFEST_PATH]!).toString('utf8'),
  ) as Manifest;
  return JSON.stringify(manifest.files);
}

async function emptySite(sql: postgres.Sql): Promise<void> {
  await sql`delete from posts`;
  await sql`delete from revisions`;
  await sql`delete from activity_events`;
  await sql.unsafe('VACUUM (ANALYZE) posts, revisions, activity_events');
}

function expectCounts(report: Report, expected: Partial<Report['counts']>, step: Step): void {
  for (const [key, value] of Object.entries(expected)) {
    const actual = report.counts[key as keyof Report['counts']];
    if (actual !== value) {
      const skipped = report.items.filter((item) => item.action === 'skip').slice(0, 5);
      throw new Error(`${step}: expected ${key} ${value}, the report says ${actual}; skipped: ${JSON.stringify(skipped)}`);
    }
  }
}

async function main(): Promise<void> {
  requireBuiltApi();
  say(`# MarginCMS export and import: ${fmt(POSTS)} posts, ${ROUNDS} round(s), a fresh server process per step`);
  say();
  say(`Built API on PostgreSQL (${serverUrl.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@')}). Server output: ${logFile}`);
  say();

  const source = await createScratchDatabase(serverUrl);
  await migrate(source.url);
  const sourceUser = await createUser(source.url);
  const secret = randomBytes(48).toString('base64');
  const sourceEnv = postgresEnv(source.url, secret);
  const target = await createScratchDatabase(serverUrl);
  await migrate(target.url);
  const targetUser = await createUser(target.url);
  const targetEnv = postgresEnv(target.url, secret);

  const seeded = await onFreshServer(sourceEnv, sourceUser, (baseUrl, token) => seedThroughApi(baseUrl, token, POSTS));
  say(`Seeded ${fmt(POSTS)} posts through the API in ${fmt(seeded.seconds, 1)} s.`);

  const cells: Cell[] = [];
  let archive: Uint8Array | null = null;
  for (let round = 1; round <= ROUNDS; round += 1) {
    const exported = await onFreshServer(sourceEnv, sourceUser, exportSite);
    archive = exported.result;
    cells.push({
      round,
      step: 'export',
      seconds: exported.seconds,
      posts: POSTS,
      bytes: archive.byteLength,
      peakRssMiB: exported.peakRssMiB,
    });
    const zip = archive;

    await emptySite(target.sql);
    const dryRun = await onFreshServer(targetEnv, targetUser, (b, t) => importSite(b, t, zip, 'dry-run'));
    expectCounts(dryRun.result, { create: POSTS, skip: 0 }, 'import dry run');
    if ((await countPosts(target.sql)) !== 0) throw new Error('the dry run wrote posts');
    cells.push({
      round,
      step: 'import dry run',
      seconds: dryRun.seconds,
      posts: POSTS,
      bytes: zip.byteLength,
      peakRssMiB: dryRun.peakRssMiB,
    });

    const applied = await onFreshServer(targetEnv, targetUser, (b, t) => importSite(b, t, zip, 'apply'));
    expectCounts(applied.result, { create: POSTS, skip: 0 }, 'import apply');
    cells.push({
      round,
      step: 'import apply',
      seconds: applied.seconds,
      posts: POSTS,
      bytes: zip.byteLength,
      peakRssMiB: applied.peakRssMiB,
    });

    const again = await onFreshServer(targetEnv, targetUser, (b, t) => importSite(b, t, zip, 'apply'));
    expectCounts(again.result, { unchanged: POSTS, create: 0, update: 0, skip: 0 }, 're-import (unchanged)');
    cells.push({
      round,
      step: 're-import (unchanged)',
      seconds: again.seconds,
      posts: POSTS,
      bytes: zip.byteLength,
      peakRssMiB: again.peakRssMiB,
    });
  }

  // The round trip: the imported site exports the same files, byte for byte.
  const reexported = await onFreshServer(targetEnv, targetUser, exportSite);
  const sameFiles = manifestFiles(reexported.result) === manifestFiles(archive!);
  if (!sameFiles) throw new Error('the export of the imported site differs from the first export');

  say();
  say(`## ${fmt(POSTS)} posts, archive ${fmt(archive!.byteLength / 1024 / 1024, 1)} MiB (medians over ${ROUNDS} round(s))`);
  say();
  const steps: Step[] = ['export', 'import dry run', 'import apply', 're-import (unchanged)'];
  const rows = steps.map((step) => {
    const mine = cells.filter((cell) => cell.step === step);
    const seconds = median(mine.map((cell) => cell.seconds));
    const rss = mine.map((cell) => cell.peakRssMiB).filter((value): value is number => value !== null);
    return [
      step,
      fmt(seconds, 2),
      fmt(POSTS / seconds),
      `${fmt(median(rss), 1)} / ${fmt(Math.max(...rss), 1)}`,
      mine.map((cell) => fmt(POSTS / cell.seconds)).join(', '),
    ];
  });
  say(table(['step', 'seconds', 'posts/s', 'peak RSS MiB (median / max)', 'posts/s per round'], rows));
  say();
  say('Round trip: the export of the imported site lists the same files with the same SHA-256 as the first export.');
  const file = join(resultsDir, `${stamp}-transfer.json`);
  writeFileSync(file, JSON.stringify({ posts: POSTS, rounds: ROUNDS, cells }, null, 2));
  say(`Raw figures: ${file}`);
}

runMain('bench-transfer', main);
