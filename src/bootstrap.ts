import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { makePrivateDir } from './adapters/drizzle/driver/private-files.js';
import { ConfigError, type Config } from './config.js';
import { ValidationError, type Clock, type IdGenerator, type PasswordHasher, type PasswordPolicy, type Store } from './domain/index.js';
import { createOrResetUser } from './app/users.js';
import type { Logger } from './log.js';

/**
 * The JWT secret: `JWT_SECRET` when set (required outside the embedded default, `loadConfig`
 * checks that), else one generated once and kept in the embedded data directory (mode 0600; the
 * directory is made 0700).
 */
export function jwtSecretFor(config: Pick<Config, 'auth' | 'database'>): Uint8Array {
  if (config.auth.jwtSecret) return new TextEncoder().encode(config.auth.jwtSecret);
  if (config.database.kind !== 'pglite') throw new Error('JWT_SECRET is required with DATABASE_URL');
  const file = join(config.database.dataDir, 'jwt-secret');
  makePrivateDir(config.database.dataDir);
  if (!existsSync(file)) {
    try {
      writeFileSync(file, randomBytes(48).toString('base64url'), { mode: 0o600, flag: 'wx' });
    } catch (error) {
      // Another process starting on the same directory wrote it first: use theirs.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  chmodSync(file, 0o600);
  return new TextEncoder().encode(readFileSync(file, 'utf8').trim());
}

export interface FirstAdmin {
  email: string;
  /** Set only when the password was generated here and must be shown once. */
  generatedPassword: string | null;
  /** Where the generated password was written (mode 0600, in the data directory); null when none was. */
  passwordFile: string | null;
}

/** The file the first start writes a generated admin password to, in the embedded data directory. */
const ADMIN_PASSWORD_FILE = 'admin-password';

/**
 * On the first start of the embedded default (no user yet), creates the admin from ADMIN_EMAIL
 * and ADMIN_PASSWORD, or with a generated password, which is first written to `admin-password`
 * in the data directory (mode 0600), so that it is not lost when the output is not read.
 * PostgreSQL mode never gets a default user (`make user` creates one, with the password it is
 * given): there is no generated password, and no data directory, to keep.
 */
export async function ensureFirstAdmin(
  config: Pick<Config, 'auth' | 'database'>,
  deps: { store: Store; hasher: PasswordHasher; passwords: PasswordPolicy; ids: IdGenerator; clock: Clock },
): Promise<FirstAdmin | null> {
  if (config.database.kind !== 'pglite') return null;
  if ((await deps.store.users.count()) > 0) return null;
  const email = config.auth.adminEmail ?? 'admin@example.com';
  const generated = config.auth.adminPassword === null;
  const password = config.auth.adminPassword ?? randomBytes(18).toString('base64url');
  const passwordFile = generated ? writePasswordFile(config.database.dataDir, password) : null;
  // A generated password (144 random bits) needs no guessing estimate: the first start then does
  // not load the policy's dictionaries.
  const passwords: PasswordPolicy = generated ? { problem: () => Promise.resolve(null) } : deps.passwords;
  try {
    await createOrResetUser(
      {
        users: deps.store.users,
        refreshTokens: deps.store.refreshTokens,
        hasher: deps.hasher,
        passwords,
        ids: deps.ids,
        clock: deps.clock,
      },
      { email, name: 'Admin', password },
    );
  } catch (error) {
    // Only a set ADMIN_PASSWORD can be refused (a generated one is 144 random bits).
    if (error instanceof ValidationError) throw new ConfigError(error.issues.map((issue) => `ADMIN_PASSWORD ${issue.message}`));
    throw error;
  }
  return { email, generatedPassword: generated ? password : null, passwordFile };
}

/** Writes `password` to a new owner-only file in `dataDir` (replacing one left by an earlier first start); returns its absolute path. */
function writePasswordFile(dataDir: string, password: string): string {
  makePrivateDir(dataDir);
  const file = resolve(dataDir, ADMIN_PASSWORD_FILE);
  rmSync(file, { force: true });
  writeFileSync(file, `${password}\n`, { mode: 0o600, flag: 'wx' });
  return file;
}

/** Where the server answers, for the sign-in hints. */
interface Origin {
  origin: string;
  apiRoot: string;
  adminPath: string | null;
}

/**
 * Tells of the first admin: a log line with the email, the password file's path and the admin
 * app's URL, never the password; and, only when standard output is a terminal (a person reads it, it is not kept in a
 * log), a note with the password itself and how to sign in.
 */
export function announceFirstAdmin(
  admin: FirstAdmin,
  { origin, apiRoot, adminPath }: Origin,
  { logger, out }: { logger: Pick<Logger, 'info' | 'warn'>; out: { isTTY?: boolean; write(text: string): unknown } },
): void {
  // The admin app's address is no secret: the log names it too, for whoever reads the log.
  const adminUrl = adminPath ? { adminUrl: `${origin}${adminPath}` } : {};
  if (admin.passwordFile === null)
    logger.info('first start: created the admin user with ADMIN_PASSWORD', { email: admin.email, ...adminUrl });
  else
    logger.warn('first start: created the admin user; its generated password is in the file named here', {
      email: admin.email,
      passwordFile: admin.passwordFile,
      ...adminUrl,
    });
  if (out.isTTY !== true) return;
  const lines = [
    '',
    'First start: created the admin user.',
    `  email:    ${admin.email}`,
    `  password: ${admin.generatedPassword ?? '(the ADMIN_PASSWORD you set)'}`,
    ...(admin.passwordFile === null
      ? []
      : [`  Also in ${admin.passwordFile} (readable by you only): save it elsewhere, then delete that file. \`make user\` resets it.`]),
    adminPath ? `Sign in to the admin app at ${origin}${adminPath}, or log in with:` : 'Log in with:',
    `  curl -s -X POST ${origin}${apiRoot}/auth/login -H 'content-type: application/json' \\`,
    `       -d '{"email":"${admin.email}","password":"…"}'`,
    '',
  ];
  out.write(lines.join('\n') + '\n');
}
