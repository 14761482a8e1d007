/** Starting and stopping the servers under test: the built API, the floor, the embedded API. */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { log, logFile, onCleanup } from './lifecycle.js';
import { peakRssMiB } from './measure.js';

export type ServerKind = 'api' | 'floor';

export interface RunningServer {
  kind: string;
  pid: number;
  baseUrl: string;
  port: number;
  /** Spawn to the first 200 from /api/v1/healthz. */
  startMs: number;
  /** VmHWM, read before stopping. */
  peakRssMiB(): number | null;
  stop(): Promise<void>;
}

/** The API of the checkout a server starts in (its `cwd`); always this checkout's floor. */
const ENTRY: Record<ServerKind, string> = { api: 'dist/main.js', floor: fileURLToPath(new URL('floor.mjs', import.meta.url)) };

/** Fails early, saying what to run, when the API has not been built. */
export function requireBuiltApi(): string {
  if (!existsSync(ENTRY.api)) throw new Error('dist/main.js is missing: run `make build` first');
  return `dist/main.js built ${statSync(ENTRY.api).mtime.toISOString()}`;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited(child);
  clearTimeout(timer);
}

async function waitHealthy(baseUrl: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode} before it was healthy; see ${logFile}`);
    try {
      const res = await fetch(`${baseUrl}/healthz`);
      await res.arrayBuffer();
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`server not healthy after ${timeoutMs} ms; see ${logFile}`);
}

/**
 * The malloc settings `make start` and `npm start` give the server (scripts/start-server.sh's
 * defaults, read from it, so that the two cannot drift), given here to every server the bench
 * starts, the floor's too. `BENCH_MALLOC=glibc` leaves glibc's own defaults.
 */
function launcherMalloc(cwd: string): Record<string, string> {
  const path = join(cwd, 'scripts/start-server.sh');
  if (process.env.BENCH_MALLOC === 'glibc' || !existsSync(path)) return {}; // an older commit's checkout (bench/ab.ts) has none
  const script = readFileSync(path, 'utf8');
  return Object.fromEntries([...script.matchAll(/^: "\$\{(MALLOC_\w+):=([^}]*)\}"$/gm)].map((m) => [m[1]!, m[2]!]));
}

/**
 * Starts `node <nodeArgs> <entry>` with exactly `env` (plus PATH, HOST, PORT and the launchers' malloc settings), output to the log
 * file, and waits for /healthz. The process is killed at exit if the caller has not stopped it.
 * `nodeArgs` is for profiling (`--cpu-prof`, which NODE_OPTIONS refuses). `cwd` is the checkout
 * whose build runs (another commit's, in bench/ab.ts); by default this one.
 */
export async function startServer(
  kind: ServerKind,
  env: Record<string, string>,
  label: string = kind,
  nodeArgs: readonly string[] = [],
  cwd: string = process.cwd(),
): Promise<RunningServer> {
  const port = await freePort();
  const out = openSync(logFile, 'a');
  log(`starting ${label} on port ${port}`);
  const t0 = performance.now();
  const child = spawn(process.execPath, [...nodeArgs, ENTRY[kind]], {
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: String(port), ...launcherMalloc(cwd), ...env },
    stdio: ['ignore', out, out],
    cwd,
  });
  closeSync(out);
  const forget = onCleanup(() => stopChild(child));
  const baseUrl = `http://127.0.0.1:${port}/api/v1`;
  try {
    await waitHealthy(baseUrl, child, 60_000);
  } catch (error) {
    await stopChild(child);
    forget();
    throw error;
  }
  const startMs = performance.now() - t0;
  const pid = child.pid!;
  return {
    kind: label,
    pid,
    port,
    baseUrl,
    startMs,
    peakRssMiB: () => peakRssMiB(pid),
    stop: async () => {
      await stopChild(child);
      forget();
    },
  };
}

/** The environment of the API and the floor on PostgreSQL. */
export function postgresEnv(databaseUrl: string, jwtSecret: string): Record<string, string> {
  return {
    DATABASE_URL: databaseUrl,
    JWT_SECRET: jwtSecret,
    LOG_LEVEL: 'warn',
    ACCESS_TOKEN_TTL_SECONDS: '7200',
    DB_POOL_SIZE: '10',
    // The load comes from one address; the floor has no limiter either. BENCH_CONTENT_RATE_LIMIT
    // (e.g. 1000000, above what a run sends) turns it on to measure what the counting costs.
    CONTENT_RATE_LIMIT_PER_MINUTE: process.env.BENCH_CONTENT_RATE_LIMIT ?? '0',
  };
}
