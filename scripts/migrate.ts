/**
 * Applies pending migrations from `drizzle/`.
 *
 *   DATABASE_URL set   → the PostgreSQL database it names (under an advisory lock)
 *   otherwise          → the PGlite database in DATA_DIR (default `.data/`)
 *
 * Usage: npx tsx scripts/migrate.ts   (or `make migrate`)
 */
import { resolve } from 'node:path';
import { openPglite } from '../src/adapters/drizzle/driver/connect-pglite.js';
import { migratePostgres } from '../src/adapters/drizzle/driver/connect-postgres.js';
import { maskUrl } from '../src/mask-url.js';
import { readJournal } from '../src/adapters/drizzle/schema/migrations.js';
import { loadDatabaseConfig } from '../src/config.js';
import { loadEnvFile } from '../src/env-file.js';

async function main(): Promise<void> {
  // The server's settings: a DATABASE_URL in .env names the database the server will use.
  loadEnvFile();
  const database = loadDatabaseConfig(process.env);
  const count = readJournal().length;
  if (database.kind === 'postgres') {
    console.log(`migrate: PostgreSQL ${maskUrl(database.url)} (${count} migrations in drizzle/)`);
    await migratePostgres(database.url, { connectTimeoutSeconds: database.connectTimeoutSeconds });
  } else {
    const dataDir = resolve(database.dataDir);
    console.log(`migrate: PGlite in ${dataDir} (${count} migrations in drizzle/)`);
    const pglite = await openPglite({ dataDir }); // migrates on open
    await pglite.close();
  }
  console.log('migrate: database schema is up to date');
}

main().catch((error: unknown) => {
  console.error('migrate: failed:', error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
