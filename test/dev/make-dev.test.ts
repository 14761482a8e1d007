/**
 * `make dev` (scripts/dev.mjs) as a developer meets it: one command starts the server in watch
 * mode, the spec watcher and the Prism mock with prefixed output; a change under src/ restarts the
 * server; Ctrl-C (SIGINT to the process group, as a terminal sends it) stops all three.
 */
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { freePort } from '../support/ports.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = new URL('../..', import.meta.url).pathname;

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs: number, output: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; output so far:\n${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const answers = (url: string) =>
  fetch(url).then(
    (r) => r.status === 200,
    () => false,
  );

const work = mkdtempSync(join(tmpdir(), 'margin-dev-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('make dev', () => {
  it('runs the server, the spec watcher and the mock with prefixed output, restarts the server on a change under src/, and Ctrl-C stops all', async () => {
    const [port, mockPort] = [await freePort(), await freePort()];
    const child = spawn('node', ['scripts/dev.mjs'], {
      cwd: ROOT,
      detached: true, // its own process group, as a terminal would have it
      env: {
        ...process.env,
        DATABASE_URL: '',
        DATA_DIR: join(work, 'data'),
        PORT: String(port),
        MOCK_PORT: String(mockPort),
        ADMIN_EMAIL: 'dev@example.com',
        ADMIN_PASSWORD: 'dev-password-long-enough',
        FORCE_COLOR: '0',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const out = () => output;
    const api = `http://127.0.0.1:${port}/api/v1/healthz`;
    const mock = `http://127.0.0.1:${mockPort}/healthz`;
    const listening = () => output.split('\n').filter((line) => line.startsWith('[api]') && line.includes('MarginCMS listening')).length;
    try {
      await until('the server', () => answers(api), 90_000, out);
      await until('the mock', () => answers(mock), 60_000, out);
      await until('the spec watcher', () => /^\[spec\] .*generated\/ is up to date/m.test(output), 30_000, out);
      expect(output).toMatch(/^\[api\] /m);
      expect(output).toMatch(/^\[mock\] /m);
      await until('the listening line (log lines are written in batches, at most 0.5 s late)', () => listening() === 1, 5_000, out);

      // A save under src/ (its modification time is enough for the watcher) restarts the server.
      const file = join(ROOT, 'src/domain/slug.ts');
      const now = new Date();
      utimesSync(file, now, now);
      await until('the restart', () => listening() === 2, 60_000, out);
      await until('the server after the restart', () => answers(api), 60_000, out);
    } finally {
      process.kill(-child.pid!, 'SIGINT');
    }
    const code = await Promise.race([exited, new Promise((resolve) => setTimeout(() => resolve('timeout'), 20_000))]);
    expect(code, output).toBe(0);
    expect(await answers(api)).toBe(false);
    expect(await answers(mock)).toBe(false);
  }, 240_000);
});

describe('the spec watcher of make dev', () => {
  /** A copy of the spec, the scripts and generated/ (node_modules linked), so the test edits no file of the checkout. */
  function copyOfTheProject(): string {
    const root = mkdtempSync(join(work, 'project-'));
    for (const folder of ['openapi', 'scripts', 'generated']) cpSync(join(ROOT, folder), join(root, folder), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules'), join(root, 'node_modules'));
    return root;
  }

  /** Saves as editors do: a new file renamed over the old one. */
  function save(file: string, text: string): void {
    writeFileSync(`${file}.tmp`, text);
    renameSync(`${file}.tmp`, file);
  }

  it('keeps generated/ as it was while the spec fails its lint, and regenerates it once the spec is fixed', async () => {
    const root = copyOfTheProject();
    const child = spawn('node', [join(root, 'scripts/watch-spec.mjs')], {
      cwd: root,
      env: { ...process.env, FORCE_COLOR: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const out = () => output;
    const count = (text: string) => output.split(text).length - 1;
    const bundle = join(root, 'generated/openapi.json');
    const spec = join(root, 'openapi/paths/healthz.yaml');
    const original = readFileSync(spec, 'utf8');
    try {
      await until('the first generation', () => count('generated/ is up to date') === 1, 60_000, out);
      const before = readFileSync(bundle, 'utf8');

      save(spec, original.replace('operationId: getHealth', 'operationId: getHealth\n  bogusKey: 1'));
      await until('the failed lint', () => count('spec lint failed') === 1, 60_000, out);
      expect(output).toContain('Property `bogusKey` is not expected here');
      expect(readFileSync(bundle, 'utf8')).toBe(before);

      save(spec, original.replace('summary: Liveness', 'summary: Liveness probe'));
      await until('the regeneration', () => count('generated/ is up to date') === 2, 60_000, out);
      const after = JSON.parse(readFileSync(bundle, 'utf8')) as { paths: Record<string, { get: { summary: string } }> };
      expect(after.paths['/healthz']!.get.summary).toBe('Liveness probe');
    } finally {
      child.kill('SIGINT');
    }
  }, 180_000);
});
