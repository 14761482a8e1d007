/**
 * `npm run user:create`, run as a real process against the embedded PGlite in a temporary
 * DATA_DIR, then checked by opening that store.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { createArgon2PasswordHasher } from '../../src/adapters/crypto/argon2-password-hasher.js';
import { createLogger } from '../../src/log.js';
import { openStore } from '../../src/open-store.js';
import { ADMIN, testServer, url } from '../support/http.js';
import { usePostgres } from '../support/stores.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TSX = join(ROOT, 'node_modules', '.bin', 'tsx');
const SCRIPT = join(ROOT, 'scripts', 'create-user.ts');
const hasher = createArgon2PasswordHasher();

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the command with `args`, `stdin` on standard input and `env` over a clean environment. */
function run(
  args: string[],
  { stdin = '', env = {}, viaNpm = false }: { stdin?: string; env?: Record<string, string>; viaNpm?: boolean },
): Promise<Run> {
  const base: Record<string, string | undefined> = { ...process.env, DATABASE_URL: '', ADMIN_PASSWORD: '', LOG_LEVEL: 'error' };
  const [command, argv] = viaNpm ? ['npm', ['run', '--silent', 'user:create', '--', ...args]] : [TSX, [SCRIPT, ...args]];
  return new Promise((resolve, reject) => {
    const child = spawn(command as string, argv as string[], { cwd: ROOT, env: { ...base, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.on('error', () => undefined); // the command may exit before reading
    child.stdin.end(stdin);
  });
}

const directories: string[] = [];
function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'margin-user-'));
  directories.push(dir);
  return join(dir, 'data');
}
afterEach(() => {
  for (const dir of directories.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function userIn(dir: string, email: string) {
  const store = await openStore({ kind: 'pglite', dataDir: dir }, createLogger('silent'));
  try {
    return { user: await store.users.getByEmail(email), count: await store.users.count() };
  } finally {
    await store.close();
  }
}

describe('user:create', { timeout: 60_000 }, () => {
  it('creates a user from the password on standard input, then resets it from ADMIN_PASSWORD, never printing either', async () => {
    const dir = dataDir();
    const first = 'first password from stdin';
    const created = await run(['--email', 'Ada@Example.com', '--name', 'Ada Lovelace'], {
      stdin: `${first}\nignored second line\n`,
      env: { DATA_DIR: dir },
      viaNpm: true,
    });
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    expect(created.stdout.trim()).toBe('created ada@example.com');
    const before = await userIn(dir, 'ada@example.com');
    expect(before.user).toMatchObject({ email: 'ada@example.com', name: 'Ada Lovelace' });
    expect(before.user!.passwordHash.startsWith('$argon2id$v=19$m=19456,t=2,p=1$')).toBe(true);
    expect(await hasher.verify(before.user!.passwordHash, first)).toBe(true);

    const second = 'second password from the environment';
    const updated = await run(['--email', 'ada@example.com', '--name', 'Ada King'], { env: { DATA_DIR: dir, ADMIN_PASSWORD: second } });
    expect(updated.code).toBe(0);
    expect(updated.stdout.trim()).toBe('updated ada@example.com');
    const after = await userIn(dir, 'ada@example.com');
    expect(after.count).toBe(1);
    expect(after.user).toMatchObject({ id: before.user!.id, name: 'Ada King' });
    expect(await hasher.verify(after.user!.passwordHash, second)).toBe(true);
    expect(await hasher.verify(after.user!.passwordHash, first)).toBe(false);

    for (const output of [created.stdout, created.stderr, updated.stdout, updated.stderr]) {
      expect(output).not.toContain(first);
      expect(output).not.toContain(second);
    }
  });

  it('refuses a --password flag with a clear message, without echoing it or touching the database', async () => {
    const dir = dataDir();
    for (const args of [['--password', 'flag-password-1234'], ['--password=flag-password-1234']]) {
      const refused = await run(['--email', 'ada@example.com', '--name', 'Ada', ...args], {
        stdin: 'stdin password long\n',
        env: { DATA_DIR: dir },
      });
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(/refusing --password/);
      expect(refused.stderr).toMatch(/ADMIN_PASSWORD|standard input/);
      expect(refused.stdout + refused.stderr).not.toContain('flag-password-1234');
    }
    expect(existsSync(dir)).toBe(false);
  });

  it('refuses an empty or short password and a missing email or name', async () => {
    const dir = dataDir();
    const cases: [string[], string, RegExp][] = [
      [['--email', 'ada@example.com', '--name', 'Ada'], '', /no password/],
      [['--email', 'ada@example.com', '--name', 'Ada'], '\nsecond line is not read\n', /no password/],
      [['--email', 'ada@example.com', '--name', 'Ada'], 'short\n', /at least 12 characters/],
      [['--email', 'ada@example.com', '--name', 'Ada'], 'aaaaaaaaaaaa\n', /the password is too easy to guess \(repeated characters\)/],
      [['--email', 'ada@example.com', '--name', 'Ada'], 'password1234\n', /the password is too easy to guess \(.*common password\)/],
      [
        ['--email', 'ada@example.com', '--name', 'Ada'],
        'ada@example.com\n',
        /the password is too easy to guess \(the account's own email or name\)/,
      ],
      [['--name', 'Ada'], 'a long enough password\n', /--email/],
      [['--email', 'ada@example.com'], 'a long enough password\n', /--name/],
    ];
    for (const [args, stdin, message] of cases) {
      const refused = await run(args, { stdin, env: { DATA_DIR: dir } });
      expect(refused.code, `${args.join(' ')} <<< ${JSON.stringify(stdin)}`).toBe(2);
      expect(refused.stderr).toMatch(message);
      expect(refused.stdout).toBe('');
    }
    expect(existsSync(dir)).toBe(false);
  });
});

describe('user:create while a server runs on the same PostgreSQL', { timeout: 60_000 }, () => {
  const pg = usePostgres();

  it('a reset ends every session the server holds: the old access token and refresh token get 401, the new password logs in (200)', async () => {
    const server = await testServer({ store: await pg.make() });
    const old = await server.login();
    const me = (accessToken: string) => server.fetch(url('/auth/me'), { headers: { authorization: `Bearer ${accessToken}` } });
    const refresh = (refreshToken: string) =>
      server.fetch(url('/auth/refresh'), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ refreshToken }),
      });
    expect((await me(old.accessToken)).status).toBe(200);

    const reset = await run(['--email', ADMIN.email, '--name', ADMIN.name], {
      stdin: 'a brand new passphrase\n',
      env: { DATABASE_URL: pg.databaseUrl() },
    });
    expect(reset.code, reset.stderr).toBe(0);
    expect(reset.stdout).toBe(`updated ${ADMIN.email}\n`);

    expect((await me(old.accessToken)).status).toBe(401);
    expect((await refresh(old.refreshToken)).status).toBe(401);
    const login = (password: string) =>
      server.fetch(url('/auth/login'), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: ADMIN.email, password }),
      });
    expect((await login(ADMIN.password)).status).toBe(401);
    const fresh = await login('a brand new passphrase');
    expect(fresh.status).toBe(200);
    expect((await me(((await fresh.json()) as { accessToken: string }).accessToken)).status).toBe(200);
  });
});
