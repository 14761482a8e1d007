import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makePrivateDir } from './adapters/drizzle/driver/private-files.js';
import { ConfigError, type Config } from './config.js';
import { ValidationError, type Clock, type IdGenerator, type PasswordHasher, type PasswordPolicy, type Store } from './domain/index.js';
import { createOrResetUser } from './app/users.js';

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
}

/**
 * On the first start of the embedded default (no user yet), creates the admin from ADMIN_EMAIL
 * and ADMIN_PASSWORD, or with a generated password to print once. PostgreSQL mode never gets a
 * default user (`make user` creates one).
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
  return { email, generatedPassword: generated ? password : null };
}
