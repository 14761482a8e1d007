/**
 * DATABASE_URL reaches PostgreSQL as libpq would send it: the pool and the migrator are given the
 * URL's parts as options, so postgres.js's own URL parsing (URLSearchParams: "+" is a space) never
 * applies.
 */
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, requirePostgres, testServerUrl, type TestDatabase } from '../../../../test/support/databases.js';
import { postgresSettings } from '../../../config.js';
import { migratePostgres, openPostgres } from './connect-postgres.js';

// Fails under CI=true when the server is down; skipped with a message elsewhere.
const serverUrl = testServerUrl();
const available = await requirePostgres(serverUrl);

/** `url` with a query string (the test database's URL has none). */
const withQuery = (url: string, query: string) => `${url}${url.includes('?') ? '&' : '?'}${query}`;

describe.skipIf(!available)('openPostgres and migratePostgres with parameters in DATABASE_URL', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase(serverUrl);
  });

  afterAll(async () => {
    await database?.drop();
  });

  it('keeps a "+" in application_name a "+", as psql and libpq do (not "my app")', async () => {
    const pg = await openPostgres({ ...postgresSettings(withQuery(database.url, 'application_name=my+app%2Bx%20y')), poolSize: 1 });
    try {
      const [row] = await pg.sql<{ name: string }[]>`select current_setting('application_name') as name`;
      expect(row?.name).toBe('my+app+x y');
    } finally {
      await pg.close();
    }
  });

  it('sends options=-c name=value at connection start, and names the pool margin-cms when the URL does not', async () => {
    await withPool(withQuery(database.url, 'options=-c%20search_path%3Dmargin_x%2Cpublic'), async (sql) => {
      const [row] = await sql<{ path: string; name: string }[]>`
        select current_setting('search_path') as path, current_setting('application_name') as name`;
      expect(row).toEqual({ path: 'margin_x,public', name: 'margin-cms' });
    });
  });

  it('migrates over a URL whose first host refuses connections, trying the next one as libpq does', async () => {
    const url = new URL(database.url);
    const twoHosts = `postgres://${url.username}@127.0.0.1:1,${url.host}${url.pathname}?application_name=a+b`;
    await migratePostgres(twoHosts, { connectTimeoutSeconds: 5 });
    const admin = postgres(database.url, { max: 1, onnotice: () => undefined });
    try {
      const [row] = await admin<{ n: number }[]>`select count(*)::int as n from drizzle.__drizzle_migrations`;
      expect(row?.n).toBeGreaterThan(0);
    } finally {
      await admin.end();
    }
  });
});

async function withPool(url: string, body: (sql: postgres.Sql) => Promise<void>): Promise<void> {
  const pg = await openPostgres({ ...postgresSettings(url), poolSize: 1 });
  try {
    await body(pg.sql);
  } finally {
    await pg.close();
  }
}
