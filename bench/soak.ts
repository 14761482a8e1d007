/**
 * `make bench-soak`: one API process (BENCH_SOAK_SERVER=floor: the floor) under saturated mixed load (70% get, 20% first list page,
 * 10% create) for BENCH_SOAK_SECONDS (600) after BENCH_WARMUP (3 s). Prints 2xx req/s per BENCH_SOAK_WINDOW (60 s), the
 * ratio last window / first window, and RSS sampled every 10 s (first, max, last).
 *
 * The target (#32, ≥ 0.95) is judged with autovacuum on, as a live site runs: when the
 * server has it off (the CI machine's conf.d does), the soak turns it on for the run with
 * `ALTER SYSTEM SET autovacuum = on` and a reload, and resets it when it ends (also on an error or
 * Ctrl-C); BENCH_SOAK_AUTOVACUUM=asis leaves the server as it is. The settings that shape write and
 * vacuum costs are printed at the start and stored with the figures.
 */
import { randomBytes } from 'node:crypto';
import type postgres from 'postgres';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { login } from './client.js';
import { countPosts, createScratchDatabase, createUser, migrate } from './database.js';
import { envNumber, loadSettings, serverUrl } from './env.js';
import { log, logFile, onCleanup, resultsDir, runMain, stamp } from './lifecycle.js';
import { startSoak } from './load.js';
import { rssMiB } from './measure.js';
import { fmt, linearFit, table } from './report.js';
import { seedThroughApi } from './seed.js';
import { postgresEnv, requireBuiltApi, startServer } from './servers.js';
import { postgresSettings } from './wal.js';

const SECONDS = envNumber('BENCH_SOAK_SECONDS', 600);
const WINDOW = envNumber('BENCH_SOAK_WINDOW', 60);
const POSTS = Math.floor(envNumber('BENCH_POSTS', 10_000));
/** BENCH_SOAK_SERVER=floor soaks the floor instead: what the same load does to the database alone. */
const SERVER = process.env.BENCH_SOAK_SERVER === 'floor' ? 'floor' : 'api';
const RSS_EVERY_MS = 10_000;
const AUTOVACUUM_AS_IS = process.env.BENCH_SOAK_AUTOVACUUM === 'asis';
/** The soak's target (#32): the last window's req/s at least this share of the first's. */
const TARGET = 0.95;

const say = (line = '') => console.log(line);

interface Window {
  ok: number;
  other: number;
}

/** Turns autovacuum on for the run when it is off (see the module comment); resets it at clean-up. */
async function autovacuumOn(sql: postgres.Sql): Promise<void> {
  const [row] = await sql<{ on: string }[]>`select current_setting('autovacuum') as on`;
  if (row!.on === 'on' || AUTOVACUUM_AS_IS) return;
  await sql.unsafe('ALTER SYSTEM SET autovacuum = on');
  await sql.unsafe('SELECT pg_reload_conf()');
  log('autovacuum was off: ALTER SYSTEM SET autovacuum = on for the soak');
  onCleanup(async () => {
    await sql.unsafe('ALTER SYSTEM RESET autovacuum');
    await sql.unsafe('SELECT pg_reload_conf()');
    log('ALTER SYSTEM RESET autovacuum');
  });
  say('autovacuum was off on this server: turned on for the soak (ALTER SYSTEM), reset at the end.');
  // The reload reaches the backends at their next command; wait until this one sees it.
  for (let i = 0; i < 50; i += 1) {
    const [now] = await sql<{ on: string }[]>`select current_setting('autovacuum') as on`;
    if (now!.on === 'on') return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('autovacuum is still off after ALTER SYSTEM and a reload');
}

async function main(): Promise<void> {
  requireBuiltApi();
  const { connections, warmupSeconds } = loadSettings();
  say(`# MarginCMS soak (${SERVER}): ${fmt(SECONDS)} s of mixed load (70% get, 20% list, 10% create), ${connections} connections`);
  say(`Server output: ${logFile}`);

  const db = await createScratchDatabase(serverUrl);
  await autovacuumOn(db.sql);
  const pgSettings = await postgresSettings(db.sql);
  say(`PostgreSQL: ${pgSettings}`);
  await migrate(db.url);
  const credentials = await createUser(db.url);
  const env = postgresEnv(db.url, randomBytes(48).toString('base64'));

  const seeder = await startServer('api', env);
  const token = await login(seeder.baseUrl, credentials);
  const ids = await seedThroughApi(seeder.baseUrl, token, POSTS);
  await seeder.stop();
  await db.sql.unsafe('VACUUM (ANALYZE)');
  const postsBefore = await countPosts(db.sql);
  say(`Seeded ${fmt(POSTS)} posts through the API.`);

  const api = await startServer(SERVER, env);
  const target = { baseUrl: api.baseUrl, token, ids, deepCursor: '', slugs: [] };
  await startSoak(target, connections, warmupSeconds, () => undefined).done;
  say(`Warmed up for ${warmupSeconds} s; measuring.`);
  const windows: Window[] = Array.from({ length: Math.ceil(SECONDS / WINDOW) }, () => ({ ok: 0, other: 0 }));
  const rss: number[] = [];
  const sampleRss = () => {
    const v = rssMiB(api.pid);
    if (v !== null) rss.push(v);
  };
  try {
    const t0 = performance.now();
    sampleRss();
    const sampler = setInterval(sampleRss, RSS_EVERY_MS);
    const run = startSoak(target, connections, SECONDS, (status) => {
      const w = windows[Math.min(windows.length - 1, Math.floor((performance.now() - t0) / 1000 / WINDOW))]!;
      if (status >= 200 && status < 300) w.ok += 1;
      else w.other += 1;
    });
    let shown = 0;
    const reporter = setInterval(() => {
      const done = Math.floor((performance.now() - t0) / 1000 / WINDOW);
      for (; shown < Math.min(done, windows.length); shown += 1) {
        say(`  window ${shown + 1}: ${fmt(windows[shown]!.ok / WINDOW)} req/s, ${windows[shown]!.other} non-2xx`);
      }
    }, 1000);
    const result = await run.done;
    clearInterval(sampler);
    clearInterval(reporter);
    sampleRss();

    // The last window may be partial when SECONDS is not a multiple of WINDOW.
    const lastLength = SECONDS - (windows.length - 1) * WINDOW;
    const perSecond = windows.map((w, i) => w.ok / (i === windows.length - 1 ? lastLength : WINDOW));
    const postsAfter = await countPosts(db.sql);
    const file = join(resultsDir, `${stamp}-soak.json`);
    writeFileSync(
      file,
      JSON.stringify({ pgSettings, seconds: SECONDS, window: WINDOW, windows, perSecond, rss, result, postsBefore, postsAfter }, null, 2),
    );

    say();
    say(
      table(
        ['window', '2xx req/s', 'non-2xx'],
        windows.map((w, i) => [`${fmt(i * WINDOW)}–${fmt(Math.min(SECONDS, (i + 1) * WINDOW))} s`, fmt(perSecond[i]), String(w.other)]),
      ),
    );
    say();
    const ratio = perSecond[perSecond.length - 1]! / perSecond[0]!;
    say(
      `last/first window req/s: **${fmt(ratio, 2)}** — target ≥ ${fmt(TARGET, 2)} (#32, autovacuum ` +
        `${pgSettings.includes('autovacuum=on') ? 'on' : 'OFF: not judged'}): ${ratio >= TARGET ? 'met' : 'NOT met'}`,
    );
    const fit = linearFit(perSecond);
    say(
      `least-squares line through every window: ${fmt(fit.first)} → ${fmt(fit.last)} req/s (ratio ${fmt(fit.last / fit.first, 2)}); ` +
        `window-to-window spread around it ±${fmt((100 * fit.residualSd) / fit.mean, 1)} % (1 SD)`,
    );
    say(
      `RSS MiB (every ${RSS_EVERY_MS / 1000} s): first ${fmt(rss[0], 1)}, max ${fmt(Math.max(...rss), 1)}, last ${fmt(rss[rss.length - 1], 1)}`,
    );
    say(
      `errors ${result.errors}, timeouts ${result.timeouts}; posts ${fmt(postsBefore)} → ${fmt(postsAfter)} ` +
        '(creates grow the table, so list pages count more rows as the run goes on)',
    );
    say(`Raw figures: ${file}`);
    if (result.ok === 0) throw new Error('no successful request');
  } finally {
    await api.stop();
  }
}

runMain('bench-soak', main);
