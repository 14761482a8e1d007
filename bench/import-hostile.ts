/**
 * `make bench-import`: what a hostile or heavy import archive costs the built server (issue #40).
 *
 * On a fresh server process each, on a scratch PostgreSQL database:
 * - a 33 KB zip whose manifest inflates to 32 MiB of `{}` entries, sent as a dry run: the answer,
 *   its time, whether the process is still alive after it, the worst /healthz latency meanwhile
 *   and the server's peak RSS;
 * - BENCH_IMPORT_PNGS (30) PNGs of BENCH_IMPORT_PNG_SIDE² (7000², 49 MP: under the default pixel
 *   limit) pixels of one colour each (a few KB each) that one post shows: the dry run's and the
 *   apply's time, the server's CPU and peak RSS, and what the report says of the images.
 */
import { randomBytes } from 'node:crypto';
import { zipSync, type Zippable } from 'fflate';
import sharp from 'sharp';
import { login } from './client.js';
import { createScratchDatabase, createUser, migrate, type Credentials } from './database.js';
import { envNumber, serverUrl } from './env.js';
import { logFile, runMain } from './lifecycle.js';
import { cpuMicros } from './measure.js';
import { fmt, table } from './report.js';
import { postgresEnv, requireBuiltApi, startServer, type RunningServer } from './servers.js';

const PNGS = Math.floor(envNumber('BENCH_IMPORT_PNGS', 30));
const SIDE = Math.floor(envNumber('BENCH_IMPORT_PNG_SIDE', 7000));
const MiB = 1024 * 1024;

const say = (line = '') => console.log(line);
const encoder = new TextEncoder();
const post = (matter: string, body: string) => encoder.encode(`---\n${matter}\n---\n${body}\n`);

/** The 33 KB zip: a MarginCMS manifest whose `files` are 32 MiB of `{}`, and one post. */
function emptyEntriesManifest(): Uint8Array {
  const head = '{"format":"margincms-export","version":1,"files":[';
  const count = Math.floor((32 * MiB - head.length - 2) / 3);
  const manifest = `${head}${'{},'.repeat(count - 1)}{}]}`;
  return zipSync({ 'manifest.json': encoder.encode(manifest), 'posts/good.md': post('title: A good post', 'Body.') }, { level: 9 });
}

/** PNGs of SIDE² pixels, each one colour of its own (distinct bytes), and one post that shows them all. */
async function largePngs(): Promise<Uint8Array> {
  const files: Zippable = {};
  const links: string[] = [];
  for (let i = 0; i < PNGS; i++) {
    const png = await sharp({ create: { width: SIDE, height: SIDE, channels: 3, background: { r: i, g: 255 - i, b: 128 } } })
      .png({ compressionLevel: 9, palette: true })
      .toBuffer();
    files[`posts/images/large-${i}.png`] = new Uint8Array(png);
    links.push(`![Large ${i}](images/large-${i}.png)`);
  }
  files['posts/gallery.md'] = post('title: A gallery', links.join('\n\n'));
  return zipSync(files, { level: 0 });
}

interface Figures {
  status: number | string;
  seconds: number;
  cpuSeconds: number | null;
  worstHealthzMs: number;
  alive: boolean;
  peakRssMiB: number | null;
  answer: string;
}

/** Sends the archive while polling /healthz every 20 ms; the figures of the request and the process after it. */
async function send(server: RunningServer, token: string, zip: Uint8Array, mode: 'dry-run' | 'apply'): Promise<Figures> {
  const cpuBefore = cpuMicros(server.pid);
  const t0 = performance.now();
  let done = false;
  const request = fetch(`${server.baseUrl}/import?mode=${mode}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/zip' },
    body: zip,
  })
    .then(async (res) => ({ status: res.status as number | string, body: await res.text() }))
    .catch((error: unknown) => ({ status: `no answer (${(error as Error).message})`, body: '' }))
    .finally(() => (done = true));
  let worst = 0;
  while (!done) {
    const started = performance.now();
    const ok = await fetch(`${server.baseUrl}/healthz`).then(
      async (res) => (await res.arrayBuffer(), res.ok),
      () => false,
    );
    if (!ok) break;
    worst = Math.max(worst, performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const { status, body } = await request;
  const seconds = (performance.now() - t0) / 1000;
  const cpuAfter = cpuMicros(server.pid);
  const alive = await fetch(`${server.baseUrl}/healthz`).then(
    (res) => res.ok,
    () => false,
  );
  return {
    status,
    seconds,
    cpuSeconds: cpuBefore === null || cpuAfter === null ? null : (cpuAfter - cpuBefore) / 1e6,
    worstHealthzMs: worst,
    alive,
    peakRssMiB: server.peakRssMiB(),
    answer: summary(body),
  };
}

/** What an answer says, in a line: a problem's type and detail, or a report's counts and its images' outcomes. */
function summary(body: string): string {
  let parsed: { type?: string; detail?: string; counts?: unknown; items?: { path: string; action: string; reason: string | null }[] };
  try {
    parsed = JSON.parse(body) as typeof parsed;
  } catch {
    return body.slice(0, 120);
  }
  if (parsed.items === undefined) return `${parsed.type?.split('/').at(-1)}: ${parsed.detail?.slice(0, 140)}`;
  const images = parsed.items.filter((item) => item.path.endsWith('.png'));
  const outcomes = new Map<string, number>();
  for (const item of images)
    outcomes.set(
      `${item.action}${item.reason ? ` ${item.reason}` : ''}`,
      (outcomes.get(`${item.action}${item.reason ? ` ${item.reason}` : ''}`) ?? 0) + 1,
    );
  return `${JSON.stringify(parsed.counts)}; images: ${[...outcomes].map(([outcome, n]) => `${n} ${outcome}`).join(', ')}`;
}

async function onFreshServer(env: Record<string, string>, user: Credentials, zip: Uint8Array, mode: 'dry-run' | 'apply'): Promise<Figures> {
  const server = await startServer('api', env);
  try {
    return await send(server, await login(server.baseUrl, user), zip, mode);
  } finally {
    await server.stop();
  }
}

async function main(): Promise<void> {
  say(`# Hostile and heavy import archives (${requireBuiltApi()})`);
  say();
  const db = await createScratchDatabase(serverUrl);
  await migrate(db.url);
  const user = await createUser(db.url);
  const env = postgresEnv(db.url, randomBytes(48).toString('base64'));

  const manifestZip = emptyEntriesManifest();
  const pngZip = await largePngs();
  const rows: [string, Figures][] = [];
  rows.push([
    `manifest of 32 MiB of {} (${fmt(manifestZip.byteLength / 1024)} KB zip), dry run`,
    await onFreshServer(env, user, manifestZip, 'dry-run'),
  ]);
  const label = `${PNGS} PNGs of ${SIDE}² (${fmt(pngZip.byteLength / 1024)} KB zip)`;
  rows.push([`${label}, dry run`, await onFreshServer(env, user, pngZip, 'dry-run')]);
  rows.push([`${label}, apply`, await onFreshServer(env, user, pngZip, 'apply')]);
  say(
    table(
      ['archive', 'status', 's', 'server CPU s', 'worst /healthz ms', 'alive after', 'peak RSS MiB'],
      rows.map(([name, f]) => [
        name,
        String(f.status),
        fmt(f.seconds, 1),
        fmt(f.cpuSeconds, 1),
        fmt(f.worstHealthzMs),
        f.alive ? 'yes' : 'NO',
        fmt(f.peakRssMiB),
      ]),
    ),
  );
  say();
  for (const [name, f] of rows) say(`- ${name}: ${f.answer}`);
  say();
  say(`Server output: ${logFile}`);
}

runMain('bench-import', main);
