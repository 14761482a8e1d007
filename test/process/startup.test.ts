/**
 * Start-up as a person meets it (`node --import tsx src/main.ts` as a process, in a working
 * directory of its own, where embedded PGlite keeps `.data`): the errors say what failed and what
 * to do, and the first start's generated admin password goes to a 0600 file, never into output
 * that is not a terminal. `.env` and readiness on PostgreSQL: startup.postgres.test.ts.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../support/ports.js';
import { firstHealthz, spawnServer, stopServers } from '../support/server-process.js';

const folders: string[] = [];
const blockers: Server[] = [];
afterEach(async () => {
  stopServers();
  for (const blocker of blockers.splice(0)) await new Promise((resolve) => blocker.close(resolve));
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** An empty working directory: the server's `.env` and default DATA_DIR (`.data`) are looked for there. */
function workDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'margin-startup-'));
  folders.push(dir);
  return dir;
}

/** A port something else listens on. */
async function takenPort(): Promise<number> {
  const blocker = createServer();
  blockers.push(blocker);
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  return (blocker.address() as { port: number }).port;
}

const QUIET = { HOUSEKEEPING_INTERVAL_SECONDS: '0', PUBLISH_INTERVAL_SECONDS: '0' };
/** A first PGlite start (initdb and every migration, in WebAssembly) takes half a minute on a busy machine. */
const PGLITE_START_SECONDS = 100;

describe('starting the server', () => {
  it(
    'on a port in use exits 1 naming the port and PORT=, with no stack, having created no admin',
    async () => {
      const cwd = workDir();
      const port = await takenPort();
      const server = spawnServer({ ...QUIET, HOST: '127.0.0.1', PORT: String(port) }, { cwd });
      expect(await server.exited).toBe(1);
      const output = server.output();
      expect(output).toContain(`MarginCMS could not start: port ${port} on 127.0.0.1 is already in use (EADDRINUSE)`);
      expect(output).toContain('choose another port with PORT=');
      expect(output).not.toMatch(/Unhandled 'error' event|\n\s+at /);
      expect(output).not.toContain('created the admin user');
      // The first admin's generated password is written before the user is created.
      expect(existsSync(join(cwd, '.data', 'admin-password'))).toBe(false);
    },
    PGLITE_START_SECONDS * 1000,
  );

  it('on an unreachable DATABASE_URL exits 1 naming host, port and errno, with the URL masked', async () => {
    const closed = await freePort();
    const url = `postgres://margin:s3cret-pw@127.0.0.1:${closed}/margin`;
    const server = spawnServer(
      { ...QUIET, DATABASE_URL: url, JWT_SECRET: 'j'.repeat(40), PORT: String(await freePort()) },
      { cwd: workDir() },
    );
    expect(await server.exited).toBe(1);
    const output = server.output();
    expect(output).toContain(`MarginCMS could not start: cannot reach PostgreSQL at 127.0.0.1:${closed} (ECONNREFUSED)`);
    expect(output).toContain('is PostgreSQL running');
    expect(output).toContain(`DATABASE_URL is postgres://margin:***@127.0.0.1:${closed}/margin`);
    expect(output).not.toContain('s3cret-pw');
  });

  it('on an unsupported Node says so first, in plain words, and loads nothing else', async () => {
    const pretend18 = `data:text/javascript,Object.defineProperty(process.versions,"node",{value:"18.19.1"})`;
    const server = spawnServer({ ...QUIET, PORT: String(await freePort()) }, { cwd: workDir(), nodeArgs: ['--import', pretend18] });
    expect(await server.exited).toBe(1);
    const output = server.output();
    expect(output).toMatch(/^MarginCMS cannot run on Node\.js 18\.19\.1: it needs Node\.js 20\.19\+/);
    expect(output).toContain('Install a supported Node.js');
    expect(output).not.toMatch(/SyntaxError|\n\s+at |opening embedded PGlite/);
  });

  it(
    'writes the generated admin password to DATA_DIR/admin-password (0600), names the file and prints no password when output is not a terminal',
    async () => {
      const cwd = workDir();
      const port = await freePort();
      const server = spawnServer({ ...QUIET, HOST: '127.0.0.1', PORT: String(port) }, { cwd });
      const base = `http://127.0.0.1:${port}/api/v1`;
      await firstHealthz(server, base, PGLITE_START_SECONDS);
      const file = join(cwd, '.data', 'admin-password');
      await expect.poll(() => server.output(), { timeout: 3000 }).toContain(`"passwordFile":"${file}"`);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const password = readFileSync(file, 'utf8').trim();
      expect(password.length).toBeGreaterThanOrEqual(20);
      expect(server.output()).not.toContain(password);
      const login = await fetch(`${base}/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'admin@example.com', password }),
      });
      expect(login.status).toBe(200);
    },
    PGLITE_START_SECONDS * 1000 + 10_000,
  );
});
