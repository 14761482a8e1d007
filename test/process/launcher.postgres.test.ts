/**
 * `make start` and `npm start` as an operator runs them: the built server's process gets the
 * malloc settings of scripts/start-server.sh (what libvips frees after an image goes back to the
 * system; bench/NOTES.md, "parallel uploads"), a value of the operator's own winning. Read from
 * the server process's own environment (/proc), found below the launcher by its command line.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { ENV_VARIABLES } from '../../src/config.js';
import { createTestDatabase, requirePostgres, testServerUrl, type TestDatabase } from '../support/databases.js';
import { freePort } from '../support/ports.js';

const ROOT = new URL('../..', import.meta.url).pathname;
const serverUrl = testServerUrl();
const available = await requirePostgres(serverUrl);

const launched: ChildProcess[] = [];
const databases: TestDatabase[] = [];
afterEach(async () => {
  // Each launcher leads a process group of its own: the group goes, the server below it included.
  for (const child of launched.splice(0)) if (child.exitCode === null) process.kill(-child.pid!, 'SIGKILL');
  for (const db of databases.splice(0)) await db.drop();
});

/** The pids below `pid` (children, their children, …) with their command lines. */
function descendants(pid: number): { pid: number; cmdline: string }[] {
  const parents = new Map<number, number[]>();
  for (const name of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      // The parent is the 4th field of stat, after the command name in parentheses (which may hold spaces).
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parents.set(ppid, [...(parents.get(ppid) ?? []), Number(name)]);
    } catch {
      // The process ended while the listing was read.
    }
  }
  const found: { pid: number; cmdline: string }[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    for (const child of parents.get(queue.shift()!) ?? []) {
      queue.push(child);
      found.push({ pid: child, cmdline: readFileSync(`/proc/${child}/cmdline`, 'utf8').replaceAll('\0', ' ') });
    }
  }
  return found;
}

/** Runs `command` in the checkout on a fresh database; once /healthz answers, the server process's environment. */
async function launch(command: string[], env: Record<string, string> = {}): Promise<Record<string, string>> {
  const db = await createTestDatabase(serverUrl);
  databases.push(db);
  const port = await freePort();
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !(name in ENV_VARIABLES) && !name.startsWith('MALLOC_')),
  );
  const child = spawn(command[0]!, command.slice(1), {
    cwd: ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...inherited,
      DATABASE_URL: db.url,
      JWT_SECRET: 'launcher-secret-launcher-secret-launcher-secret',
      HOST: '127.0.0.1',
      PORT: String(port),
      HOUSEKEEPING_INTERVAL_SECONDS: '0',
      ...env,
    },
  });
  launched.push(child);
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await expect
    .poll(
      () => {
        if (child.exitCode !== null) throw new Error(`${command.join(' ')} exited ${child.exitCode}:\n${output}`);
        return fetch(`http://127.0.0.1:${port}/api/v1/healthz`).then(
          (r) => r.status,
          () => 0,
        );
      },
      { timeout: 30_000, interval: 100 },
    )
    .toBe(200);
  const servers = descendants(child.pid!).filter((p) => p.cmdline.includes('dist/main.js') && p.cmdline.startsWith('node'));
  expect(servers, JSON.stringify(descendants(child.pid!))).toHaveLength(1);
  const environ = readFileSync(`/proc/${servers[0]!.pid}/environ`, 'utf8').split('\0');
  return Object.fromEntries(environ.filter(Boolean).map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]));
}

describe.skipIf(!available)('the launchers of the built server', () => {
  it('make start runs the server with two malloc arenas and blocks of 1 MiB or more mapped on their own', async () => {
    const environment = await launch(['make', '--no-print-directory', 'start']);
    expect(environment).toMatchObject({ MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '1048576' });
  });

  it("npm start does the same, and an operator's own value wins", async () => {
    const environment = await launch(['npm', 'start', '--silent'], { MALLOC_ARENA_MAX: '4' });
    expect(environment).toMatchObject({ MALLOC_ARENA_MAX: '4', MALLOC_MMAP_THRESHOLD_: '1048576' });
  });
});
