/**
 * `make migrate`, `make user` and `make purge` read `.env` from their working directory as the
 * server does, the environment winning: a DATABASE_URL kept in `.env` is the database they work on
 * (else they would migrate, or create the user in, the embedded store while the server uses
 * PostgreSQL). Run as processes against a scratch PostgreSQL database.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { createArgon2PasswordHasher } from '../../src/adapters/crypto/argon2-password-hasher.js';
import { ENV_VARIABLES, postgresSettings } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { openStore } from '../../src/open-store.js';
import { createTestDatabase, requirePostgres, testServerUrl, type TestDatabase } from '../support/databases.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TSX = createRequire(import.meta.url).resolve('tsx');
const serverUrl = testServerUrl();
const available = await requirePostgres(serverUrl);

const databases: TestDatabase[] = [];
const folders: string[] = [];
afterEach(async () => {
  for (const db of databases.splice(0)) await db.drop();
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** Runs `scripts/<script>` in `cwd` with no server variable in its environment but `env`. */
function runScript(script: string, cwd: string, args: string[] = [], stdin = '', env: Record<string, string> = {}) {
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !(name in ENV_VARIABLES)));
  const child = spawn(process.execPath, ['--import', TSX, join(ROOT, 'scripts', script), ...args], {
    cwd,
    env: { ...inherited, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stdin.on('error', () => undefined);
  child.stdin.end(stdin);
  return new Promise<{ code: number | null; output: string }>((resolve) => child.on('close', (code) => resolve({ code, output })));
}

describe.skipIf(!available)('the commands beside the server', () => {
  it('migrate, create the user in and purge the DATABASE_URL of .env; the password is never the ADMIN_PASSWORD kept there', async () => {
    const db = await createTestDatabase(serverUrl, { migrate: false });
    databases.push(db);
    const cwd = mkdtempSync(join(tmpdir(), 'margin-commands-'));
    folders.push(cwd);
    writeFileSync(join(cwd, '.env'), `DATABASE_URL=${db.url}\nADMIN_PASSWORD="the first start's own password"\n`);

    const migrated = await runScript('migrate.ts', cwd);
    expect(migrated.output).toContain('migrate: PostgreSQL');
    expect(migrated.code).toBe(0);

    const created = await runScript(
      'create-user.ts',
      cwd,
      ['--email', 'ada@example.com', '--name', 'Ada'],
      'correct horse battery staple\n',
    );
    expect(created.output).toContain('created ada@example.com');
    expect(created.code).toBe(0);
    const store = await openStore({ kind: 'postgres', ...postgresSettings(db.url) }, createLogger('silent'));
    try {
      const ada = await store.users.getByEmail('ada@example.com');
      expect(await createArgon2PasswordHasher().verify(ada!.passwordHash, 'correct horse battery staple')).toBe(true);
    } finally {
      await store.close();
    }

    const purged = await runScript('purge.ts', cwd);
    expect(purged.output).toContain('purge: deleted');
    expect(purged.code).toBe(0);
  });
});
