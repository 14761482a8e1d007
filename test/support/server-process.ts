/**
 * The server as a child process (`node --import tsx src/main.ts`, on the Node running the tests)
 * on a PostgreSQL database, for tests of what only a process shows. Call `stopServers()` in
 * afterEach: it kills what is still running.
 *
 * The child is the server itself, not the `tsx` launcher: a SIGKILL to the launcher would leave
 * its server orphaned, still running its jobs against a database the test has dropped.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { freePort } from './ports.js';

const ROOT = new URL('../..', import.meta.url).pathname;

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

/** Starts a server on `databaseUrl` and waits for its first /healthz answer. */
export async function startServer(databaseUrl: string, env: Record<string, string> = {}): Promise<Started> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      JWT_SECRET: 'lifecycle-secret-lifecycle-secret-lifecycle',
      HOST: '127.0.0.1',
      PORT: String(port),
      LOG_LEVEL: 'info',
      HOUSEKEEPING_INTERVAL_SECONDS: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.push(child);
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const base = `http://127.0.0.1:${port}/api/v1`;
  for (let i = 0; ; i += 1) {
    if (child.exitCode !== null) throw new Error(`the server exited:\n${output}`);
    const ok = await fetch(`${base}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (i > 300) throw new Error(`no /healthz answer within 30 s:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { child, base, port, output: () => output, exited };
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
