/**
 * `make dev` (scripts/dev.mjs) as a developer meets it: one command starts the server in watch
 * mode, the spec watcher, the Prism mock and the admin's Vite dev server with prefixed output; a
 * change under src/ restarts the server; Ctrl-C (SIGINT to the process group, as a terminal sends
 * it) stops all four. The admin's `/api` goes to the mock, or with ADMIN_API=server to the server.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
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
  it('runs the server, the spec watcher, the mock and the admin with prefixed output, restarts the server on a change under src/, and Ctrl-C stops all', async () => {
    const [port, mockPort, adminPort] = [await freePort(), await freePort(), await freePort()];
    const child = spawn('node', ['scripts/dev.mjs'], {
      cwd: ROOT,
      detached: true, // its own process group, as a terminal would have it
      env: {
        ...process.env,
        DATABASE_URL: '',
        DATA_DIR: join(work, 'data'),
        PORT: String(port),
        MOCK_PORT: String(mockPort),
        ADMIN_PORT: String(adminPort),
        ADMIN_API: '',
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
    const admin = `http://127.0.0.1:${adminPort}/admin/`;
    const listening = () => output.split('\n').filter((line) => line.startsWith('[api]') && line.includes('MarginCMS listening')).length;
    try {
      await until('the server', () => answers(api), 90_000, out);
      await until('the mock', () => answers(mock), 60_000, out);
      await until('the admin', () => answers(admin), 60_000, out);
      await until('the spec watcher', () => /^\[spec\] .*generated\/ is up to date/m.test(output), 30_000, out);
      expect(output).toMatch(/^\[api\] /m);
      expect(output).toMatch(/^\[mock\] /m);
      expect(output).toMatch(new RegExp(`^\\[admin\\] .*/api: +the Prism mock on http://127\\.0\\.0\\.1:${mockPort} `, 'm'));
      expect(await (await fetch(admin)).text()).toContain('<div id="root"></div>');
      // The admin's /api is the mock's: any bearer token reads the contract's example page.
      const posts = await fetch(`http://127.0.0.1:${adminPort}/api/v1/posts`, { headers: { authorization: 'Bearer any' } });
      expect(posts.status).toBe(200);
      expect(((await posts.json()) as { items: { title: string }[] }).items[0]?.title).toBe('Writing markdown that ages well');
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
    expect(await answers(admin)).toBe(false);
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

describe('the admin dev server of make dev (admin/vite.config.ts)', () => {
  /** A stand-in for the mock or the server on the loopback address: answers with the path it was asked. */
  async function standIn(name: string) {
    const server = createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ name, url: req.url }));
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    return { port: (server.address() as AddressInfo).port, close: () => server.close() };
  }

  /** `vite admin` as [admin] runs it, with `env`; resolves with what GET `path` answers and what it printed, then stops it. */
  async function viaAdmin(env: Record<string, string>, path: string): Promise<{ answer: unknown; output: string }> {
    const adminPort = await freePort();
    const child = spawn(join(ROOT, 'node_modules/.bin/vite'), ['admin', '--clearScreen', 'false'], {
      cwd: ROOT,
      detached: true,
      env: { ...process.env, ADMIN_PORT: String(adminPort), FORCE_COLOR: '0', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = once(child, 'exit');
    try {
      await until(
        'the admin dev server',
        () => answers(`http://127.0.0.1:${adminPort}/admin/`),
        60_000,
        () => output,
      );
      return { answer: await (await fetch(`http://127.0.0.1:${adminPort}${path}`)).json(), output };
    } finally {
      process.kill(-child.pid!, 'SIGTERM');
      await exited;
    }
  }

  it('sends /api to the mock on MOCK_PORT by default, without the /api/v1 root the mock does not have', async () => {
    const mock = await standIn('mock');
    try {
      const { answer, output } = await viaAdmin({ ADMIN_API: '', MOCK_PORT: String(mock.port) }, '/api/v1/posts?limit=2');
      expect(answer).toEqual({ name: 'mock', url: '/posts?limit=2' });
      expect(output).toContain(`/api:    the Prism mock on http://127.0.0.1:${mock.port}`);
    } finally {
      mock.close();
    }
  }, 90_000);

  it('sends /api to the server on PORT, path and all, with ADMIN_API=server', async () => {
    const server = await standIn('server');
    try {
      const { answer, output } = await viaAdmin({ ADMIN_API: 'server', PORT: String(server.port) }, '/api/v1/posts?limit=2');
      expect(answer).toEqual({ name: 'server', url: '/api/v1/posts?limit=2' });
      expect(output).toContain(`/api:    the server on http://127.0.0.1:${server.port}`);
    } finally {
      server.close();
    }
  }, 90_000);

  it('refuses to start with an ADMIN_API it does not know, saying which it knows', async () => {
    const child = spawn(join(ROOT, 'node_modules/.bin/vite'), ['admin'], {
      cwd: ROOT,
      env: { ...process.env, ADMIN_API: 'staging', ADMIN_PORT: String(await freePort()), FORCE_COLOR: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).not.toBe(0);
    expect(output).toContain('ADMIN_API is "staging": it must be mock (the default) or server');
  }, 60_000);
});
