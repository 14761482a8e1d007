/**
 * Databases for tests: a throw-away PostgreSQL database per test run, and the TRUNCATE that
 * empties a migrated database between tests (PGlite or PostgreSQL).
 */
import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { migratePostgres } from '../../src/adapters/drizzle/driver/connect-postgres.js';
import type { Database } from '../../src/adapters/drizzle/driver/database.js';
import { maskUrl } from '../../src/mask-url.js';
import { ALL_TABLES } from '../../src/adapters/drizzle/schema/schema.js';

const DEFAULT_TEST_SERVER_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

/** The server tests create their databases on: `TEST_DATABASE_URL`, or a local default. */
export function testServerUrl(env: NodeJS.ProcessEnv = process.env): string {
  return env.TEST_DATABASE_URL || DEFAULT_TEST_SERVER_URL;
}

/** `url` pointing at database `name` on the same server. */
function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${encodeURIComponent(name)}`;
  return u.toString();
}

type Probe = { ok: true } | { ok: false; reason: string };

/** Whether the server answers `select 1` within `timeoutSeconds`. */
async function probePostgres(url: string, timeoutSeconds = 3): Promise<Probe> {
  const client = postgres(url, { max: 1, connect_timeout: timeoutSeconds, onnotice: () => undefined });
  try {
    await client`select 1`;
    return { ok: true };
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    return { ok: false, reason: `${String(code ?? '')} ${(error as Error).message}`.trim() };
  } finally {
    await client.end({ timeout: 1 }).catch(() => undefined);
  }
}

/**
 * What a PostgreSQL test file does when the server is down: under CI (`CI=true`) it must fail,
 * elsewhere it is skipped with a message saying why. Returns true when the tests can run.
 */
export async function requirePostgres(url: string, env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  const probe = await probePostgres(url);
  if (probe.ok) return true;
  const where = `PostgreSQL at ${maskUrl(url)} is unreachable (${probe.reason})`;
  if (env.CI === 'true') {
    throw new Error(`${where}; CI=true, so the PostgreSQL tests fail instead of being skipped.`);
  }
  console.warn(`\n[skipped] ${where}: skipping the PostgreSQL store tests. ` + 'Start PostgreSQL or set TEST_DATABASE_URL to run them.\n');
  return false;
}

export interface TestDatabase {
  name: string;
  url: string;
  /** Drops the database, ending any connection still open to it. */
  drop(): Promise<void>;
}

/** Creates a uniquely named database on the server at `serverUrl` (optionally migrated). */
export async function createTestDatabase(serverUrl: string, options: { prefix?: string; migrate?: boolean } = {}): Promise<TestDatabase> {
  const name = `${options.prefix ?? 'margin_test'}_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => undefined });
  try {
    await admin.unsafe(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end({ timeout: 5 });
  }
  const url = withDatabase(serverUrl, name);
  const database: TestDatabase = {
    name,
    url,
    async drop() {
      const a = postgres(serverUrl, { max: 1, onnotice: () => undefined });
      try {
        await a.unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await a.end({ timeout: 5 });
      }
    },
  };
  if (options.migrate ?? true) {
    try {
      await migratePostgres(url);
    } catch (error) {
      await database.drop().catch(() => undefined);
      throw error;
    }
  }
  return database;
}

/** Empties every table of a migrated database (PGlite or PostgreSQL), keeping the schema. */
export async function truncateAll(db: Database): Promise<void> {
  await db.execute(sql.raw(`TRUNCATE ${ALL_TABLES.map((t) => `"${t}"`).join(', ')} RESTART IDENTITY`));
}
