/**
 * The first start as a person meets it: the built server (dist/main.js) on an empty data directory
 * (embedded PGlite), its standard output a terminal (util-linux's `script` gives it a pseudo-terminal),
 * prints a generated admin password; signing in to the admin app with that printed password in
 * headless Chromium shows the posts list. Skipped without Chromium, `script` or a built dist/, except in CI.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumPath, launchChromium } from '../support/chromium.js';
import { watchPage } from './harness.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const MAIN = join(ROOT, 'dist/main.js');
const executable = chromiumPath('test/admin/first-start.browser.test.ts');
/** Whether `what` is here; in CI its absence is a failure, never a skip (as a missing browser is). */
function present(found: boolean, what: string): boolean {
  if (!found && process.env.CI === 'true') throw new Error(`test/admin/first-start.browser.test.ts needs ${what} in CI`);
  if (!found) console.warn(`test/admin/first-start.browser.test.ts skipped: no ${what}`);
  return found;
}
const hasScript = present(spawnSync('script', ['--version']).status === 0, '`script` (util-linux)');
const hasMain = present(existsSync(MAIN), 'dist/main.js (make build)');

/** What the first start printed on its terminal: the password and the admin app's address. */
interface Printed {
  password: string;
  adminUrl: string;
}

/** A port nothing listens on now (the server prints the port it was given, so not 0). */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** Starts dist/main.js under a pseudo-terminal; resolves once it has printed the sign-in note. */
function firstStart(dataDir: string, port: number): { child: ChildProcess; printed: Promise<Printed> } {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', NODE_ENV: 'production' };
  for (const name of ['ADMIN_EMAIL', 'ADMIN_PASSWORD', 'DATABASE_URL']) delete env[name];
  const child = spawn('script', ['-qfc', `node ${MAIN}`, '/dev/null'], { cwd: ROOT, env, detached: true, stdio: 'pipe' });
  const printed = new Promise<Printed>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8').replaceAll('\r', '');
      const password = /^ {2}password: (\S+)$/m.exec(out)?.[1];
      const adminUrl = /^Sign in to the admin app at (\S+), /m.exec(out)?.[1];
      if (password !== undefined && adminUrl !== undefined) resolve({ password, adminUrl });
    });
    // The output is not shown: it holds the password.
    child.on('exit', (code) => reject(new Error(`dist/main.js exited (${code}) before printing the sign-in note`)));
  });
  return { child, printed };
}

describe.skipIf(executable === null || !hasScript || !hasMain)('the first start of the built server', () => {
  let dataDir: string;
  let server: ReturnType<typeof firstStart>;
  let browser: Browser;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'margin-first-start-'));
    server = firstStart(join(dataDir, 'data'), await freePort());
    browser = await launchChromium(executable ?? '');
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    // The whole group `script` leads (script and the server under it), by the id this file started.
    if (server?.child.pid !== undefined && server.child.exitCode === null) {
      const exited = new Promise((resolve) => server.child.once('exit', resolve));
      process.kill(-server.child.pid, 'SIGTERM');
      await exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  it('prints a generated password on the terminal, and signing in with it in the admin app shows the posts list', async () => {
    const { password, adminUrl } = await server.printed;
    expect(password.length).toBeGreaterThanOrEqual(20);
    const page = await browser.newPage();
    const errors = watchPage(page, new URL(adminUrl).origin);
    await page.goto(adminUrl);
    await page.getByRole('heading', { level: 1, name: 'Sign in to MarginCMS' }).waitFor();
    await page.getByLabel('Email').fill('admin@example.com');
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Posts' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/admin/posts');
    expect(errors).toEqual([]);
  }, 120_000);
});
