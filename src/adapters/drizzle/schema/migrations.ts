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

/** A row of `schema_requirements`: a migration a server must know to run against the database, and why. */
export interface SchemaRequirement {
  migration: string;
  reason: string;
}

/**
 * Throws `SchemaAheadError` when the database requires a migration this build's journal lacks (a
 * newer release migrated it): this build would misread what that migration stores.
 */
export function assertRequirementsKnown(requirements: readonly SchemaRequirement[], journal: readonly JournalEntry[]): void {
  const known = new Set(journal.map((entry) => entry.tag));
  const unknown = requirements.filter((requirement) => !known.has(requirement.migration));
  if (unknown.length > 0) throw new SchemaAheadError(unknown);
}

/** Thrown by the schema check (at start-up, and later ones) when a newer release migrated the database past this build. */
export class SchemaAheadError extends Error {
  constructor(readonly unknown: readonly SchemaRequirement[]) {
    super(
      `database schema is ahead of this server: it was migrated by a newer release and needs ${unknown
        .map((r) => `${r.migration} (${r.reason})`)
        .join(', ')}, which this server does not know. Run that release or a later one; to go back to this one, ` +
        'restore the backup taken before that migration',
    );
    this.name = 'SchemaAheadError';
  }
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
