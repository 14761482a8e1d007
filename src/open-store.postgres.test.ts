import { afterEach, describe, expect, it } from 'vitest';
import { migratePostgres } from './adapters/drizzle/driver/connect-postgres.js';
import { postgresSettings } from './config.js';
import { createLogger } from './log.js';
import { openServerStore } from './open-store.js';
import { createTestDatabase, requirePostgres, testServerUrl, type TestDatabase } from '../test/support/databases.js';

// Fails under CI=true when the server is down; skipped with a message elsewhere.
const serverUrl = testServerUrl();
const available = await requirePostgres(serverUrl);

const databases: TestDatabase[] = [];
afterEach(async () => {
  for (const db of databases.splice(0)) await db.drop();
});

describe.skipIf(!available)('openServerStore on a database whose schema is behind', () => {
  it('names the pending migrations in the log, once per change of state and not per check, and logs when the schema is current', async () => {
    const db = await createTestDatabase(serverUrl, { migrate: false });
    databases.push(db);
    const lines: Record<string, unknown>[] = [];
    const logger = createLogger('info', (line) => lines.push(JSON.parse(line) as Record<string, unknown>));
    const opened = await openServerStore({ kind: 'postgres', ...postgresSettings(db.url) }, logger);
    try {
      expect(opened.schemaProblem).toMatch(
        /^The database schema is behind this server: \d+ migrations are pending \(0000_extensions, .*\)/,
      );
      for (let i = 0; i < 5; i += 1) expect(await opened.checkSchema()).toBe(opened.schemaProblem);

      const behind = lines.filter((line) => line.message === 'not ready: the database schema is behind');
      expect(behind).toHaveLength(1);
      expect(behind[0]).toMatchObject({ level: 'warn', detail: opened.schemaProblem });
      expect(String(behind[0]!.detail)).toContain('0000_extensions');

      await migratePostgres(db.url);
      expect(await opened.checkSchema()).toBeNull();
      expect(await opened.checkSchema()).toBeNull();
      const current = lines.filter((line) => line.message === 'ready: the database schema is current');
      expect(current).toHaveLength(1);
      expect(current[0]).toMatchObject({ level: 'info' });
      expect(lines.filter((line) => line.message === 'not ready: the database schema is behind')).toHaveLength(1);
    } finally {
      await opened.store.close();
    }
  });
});
