/**
 * Start-up on PostgreSQL as a process (`node --import tsx src/main.ts`): `.env` is read from the
 * working directory with the environment winning, a server started on a schema behind its
 * migrations says in its log when it becomes ready, with no request asking, and one started on a
 * schema a newer release migrated exits saying so.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { afterEach, describe, expect, it } from 'vitest';
import { migratePostgres } from '../../src/adapters/drizzle/driver/connect-postgres.js';
import { createTestDatabase, requirePostgres, testServerUrl, type TestDatabase } from '../support/databases.js';
import { freePort } from '../support/ports.js';
import { firstHealthz, spawnServer, startServer, stopServers } from '../support/server-process.js';

const serverUrl = testServerUrl();
const available = await requirePostgres(serverUrl);

const databases: TestDatabase[] = [];
const folders: string[] = [];
afterEach(async () => {
  stopServers();
  for (const db of databases.splice(0)) await db.drop();
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

describe.skipIf(!available)('starting the server on PostgreSQL', () => {
  it('reads DATABASE_URL, PORT and the rest from .env in its working directory, the environment winning over the file', async () => {
    const db = await createTestDatabase(serverUrl);
    databases.push(db);
    const cwd = mkdtempSync(join(tmpdir(), 'margin-dotenv-'));
    folders.push(cwd);
    const port = await freePort();
    // HOST from the file is no address of this machine: the server can start only with the environment's.
    writeFileSync(
      join(cwd, '.env'),
      [
        '# Copied from .env.example',
        `DATABASE_URL=${db.url}`,
        `JWT_SECRET=${'f'.repeat(40)}`,
        `PORT=${port}`,
        'HOST=203.0.113.7',
        'SITE_TITLE="From the file"',
        'HOUSEKEEPING_INTERVAL_SECONDS=0',
      ].join('\n') + '\n',
    );
    const server = spawnServer({ HOST: '127.0.0.1' }, { cwd });
    const base = `http://127.0.0.1:${port}/api/v1`;
    await firstHealthz(server, base);
    expect(await fetch(`${base}/content/feed.atom`).then((r) => r.text())).toContain('<title>From the file</title>');
    await expect.poll(() => server.output(), { timeout: 3000 }).toContain('read settings from .env');
    expect(server.output()).toContain(`"path":"${join(cwd, '.env')}"`);
  });

  it('exits 1 saying the schema is ahead, naming the migration it lacks, on a database a newer release migrated', async () => {
    const db = await createTestDatabase(serverUrl);
    databases.push(db);
    const sql = postgres(db.url, { max: 1, onnotice: () => undefined });
    try {
      await sql`insert into schema_requirements (migration, reason) values ('9999_from_a_newer_release', 'stores posts anew')`;
    } finally {
      await sql.end({ timeout: 5 });
    }
    const server = spawnServer({ DATABASE_URL: db.url, JWT_SECRET: 'j'.repeat(40), PORT: String(await freePort()) });
    expect(await server.exited).toBe(1);
    expect(server.output()).toContain(
      'MarginCMS could not start: database schema is ahead of this server: it was migrated by a newer release and needs 9999_from_a_newer_release (stores posts anew)',
    );
  });

  it(
    'stops with exit 1 within its 30 s watch when a newer release migrates the database past it while it runs',
    { timeout: 60_000 },
    async () => {
      const db = await createTestDatabase(serverUrl);
      databases.push(db);
      const server = await startServer(db.url);
      expect((await fetch(`${server.base}/readyz`)).status).toBe(200);
      const sql = postgres(db.url, { max: 1, onnotice: () => undefined });
      try {
        await sql`insert into schema_requirements (migration, reason) values ('9999_from_a_newer_release', 'stores posts anew')`;
      } finally {
        await sql.end({ timeout: 5 });
      }
      expect(await server.exited).toBe(1);
      const output = server.output();
      expect(output).toContain('stopping: database schema is ahead of this server');
      expect(output).toContain('9999_from_a_newer_release (stores posts anew)');
      expect(output).toContain('"message":"stopped"');
    },
  );

  it('logs that it is ready once `make migrate` has run on its schema, with no request asking', async () => {
    const db = await createTestDatabase(serverUrl, { migrate: false });
    databases.push(db);
    const server = await startServer(db.url);
    // Log lines are written in batches, at most half a second late.
    await expect.poll(() => server.output(), { timeout: 3000 }).toContain('not ready: the database schema is behind');
    await migratePostgres(db.url);
    await expect.poll(() => server.output(), { timeout: 5000 }).toContain('ready: the database schema is current');
  });
});
