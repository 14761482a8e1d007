/**
 * The server as a child process (`node --import tsx src/main.ts`, on the Node running the tests)
 * on a PostgreSQL database, for tests of what only a process shows. Call `stopServers()` in
 * afterEach: it kills what is still running.
 *
 * The child is the server itself, not the `tsx` launcher: a SIGKILL to the launcher would leave
 * its server orphaned, still running its jobs against a database the test has dropped.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { createTestDatabase, type TestDatabase } from './databases.js';
import { createRequire } from 'node:module';
import { ENV_VARIABLES } from '../../src/config.js';
import { freePort } from './ports.js';

const ROOT = new URL('../..', import.meta.url).pathname;
/** tsx's loader by path: `--import tsx` would be resolved from the child's working directory. */
const TSX = createRequire(import.meta.url).resolve('tsx');

export interface Started {
  child: ChildProcess;
  base: string;
  port: number;
  output: () => string;
  exited: Promise<number | null>;
}

const running: ChildProcess[] = [];

/** Kills every server these tests started that is still running. */
export function stopServers(): void {
  for (const child of running.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
}

export interface Spawned {
  child: ChildProcess;
  /** Standard output and standard error so far, interleaved. */
  output: () => string;
  exited: Promise<number | null>;
}

export interface SpawnOptions {
  cwd?: string;
  nodeArgs?: string[];
  /** Run the build (`dist/main.js`, `make build` first) instead of the source through tsx. */
  built?: boolean;
}

/**
 * Runs `src/main.ts` as `node --import tsx` does (or `dist/main.js` when `built`), in `cwd` (where
 * it looks for `.env`, and where the default DATA_DIR is), with `env` over this environment
 * stripped of every variable the server reads. `nodeArgs` go before the entry (e.g. another
 * `--import`). Does not wait for it.
 */
export function spawnServer(env: Record<string, string>, options: SpawnOptions = {}): Spawned {
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !(name in ENV_VARIABLES)));
  const nodeArgs = options.nodeArgs ?? [];
  const built = `${ROOT}dist/main.js`;
  if (options.built && !existsSync(built)) throw new Error(`${built} is missing: run make build first`);
  const args = options.built ? [...nodeArgs, built] : ['--import', TSX, ...nodeArgs, `${ROOT}src/main.ts`];
  const child = spawn(process.execPath, args, {
    cwd: options.cwd ?? ROOT,
    env: { ...inherited, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.push(child);
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

/** Waits for the first 200 from `base`/healthz of `server`; throws with its output when it exits or `seconds` pass. */
export async function firstHealthz(server: Spawned, base: string, seconds = 30): Promise<void> {
  for (let i = 0; ; i += 1) {
    if (server.child.exitCode !== null) throw new Error(`the server exited:\n${server.output()}`);
    const ok = await fetch(`${base}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    if (i > seconds * 10) throw new Error(`no /healthz answer within ${seconds} s:\n${server.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * The built server (`dist/main.js`) as `make run` serves it, on embedded PGlite in a data folder
 * of its own whose first admin is `admin`, its periodic jobs off unless `env` turns them on;
 * waits for its first /healthz (a first PGlite start takes half a minute on a busy machine).
 * `stop()` kills it and removes the folder.
 */
export async function startBuiltEmbedded(
  admin: { email: string; password: string },
  env: Record<string, string> = {},
  seconds = 100,
): Promise<{ origin: string; stop: () => void }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'margin-built-'));
  const port = await freePort();
  const server = spawnServer(
    {
      DATA_DIR: dataDir,
      HOST: '127.0.0.1',
      PORT: String(port),
      ADMIN_EMAIL: admin.email,
      ADMIN_PASSWORD: admin.password,
      HOUSEKEEPING_INTERVAL_SECONDS: '0',
      PUBLISH_INTERVAL_SECONDS: '0',
      WEBHOOK_POLL_MS: '0',
      ...env,
    },
    { built: true },
  );
  const origin = `http://127.0.0.1:${port}`;
  const stop = () => {
    if (server.child.exitCode === null) server.child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await firstHealthz(server, `${origin}/api/v1`, seconds);
  } catch (error) {
    stop();
    throw error;
  }
  return { origin, stop };
}

/**
 * Scratch databases for the enclosing file's process tests: the function returned makes one on
 * `serverUrl` (migrated unless told otherwise); after each test the servers these tests started
 * are killed and the databases dropped.
 */
export function useScratchDatabases(serverUrl: string): (options?: Parameters<typeof createTestDatabase>[1]) => Promise<TestDatabase> {
  const databases: TestDatabase[] = [];
  afterEach(async () => {
    stopServers();
    for (const db of databases.splice(0)) await db.drop();
  });
  return async (options) => {
    const db = await createTestDatabase(serverUrl, options);
    databases.push(db);
    return db;
  };
}

/** Starts a server on `databaseUrl` and waits for its first /healthz answer. */
export async function startServer(databaseUrl: string, env: Record<string, string> = {}, options: SpawnOptions = {}): Promise<Started> {
  const port = await freePort();
  const server = spawnServer(
    {
      DATABASE_URL: databaseUrl,
      JWT_SECRET: 'lifecycle-secret-lifecycle-secret-lifecycle',
      HOST: '127.0.0.1',
      PORT: String(port),
      LOG_LEVEL: 'info',
      HOUSEKEEPING_INTERVAL_SECONDS: '0',
      ...env,
    },
    options,
  );
  const base = `http://127.0.0.1:${port}/api/v1`;
  await firstHealthz(server, base);
  return { ...server, base, port };
}

/** Creates (or resets) a user with `make user`'s script on `databaseUrl`, the password from ADMIN_PASSWORD. */
export async function createUser(databaseUrl: string, account: { email: string; password: string; name: string }): Promise<void> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/create-user.ts', '--email', account.email, '--name', account.name], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: databaseUrl, ADMIN_PASSWORD: account.password },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  if (code !== 0) throw new Error(`create-user exited ${String(code)}: ${output}`);
}

/** Logs in on the server at `base` and gives the access token; throws unless the login answers 200. */
export async function accessToken(base: string, email: string, password: string): Promise<string> {
  const response = await fetch(`${base}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  if (response.status !== 200) throw new Error(`login answered ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { accessToken: string }).accessToken;
}
