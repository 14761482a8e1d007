/**
 * One process per embedded data folder, as processes (`node --import tsx src/main.ts` on a
 * DATA_DIR, no DATABASE_URL): a second server on the same folder refuses while the first keeps
 * serving; `make user`'s script refuses and writes nothing; a server killed with SIGKILL leaves a
 * lock the next start takes over; a clean stop releases it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { LOCK_FILE_NAME } from '../../src/adapters/drizzle/driver/data-dir-lock.js';
import { createLogger } from '../../src/log.js';
import { openStore } from '../../src/open-store.js';
import { freePort } from '../support/ports.js';

const ROOT = new URL('../..', import.meta.url).pathname;
const ADMIN = { email: 'owner@example.com', password: 'Vq7#mZ2p!Lr9wT4k-xB8' };
const ADA = { email: 'ada@example.com', password: 'Kx4!pR8#wLm2-Zq9vT7b' };

interface Proc {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

const children: ChildProcess[] = [];
const directories: string[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const dir of directories.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'margin-lock-process-'));
  directories.push(dir);
  return join(dir, 'data');
}

/** `node --import tsx <entry> …args` in the repository, on the embedded database in `dir`. */
function run(entry: string, args: string[], dir: string, env: Record<string, string> = {}): Proc {
  const child = spawn(process.execPath, ['--import', 'tsx', entry, ...args], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: '', DATA_DIR: dir, ADMIN_PASSWORD: '', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

interface Server extends Proc {
  base: string;
}

/** Spawns the server on `dir` (its first start creates ADMIN) without waiting for it. */
async function spawnServer(dir: string): Promise<Server> {
  const port = await freePort();
  const proc = run('src/main.ts', [], dir, {
    HOST: '127.0.0.1',
    PORT: String(port),
    JWT_SECRET: 'data-dir-lock-secret-data-dir-lock-secret',
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
    HOUSEKEEPING_INTERVAL_SECONDS: '0',
    SHUTDOWN_DELAY_SECONDS: '0',
  });
  return { ...proc, base: `http://127.0.0.1:${port}/api/v1` };
}

/** Starts the server on `dir` and waits for its first /healthz answer and, on a first start, for ADMIN to be created. */
async function startServer(dir: string, { firstStart = true } = {}): Promise<Server> {
  const server = await spawnServer(dir);
  const up = async () =>
    (await fetch(`${server.base}/healthz`).then(
      (r) => r.ok,
      () => false,
    )) &&
    (!firstStart || /created the admin user/.test(server.output()));
  for (let i = 0; !(await up()); i += 1) {
    if (server.child.exitCode !== null) throw new Error(`the server exited:\n${server.output()}`);
    if (i > 1200) throw new Error(`not up within 120 s:\n${server.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return server;
}

async function loginStatus(server: Server, account: { email: string; password: string }): Promise<number> {
  const response = await fetch(`${server.base}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(account),
  });
  await response.body?.cancel();
  return response.status;
}

const lockPid = (dir: string): number => (JSON.parse(readFileSync(join(dir, LOCK_FILE_NAME), 'utf8')) as { pid: number }).pid;

describe('one process per embedded data folder', { timeout: 300_000 }, () => {
  it('refuses a second server on the same DATA_DIR, naming the first one’s PID, exit 1, while the first keeps serving', async () => {
    const dir = dataDir();
    const first = await startServer(dir);
    const second = await spawnServer(dir);
    // Without the lock, the second server would open the folder too and go on running.
    expect(await Promise.race([second.exited, sleep(90_000).then(() => 'still running')])).toBe(1);
    expect(second.output()).toContain(`in use by MarginCMS process PID ${first.child.pid}`);
    expect(second.output()).toContain(`kill ${first.child.pid}`);
    expect(second.output()).toContain('DATABASE_URL');
    expect(second.output()).not.toContain('listening');
    expect(first.child.exitCode).toBeNull();
    expect(await loginStatus(first, ADMIN)).toBe(200);
    expect(lockPid(dir)).toBe(first.child.pid);
  });

  it('refuses `make user` while the server runs, writing nothing: the user is absent after a restart', async () => {
    const dir = dataDir();
    const server = await startServer(dir);
    const user = run('scripts/create-user.ts', ['--email', ADA.email, '--name', 'Ada Lovelace'], dir, { ADMIN_PASSWORD: ADA.password });
    expect(await user.exited).not.toBe(0);
    expect(user.output()).toContain(`in use by MarginCMS process PID ${server.child.pid}`);
    expect(user.output()).not.toContain('created');
    expect(await loginStatus(server, ADA)).toBe(401);

    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    // A clean stop releases the folder.
    expect(existsSync(join(dir, LOCK_FILE_NAME))).toBe(false);
    const store = await openStore({ kind: 'pglite', dataDir: dir }, createLogger('silent'));
    try {
      expect(await store.users.getByEmail(ADA.email)).toBeNull();
      expect(await store.users.getByEmail(ADMIN.email)).not.toBeNull();
    } finally {
      await store.close();
    }
  });

  it('starts again after a SIGKILL: the lock the killed server left is taken over, its data kept', async () => {
    const dir = dataDir();
    const killed = await startServer(dir);
    expect(await loginStatus(killed, ADMIN)).toBe(200);
    killed.child.kill('SIGKILL');
    await killed.exited;
    expect(lockPid(dir)).toBe(killed.child.pid);

    const next = await startServer(dir, { firstStart: false });
    expect(lockPid(dir)).toBe(next.child.pid);
    expect(await loginStatus(next, ADMIN)).toBe(200);
  });
});
