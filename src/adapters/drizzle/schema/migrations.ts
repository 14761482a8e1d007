import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MIGRATIONS_FOLDER } from '../../../paths.js';

export { MIGRATIONS_FOLDER };

/** Where drizzle's migrators record applied migrations (their defaults, spelled out). */
export const MIGRATIONS_SCHEMA = 'drizzle';
export const MIGRATIONS_TABLE = '__drizzle_migrations';

export interface MigrationConfig {
  migrationsFolder: string;
  migrationsSchema: string;
  migrationsTable: string;
}

export function migrationConfig(migrationsFolder = MIGRATIONS_FOLDER): MigrationConfig {
  return { migrationsFolder, migrationsSchema: MIGRATIONS_SCHEMA, migrationsTable: MIGRATIONS_TABLE };
}

export interface JournalEntry {
  idx: number;
  tag: string;
  /** Creation time in epoch ms; drizzle stores it as `created_at` once the migration is applied. */
  when: number;
}

/** The entries of `meta/_journal.json`, oldest first. */
export function readJournal(migrationsFolder = MIGRATIONS_FOLDER): JournalEntry[] {
  const journal = JSON.parse(readFileSync(join(migrationsFolder, 'meta', '_journal.json'), 'utf8')) as {
    entries: JournalEntry[];
  };
  return journal.entries;
}

/**
 * The journal entries not applied yet, decided as drizzle's migrator does: every entry newer than
 * the latest applied `created_at` (`null` when nothing was ever applied).
 */
export function pendingMigrations(journal: JournalEntry[], latestApplied: number | null): JournalEntry[] {
  return journal.filter((entry) => latestApplied === null || entry.when > latestApplied);
}

/** Thrown at start-up when the database lacks migrations this build needs. */
export class SchemaBehindError extends Error {
  constructor(readonly pending: readonly string[]) {
    super(
      `database schema is behind: run \`make migrate\` (${pending.length} migration${
        pending.length === 1 ? '' : 's'
      } not applied: ${pending.join(', ')})`,
    );
    this.name = 'SchemaBehindError';
  }
}
