import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { drizzle } from 'drizzle-orm/pglite';
import { migrate } from 'drizzle-orm/pglite/migrator';
import type { Database } from './database.js';
import { migrationConfig } from '../schema/migrations.js';

export interface PgliteOptions {
  /** Directory holding the database files (created if missing); absent or `undefined`: in memory. */
  dataDir?: string | undefined;
  /** Defaults to the repository's `drizzle/`. */
  migrationsFolder?: string;
}

export interface PgliteConnection {
  readonly kind: 'pglite';
  readonly db: Database;
  readonly client: PGlite;
  /** Closes PGlite (flushing it to `dataDir`). */
  close(): Promise<void>;
}

/**
 * Opens an embedded PGlite (with pg_trgm) and applies pending migrations. One process at a time
 * may open a given `dataDir`.
 */
export async function openPglite(options: PgliteOptions = {}): Promise<PgliteConnection> {
  if (options.dataDir !== undefined) mkdirSync(options.dataDir, { recursive: true });
  const client = await PGlite.create({
    ...(options.dataDir !== undefined ? { dataDir: options.dataDir } : {}),
    extensions: { pg_trgm },
  });
  try {
    await client.exec(`SET TIME ZONE 'UTC'`);
    const db = drizzle(client);
    await migrate(db, migrationConfig(options.migrationsFolder));
    return {
      kind: 'pglite',
      db,
      client,
      close: () => client.close(),
    };
  } catch (error) {
    await client.close().catch(() => undefined);
    throw error;
  }
}
