/** The scratch PostgreSQL database a benchmark runs on: created, migrated, given a user, dropped. */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { openSync, closeSync } from 'node:fs';
import postgres from 'postgres';
import { createTestDatabase } from '../test/support/databases.js';
import { log, logFile, onCleanup } from './lifecycle.js';

export interface ScratchDatabase {
  name: string;
  url: string;
  /** A small pool for the runner's own statements (resets, seeding by SQL, counts). */
  sql: postgres.Sql;
}

/** Creates `margin_bench_<…>` on `serverUrl`, empty (the caller migrates it with the build under test); dropped at exit, whatever happens. */
export async function createScratchDatabase(serverUrl: string): Promise<ScratchDatabase> {
  const database = await createTestDatabase(serverUrl, { prefix: 'margin_bench', migrate: false });
  const sql = postgres(database.url, { max: 2, onnotice: () => undefined });
  onCleanup(async () => {
    await sql.end({ timeout: 2 });
    await database.drop();
    log(`dropped database ${database.name}`);
  });
  return { name: database.name, url: database.url, sql };
}

/**
 * Runs a repository script with tsx (or, with `built`, `node <script>` in that checkout: a built
 * command such as dist/migrate.js), its output to the log file; rejects on a non-zero exit.
 */
export function runScript(script: string, args: string[], env: Record<string, string>, built?: string): Promise<void> {
  const out = openSync(logFile, 'a');
  const [command, cwd] = built === undefined ? ['node_modules/.bin/tsx', process.cwd()] : [process.execPath, built];
  const child = spawn(command, [script, ...args], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', out, out],
    cwd,
  });
  closeSync(out);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${script} exited with ${code}; see ${logFile}`))));
  });
}

/** Applies the migrations: this checkout's by tsx, or with `built` that checkout's `dist/migrate.js`. */
export async function migrate(url: string, built?: string): Promise<void> {
  await runScript(built === undefined ? 'scripts/migrate.ts' : 'dist/migrate.js', [], { DATABASE_URL: url }, built);
}

export interface Credentials {
  email: string;
  password: string;
}

/** A fresh bench user with a random password (never printed); `built` as for `migrate`. */
export async function createUser(url: string, built?: string): Promise<Credentials> {
  const credentials = { email: 'bench@example.com', password: randomBytes(18).toString('base64url') };
  await runScript(
    built === undefined ? 'scripts/create-user.ts' : 'dist/create-user.js',
    ['--email', credentials.email, '--name', 'Bench'],
    { DATABASE_URL: url, ADMIN_PASSWORD: credentials.password },
    built,
  );
  return credentials;
}

/**
 * Deletes what a writing cell added (posts, revisions and activity created after `cutoff`) and
 * vacuums, so that every cell starts from the same data.
 */
export async function resetWrites(sql: postgres.Sql, cutoff: Date): Promise<number> {
  const deleted = await sql`delete from posts where created_at > ${cutoff}`;
  await sql`delete from revisions where created_at > ${cutoff}`;
  await sql`delete from activity_events where occurred_at > ${cutoff}`;
  await sql.unsafe('VACUUM (ANALYZE) posts, revisions, activity_events');
  return deleted.count;
}

export async function countPosts(sql: postgres.Sql): Promise<number> {
  const [row] = await sql<{ n: number }[]>`select count(*)::int as n from posts`;
  return row!.n;
}
