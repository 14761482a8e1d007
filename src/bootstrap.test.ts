import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createArgon2PasswordHasher } from './adapters/crypto/argon2-password-hasher.js';
import { createZxcvbnPasswordPolicy } from './adapters/crypto/zxcvbn-password-policy.js';
import { createMemoryStore } from './adapters/memory/store.js';
import { createUlidIds } from './adapters/system/ulid-ids.js';
import { announceFirstAdmin, ensureFirstAdmin, jwtSecretFor, type FirstAdmin } from './bootstrap.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { FixedClock, type Store } from './domain/index.js';

const clock = new FixedClock(new Date('2026-12-01T10:00:00.000Z'));
const hasher = createArgon2PasswordHasher();
const POSTGRES = { DATABASE_URL: 'postgres://margin@db.internal:5432/margin', JWT_SECRET: 's'.repeat(32) };

const directories: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'margin-bootstrap-'));
  directories.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of directories.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const passwords = createZxcvbnPasswordPolicy();

function deps(store: Store) {
  return { store, hasher, passwords, ids: createUlidIds(clock), clock };
}

describe('ensureFirstAdmin', () => {
  it('creates the admin from ADMIN_EMAIL and ADMIN_PASSWORD on the first embedded start, returning no password', async () => {
    const store = createMemoryStore();
    const config = loadConfig({ DATA_DIR: tempDir(), ADMIN_EMAIL: 'Owner@Example.com', ADMIN_PASSWORD: 'a long admin password' });
    expect(await ensureFirstAdmin(config, deps(store))).toEqual({
      email: 'Owner@Example.com',
      generatedPassword: null,
      passwordFile: null,
    });
    const user = await store.users.getByEmail('owner@example.com');
    expect(user).toMatchObject({ email: 'owner@example.com', name: 'Admin' });
    expect(await hasher.verify(user!.passwordHash, 'a long admin password')).toBe(true);
    expect(user!.passwordHash.startsWith('$argon2id$')).toBe(true);
  });

  it('generates a random password when none is set, returns it once, and does nothing the next time', async () => {
    const store = createMemoryStore();
    const dataDir = tempDir();
    const config = loadConfig({ DATA_DIR: dataDir });
    const first = await ensureFirstAdmin(config, deps(store));
    expect(first).toEqual({
      email: 'admin@example.com',
      generatedPassword: expect.any(String),
      passwordFile: join(dataDir, 'admin-password'),
    });
    const password = first!.generatedPassword!;
    expect(password.length).toBeGreaterThanOrEqual(16);
    const user = await store.users.getByEmail('admin@example.com');
    expect(await hasher.verify(user!.passwordHash, password)).toBe(true);

    expect(await ensureFirstAdmin(config, deps(store))).toBeNull();
    expect(await store.users.count()).toBe(1);
    expect((await store.users.getByEmail('admin@example.com'))!.passwordHash).toBe(user!.passwordHash);

    // Another fresh database gets another password.
    const other = await ensureFirstAdmin(config, deps(createMemoryStore()));
    expect(other!.generatedPassword).not.toBe(password);
  });

  it('writes a generated password to admin-password in the data directory, mode 0600, the folder 0700, whatever the umask', async () => {
    const dataDir = join(tempDir(), 'data');
    const previous = process.umask(0);
    let first: FirstAdmin | null;
    try {
      first = await ensureFirstAdmin(loadConfig({ DATA_DIR: dataDir }), deps(createMemoryStore()));
    } finally {
      process.umask(previous);
    }
    const file = join(dataDir, 'admin-password');
    expect(first!.passwordFile).toBe(file);
    expect(readFileSync(file, 'utf8')).toBe(`${first!.generatedPassword}\n`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
  });

  it('replaces a readable admin-password left by an earlier first start with a new 0600 file', async () => {
    const dataDir = tempDir();
    writeFileSync(join(dataDir, 'admin-password'), 'old\n', { mode: 0o644 });
    const first = await ensureFirstAdmin(loadConfig({ DATA_DIR: dataDir }), deps(createMemoryStore()));
    expect(readFileSync(join(dataDir, 'admin-password'), 'utf8')).toBe(`${first!.generatedPassword}\n`);
    expect(statSync(join(dataDir, 'admin-password')).mode & 0o777).toBe(0o600);
  });

  it('writes no password file when ADMIN_PASSWORD is set', async () => {
    const dataDir = tempDir();
    await ensureFirstAdmin(
      loadConfig({ DATA_DIR: dataDir, ADMIN_EMAIL: 'owner@example.com', ADMIN_PASSWORD: 'a long admin password' }),
      deps(createMemoryStore()),
    );
    expect(existsSync(join(dataDir, 'admin-password'))).toBe(false);
  });

  it('refuses an ADMIN_PASSWORD that is long enough but easy to guess with a ConfigError naming it, creating no user', async () => {
    const store = createMemoryStore();
    const config = loadConfig({ DATA_DIR: tempDir(), ADMIN_EMAIL: 'owner@example.com', ADMIN_PASSWORD: 'aaaaaaaaaaaa' });
    const refused = await ensureFirstAdmin(config, deps(store)).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ConfigError);
    expect((refused as ConfigError).problems).toEqual([
      expect.stringMatching(/^ADMIN_PASSWORD is too easy to guess \(repeated characters\)/),
    ]);
    expect(await store.users.count()).toBe(0);
  });

  it('does nothing when a user already exists', async () => {
    const store = createMemoryStore();
    await store.users.upsert({
      id: '01JDQ7W3E5R7T9Y1V3N5Q7P9AS',
      email: 'ada@example.com',
      name: 'Ada',
      passwordHash: 'x',
      createdAt: clock.now(),
      updatedAt: clock.now(),
    });
    const config = loadConfig({ DATA_DIR: tempDir(), ADMIN_EMAIL: 'owner@example.com', ADMIN_PASSWORD: 'a long admin password' });
    expect(await ensureFirstAdmin(config, deps(store))).toBeNull();
    expect(await store.users.count()).toBe(1);
  });

  it('never creates a default user in PostgreSQL mode, even with ADMIN_EMAIL and ADMIN_PASSWORD set', async () => {
    const store = createMemoryStore();
    for (const env of [POSTGRES, { ...POSTGRES, ADMIN_EMAIL: 'owner@example.com', ADMIN_PASSWORD: 'a long admin password' }]) {
      expect(await ensureFirstAdmin(loadConfig(env), deps(store))).toBeNull();
    }
    expect(await store.users.count()).toBe(0);
  });
});

describe('announceFirstAdmin', () => {
  const generated: FirstAdmin = {
    email: 'admin@example.com',
    generatedPassword: 'Gen3rated-Pa55word',
    passwordFile: '/srv/margin/.data/admin-password',
  };
  const where = { origin: 'http://localhost:8080', apiRoot: '/api/v1', adminPath: '/admin/' };

  function announced(admin: FirstAdmin, isTTY: boolean) {
    const lines: string[] = [];
    const logged: { level: string; message: string; fields?: Record<string, unknown> }[] = [];
    const logger = {
      info: (message: string, fields?: Record<string, unknown>) => logged.push({ level: 'info', message, fields }),
      warn: (message: string, fields?: Record<string, unknown>) => logged.push({ level: 'warn', message, fields }),
    };
    announceFirstAdmin(admin, where, { logger, out: { isTTY, write: (text: string) => lines.push(text) } });
    return { printed: lines.join(''), logged };
  }

  it('logs the password file, never the password, and prints nothing else when standard output is not a terminal', () => {
    const { printed, logged } = announced(generated, false);
    expect(printed).toBe('');
    expect(logged).toEqual([
      {
        level: 'warn',
        message: expect.stringContaining('generated password is in the file'),
        fields: {
          email: 'admin@example.com',
          passwordFile: '/srv/margin/.data/admin-password',
          adminUrl: 'http://localhost:8080/admin/',
        },
      },
    ]);
    expect(JSON.stringify(logged)).not.toContain('Gen3rated-Pa55word');
  });

  it('prints the password, its file and how to sign in when standard output is a terminal', () => {
    const { printed } = announced(generated, true);
    expect(printed).toContain('  password: Gen3rated-Pa55word\n');
    expect(printed).toContain('Also in /srv/margin/.data/admin-password (readable by you only)');
    expect(printed).toContain('Sign in to the admin app at http://localhost:8080/admin/');
    expect(printed).toContain('curl -s -X POST http://localhost:8080/api/v1/auth/login');
  });

  it('names no password nor file for an admin created with ADMIN_PASSWORD', () => {
    const { printed, logged } = announced({ email: 'owner@example.com', generatedPassword: null, passwordFile: null }, true);
    expect(printed).toContain('(the ADMIN_PASSWORD you set)');
    expect(printed).not.toContain('Also in');
    expect(logged).toEqual([
      {
        level: 'info',
        message: expect.stringContaining('ADMIN_PASSWORD'),
        fields: { email: 'owner@example.com', adminUrl: 'http://localhost:8080/admin/' },
      },
    ]);
  });
});

describe('jwtSecretFor', () => {
  it('generates a secret of at least 32 bytes once, in the data directory with mode 0600, and reuses it', () => {
    const dataDir = join(tempDir(), 'nested', 'data');
    const config = loadConfig({ DATA_DIR: dataDir });
    const first = jwtSecretFor(config);
    expect(first.byteLength).toBeGreaterThanOrEqual(32);
    const file = join(dataDir, 'jwt-secret');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(new TextEncoder().encode(readFileSync(file, 'utf8').trim())).toEqual(first);

    const second = jwtSecretFor(loadConfig({ DATA_DIR: dataDir }));
    expect(Buffer.from(second).equals(Buffer.from(first))).toBe(true);

    const elsewhere = jwtSecretFor(loadConfig({ DATA_DIR: tempDir() }));
    expect(Buffer.from(elsewhere).equals(Buffer.from(first))).toBe(false);
  });

  it('tightens a secret file that was left readable to mode 0600', () => {
    const dataDir = tempDir();
    const config = loadConfig({ DATA_DIR: dataDir });
    const first = jwtSecretFor(config);
    chmodSync(join(dataDir, 'jwt-secret'), 0o644);
    expect(Buffer.from(jwtSecretFor(config)).equals(Buffer.from(first))).toBe(true);
    expect(statSync(join(dataDir, 'jwt-secret')).mode & 0o777).toBe(0o600);
  });

  it('keeps the data directory it creates or finds 0700, whatever the umask', () => {
    const created = join(tempDir(), 'data');
    const previous = process.umask(0);
    try {
      jwtSecretFor(loadConfig({ DATA_DIR: created }));
    } finally {
      process.umask(previous);
    }
    expect(statSync(created).mode & 0o777).toBe(0o700);
    expect(statSync(join(created, 'jwt-secret')).mode & 0o777).toBe(0o600);

    const found = tempDir();
    chmodSync(found, 0o755);
    jwtSecretFor(loadConfig({ DATA_DIR: found }));
    expect(statSync(found).mode & 0o777).toBe(0o700);
  });

  it('uses JWT_SECRET when set, writing nothing', () => {
    const dataDir = tempDir();
    const secret = 'an explicit secret of at least 32 bytes';
    expect(jwtSecretFor(loadConfig({ DATA_DIR: dataDir, JWT_SECRET: secret }))).toEqual(new TextEncoder().encode(secret));
    expect(existsSync(join(dataDir, 'jwt-secret'))).toBe(false);
    expect(jwtSecretFor(loadConfig(POSTGRES))).toEqual(new TextEncoder().encode(POSTGRES.JWT_SECRET));
  });

  it('refuses PostgreSQL mode without JWT_SECRET', () => {
    const config: Pick<Config, 'auth' | 'database'> = { ...loadConfig(POSTGRES) };
    config.auth = { ...config.auth, jwtSecret: null };
    expect(() => jwtSecretFor(config)).toThrow(/JWT_SECRET/);
    expect(() => loadConfig({ DATABASE_URL: POSTGRES.DATABASE_URL })).toThrow(/JWT_SECRET is required/);
  });
});
