/**
 * A production install, made as the Dockerfile's runtime stage makes it and run with `node` only:
 * a fresh `npm run build` in a copy of the tree, the package `npm pack` writes from it, installed
 * by scripts/production-install.sh (`npm ci --omit=dev`, from the npm cache when it can). Then, on
 * embedded PGlite and on PostgreSQL: compose.yaml's migration, `dist/create-user.js`, the image's
 * CMD (the server) with its HEALTHCHECK, the `margin` bin of package.json, and `dist/purge.js`.
 * Slow (a build and an install, about a minute): a process test, one file, run once.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { createTestDatabase, requirePostgres, testServerUrl, type TestDatabase } from '../support/databases.js';
import { freePort } from '../support/ports.js';

const ROOT = new URL('../..', import.meta.url).pathname;
const run = promisify(execFile);
const PASSWORD = 'a production install password, 2026';
const JWT_SECRET = 'production-install-secret-production-install';
const DEV_TOOLS = ['tsx', 'esbuild', 'vite', 'typescript', 'vitest', 'patch-package', 'drizzle-kit'];

const serverUrl = testServerUrl();
const postgresAvailable = await requirePostgres(serverUrl);

/** The image's own commands, read from the Dockerfile and compose.yaml, not copied here. */
const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
const compose = parse(readFileSync(join(ROOT, 'compose.yaml'), 'utf8'), { merge: true }) as {
  services: Record<string, { command?: string[] }>;
};
/** The JSON array of the Dockerfile's `KEYWORD … CMD [...]` line (HEALTHCHECK's continues a line). */
function dockerfileCommand(keyword: 'CMD' | 'HEALTHCHECK'): string[] {
  const text = dockerfile.replace(/\\\n\s*/g, '');
  const line = text.split('\n').find((l) => l.startsWith(`${keyword} `));
  const json = line?.slice(line.indexOf('['));
  if (json === undefined) throw new Error(`the Dockerfile has no ${keyword} [...] line`);
  return JSON.parse(json) as string[];
}
const SERVER_COMMAND = dockerfileCommand('CMD');
const HEALTHCHECK_COMMAND = dockerfileCommand('HEALTHCHECK');
const MIGRATE_COMMAND = compose.services.migrate!.command!;

let work = '';
let app = '';
const children: ChildProcess[] = [];

/**
 * An environment with nothing of the test runner's: no node_modules/.bin on PATH (no tsx), no
 * loader, no database; the Node running the tests first on PATH, for the bin's `env node`.
 */
function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const path = [dirname(process.execPath), ...(process.env.PATH ?? '').split(':').filter((dir) => !/node_modules\/\.bin\/?$/.test(dir))];
  return { PATH: path.join(':'), HOME: work, LOG_LEVEL: 'info', HOUSEKEEPING_INTERVAL_SECONDS: '0', ...extra };
}

/** Runs `command` in the installed package; its output in the error when it fails. */
async function inApp(command: string[], env: NodeJS.ProcessEnv): Promise<string> {
  const [file, ...args] = command;
  try {
    const { stdout, stderr } = await run(file === 'node' ? process.execPath : file!, args, { cwd: app, env, timeout: 120_000 });
    return stdout + stderr;
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${command.join(' ')} failed: ${e.message}\n${e.stdout ?? ''}${e.stderr ?? ''}`);
  }
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'margin-production-'));
  // The working tree as git sees it (committed or not, ignored files aside), built in the copy so
  // that the shared dist/ is not touched; node_modules is the tree's, for the build only.
  const tree = join(work, 'tree');
  const { stdout } = await run('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, maxBuffer: 1 << 26 });
  for (const file of stdout.split('\0').filter((f) => f !== '' && existsSync(join(ROOT, f)))) {
    mkdirSync(dirname(join(tree, file)), { recursive: true });
    cpSync(join(ROOT, file), join(tree, file));
  }
  symlinkSync(join(ROOT, 'node_modules'), join(tree, 'node_modules'));
  await run(process.execPath, ['scripts/build.mjs'], { cwd: tree });
  const packed = await run('npm', ['pack', '--silent', '--pack-destination', work], { cwd: tree });
  app = join(work, 'app');
  await run(
    join(tree, 'scripts/production-install.sh'),
    [join(work, packed.stdout.trim()), join(tree, 'package-lock.json'), app, '--prefer-offline'],
    { cwd: work, env: { ...cleanEnv({}), HOME: process.env.HOME ?? work }, maxBuffer: 1 << 26 },
  );
}, 600_000);

afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  if (work !== '') rmSync(work, { recursive: true, force: true });
});

interface Server {
  base: string;
  output: () => string;
  exited: Promise<number | null>;
  child: ChildProcess;
}

/** The image's CMD in the installed package, waited for until /readyz answers 200. */
async function startServer(env: NodeJS.ProcessEnv): Promise<Server> {
  const port = await freePort();
  const [, ...args] = SERVER_COMMAND;
  const child = spawn(process.execPath, args, { cwd: app, env: { ...env, HOST: '127.0.0.1', PORT: String(port) } });
  children.push(child);
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const base = `http://127.0.0.1:${port}/api/v1`;
  for (let i = 0; ; i += 1) {
    if (child.exitCode !== null) throw new Error(`the server exited:\n${output}`);
    if (
      await fetch(`${base}/readyz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    if (i > 600) throw new Error(`no ready answer within 60 s:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { base, output: () => output, exited, child };
}

/** The Dockerfile's HEALTHCHECK against the server on `port`: its exit code. */
async function healthcheck(port: string): Promise<number> {
  return inApp(HEALTHCHECK_COMMAND, cleanEnv({ PORT: port })).then(
    () => 0,
    () => 1,
  );
}

/** The `margin` bin as package.json names it, run as an executable; its time in milliseconds. */
async function margin(args: string[], env: NodeJS.ProcessEnv): Promise<{ output: string; ms: number }> {
  const bin = (JSON.parse(readFileSync(join(app, 'package.json'), 'utf8')) as { bin: Record<string, string> }).bin.margin!;
  const started = performance.now();
  const { stdout } = await run(join(app, bin), args, { cwd: app, env });
  return { output: stdout, ms: performance.now() - started };
}

/**
 * Three calls of `margin …`, each beside a bare `node -e ''` of the moment: the best call answers
 * within `allowanceMs` of Node's own start, which takes about 0.05 s on an idle machine and up to
 * most of a second on this busy one (so an absolute bound would measure the load, not the CLI).
 * Through tsx, or with the process lingering after its answer, a call took 0.7 to 1.2 s more.
 */
async function expectQuickCalls(args: string[], env: NodeJS.ProcessEnv, allowanceMs: number): Promise<string> {
  const calls: number[] = [];
  const bare: number[] = [];
  let output = '';
  for (let i = 0; i < 3; i += 1) {
    const started = performance.now();
    await run(process.execPath, ['-e', ''], { env });
    bare.push(performance.now() - started);
    const call = await margin(args, env);
    calls.push(call.ms);
    output ||= call.output;
  }
  console.log(
    `margin ${args.join(' ')} from the package: ${calls.map(Math.round).join(', ')} ms; node -e '': ${bare.map(Math.round).join(', ')} ms`,
  );
  expect(Math.min(...calls)).toBeLessThan(Math.min(...bare) + allowanceMs);
  return output;
}

/** migrate, create a user, serve them (login, the CLI, the healthcheck, SIGTERM), then purge. */
async function theWholeRound(env: NodeJS.ProcessEnv): Promise<void> {
  expect(await inApp(MIGRATE_COMMAND, env)).toContain('database schema is up to date');
  const created = await inApp(['node', 'dist/create-user.js', '--email', 'ada@example.com', '--name', 'Ada'], {
    ...env,
    ADMIN_PASSWORD: PASSWORD,
  });
  expect(created).toContain('created ada@example.com');

  const server = await startServer({ ...env, SHUTDOWN_DELAY_SECONDS: '3' });
  const port = new URL(server.base).port;
  const login = await fetch(`${server.base}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'ada@example.com', password: PASSWORD }),
  });
  expect(login.status).toBe(200);
  expect(await healthcheck(port)).toBe(0);

  const cli = { ...env, XDG_CONFIG_HOME: join(work, `config-${port}`), MARGIN_PASSWORD: PASSWORD };
  await margin(['login', '--url', server.base, '--email', 'ada@example.com'], cli);
  // A request to a server on this same machine: 0.25 s more than --help.
  expect(await expectQuickCalls(['whoami'], cli, 750)).toContain('Ada <ada@example.com>');

  server.child.kill('SIGTERM');
  // SHUTDOWN_DELAY_SECONDS honoured: not ready (the healthcheck fails) while it still serves.
  await new Promise((resolve) => setTimeout(resolve, 200));
  expect(await healthcheck(port)).toBe(1);
  expect((await fetch(`${server.base}/healthz`)).status).toBe(200);
  expect(await server.exited).toBe(0);

  expect(await inApp(['node', 'dist/purge.js'], env)).toMatch(/^purge: deleted \d+ idempotency keys/m);
}

describe('a production install from the packed package (npm ci --omit=dev)', () => {
  it('holds the built programs, the migrations and the contract, and no dev tool and no source', () => {
    for (const file of ['bin/margin.mjs', 'dist/main.js', 'dist/margin.js', 'dist/migrate.js', 'dist/create-user.js', 'dist/purge.js']) {
      expect(existsSync(join(app, file)), file).toBe(true);
    }
    expect(existsSync(join(app, 'drizzle/meta/_journal.json'))).toBe(true);
    expect(existsSync(join(app, 'generated/openapi.json'))).toBe(true);
    expect(existsSync(join(app, 'dist/admin/index.html'))).toBe(true);
    expect(existsSync(join(app, 'src'))).toBe(false);
    for (const tool of DEV_TOOLS) expect(existsSync(join(app, 'node_modules', tool)), tool).toBe(false);
  });

  it('runs what the Dockerfile and compose.yaml name: the install script, node dist/*.js that exist', () => {
    expect(dockerfile).toMatch(/^RUN \/tmp\/install\/production-install\.sh /m);
    expect(dockerfile).toMatch(/^USER node$/m);
    expect(compose.services.server!.command).toEqual(SERVER_COMMAND);
    for (const command of [SERVER_COMMAND, MIGRATE_COMMAND]) {
      expect(command[0]).toBe('node');
      expect(existsSync(join(app, command[1]!)), command[1]).toBe(true);
    }
    for (const [, file] of `${dockerfile}\n${readFileSync(join(ROOT, 'compose.yaml'), 'utf8')}`.matchAll(/node (dist\/[\w-]+\.js)/g)) {
      expect(existsSync(join(app, file!)), file).toBe(true);
    }
  });

  it("answers `margin --help` from the bin of package.json within half a second of Node's own start", async () => {
    expect(await expectQuickCalls(['--help'], cleanEnv({}), 500)).toContain('Usage: margin <command>');
  });

  it('on embedded PGlite: migrates, creates a user who logs in to the server and the CLI, stops on SIGTERM after the delay, purges', async () => {
    await theWholeRound(cleanEnv({ DATA_DIR: join(work, 'data') }));
  }, 300_000);

  describe.skipIf(!postgresAvailable)('on PostgreSQL', () => {
    let db: TestDatabase | undefined;
    afterAll(async () => db?.drop());

    it('migrates, creates a user who logs in to the server and the CLI, stops on SIGTERM after the delay, purges', async () => {
      db = await createTestDatabase(serverUrl, { prefix: 'margin_production', migrate: false });
      await theWholeRound(cleanEnv({ DATABASE_URL: db.url, JWT_SECRET }));
    }, 300_000);
  });
});
