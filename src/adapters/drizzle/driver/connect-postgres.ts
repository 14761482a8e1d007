import type { Logger } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/postgres-js';
import { migrate } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';
import { parseDatabaseUrl, postgresJsTarget } from '../../../database-url.js';
import { ConnectionCounts } from './connection-counts.js';
import { ConnectionGate } from './connection-gate.js';
import type { Database } from './database.js';
import {
  assertRequirementsKnown,
  MIGRATIONS_FOLDER,
  MIGRATIONS_SCHEMA,
  MIGRATIONS_TABLE,
  migrationConfig,
  pendingMigrations,
  readJournal,
  SchemaBehindError,
  type JournalEntry,
  type SchemaRequirement,
} from '../schema/migrations.js';
import { backfillSearch } from '../schema/search-backfill.js';
import { pgErrorInfo, toDomainError } from './pg-errors.js';

export interface PostgresOptions {
  /** `postgres://user:password@host:port/database`. */
  url: string;
  /** Most connections the pool opens; also the connections of its `ConnectionGate`. */
  poolSize: number;
  /**
   * Auto-commit statements in flight per connection (postgres.js pipelines them): the gate's
   * permits are `poolSize × pipelineDepth`, a transaction takes a connection's worth. Defaults
   * to `DEFAULT_PIPELINE_DEPTH`; 1 gives every statement a connection of its own.
   */
  pipelineDepth?: number;
  /**
   * Longest wait for a free connection before a call fails with `UnavailableError` (503), having
   * sent nothing (DB_ACQUIRE_TIMEOUT_MS).
   */
  acquireTimeoutMs: number;
  /** Seconds to open a connection (TCP, TLS and startup), after which the call fails (503). */
  connectTimeoutSeconds: number;
  /** An idle connection is closed after this long. */
  idleTimeoutSeconds: number;
  /** Sent as `statement_timeout`: the server cancels a longer statement (57014, mapped to 503). */
  statementTimeoutMs: number;
  /**
   * A connection whose server sends nothing for this long while a query waits on it (the host
   * gone mid-query, a half-open TCP path) is given up: its queries fail with `UnavailableError`
   * (503) and the pool connects anew. Defaults to `statementTimeoutMs` + 2 s (off when the
   * statement timeout is 0); a patch of postgres.js provides it (`patches/`).
   */
  answerTimeoutMs?: number;
  /** Seconds before a connection is replaced; postgres.js picks 30–60 min at random by default. */
  maxLifetime?: number;
  /** Defaults to the repository's `drizzle/`. */
  migrationsFolder?: string;
  /** Sees every query Drizzle sends (debugging, `scripts/bench-db.ts`). */
  logger?: Logger;
}

export interface PostgresConnection {
  readonly kind: 'postgres';
  readonly db: Database;
  readonly sql: postgres.Sql;
  /** Bounds the wait for a connection of this pool: pass it to `createDrizzleStore`. */
  readonly gate: ConnectionGate;
  /** The pool's connections to PostgreSQL: open now, opened and closed so far (metrics read them). */
  readonly connections: ConnectionCounts;
  /** Throws `SchemaBehindError` ('database schema is behind: run `make migrate`') when behind. */
  checkSchema(): Promise<void>;
  /** Ends the pool: waits up to 5 s for running queries, then closes the connections anyway. */
  close(): Promise<void>;
}

const DEFAULT_PIPELINE_DEPTH = 4;
/** How much longer than the statement timeout a connection may stay silent while a query waits. */
const ANSWER_GRACE_MS = 2000;

/** Reconnect delay in seconds after the `attempt`-th failure: doubles from 50 ms, capped at 1 s, jittered. */
function reconnectBackoff(attempt: number): number {
  return Math.min(1, 0.05 * 2 ** attempt) * (0.5 + Math.random() / 2);
}

/** The answer timeout in seconds, as the patched postgres.js takes it; null for none. */
function answerTimeoutSeconds(options: Pick<PostgresOptions, 'answerTimeoutMs' | 'statementTimeoutMs'>): number | null {
  const ms = options.answerTimeoutMs ?? (options.statementTimeoutMs > 0 ? options.statementTimeoutMs + ANSWER_GRACE_MS : 0);
  return ms > 0 ? ms / 1000 : null;
}

/**
 * Where and as whom to connect, from the URL read as libpq reads it (database-url.ts). postgres.js
 * is never handed the URL: it reads the query with URLSearchParams, where a "+" becomes a space,
 * and sends every parameter it does not know to the server as a setting.
 */
function targetOf(url: string) {
  const { connection, ...target } = postgresJsTarget(parseDatabaseUrl(url));
  // postgres.js takes lists of hosts and ports (its BaseOptions), though its Options type narrows them to one.
  return { target: target as unknown as Pick<postgres.Options<Record<string, never>>, 'host' | 'port' | 'database'>, connection };
}

function poolOptions(options: PostgresOptions, connections: ConnectionCounts): postgres.Options<Record<string, never>> {
  const { target, connection } = targetOf(options.url);
  const patched = { answer_timeout: answerTimeoutSeconds(options) } as Record<string, unknown>;
  // Documented by postgres.js (`socket`: a function returning the socket to use) but absent from its types.
  const socket = { socket: connections.socketFactory } as Record<string, unknown>;
  return {
    ...patched,
    ...socket,
    max: options.poolSize,
    connect_timeout: options.connectTimeoutSeconds,
    idle_timeout: options.idleTimeoutSeconds,
    ...(options.maxLifetime !== undefined ? { max_lifetime: options.maxLifetime } : {}),
    backoff: reconnectBackoff,
    onnotice: () => undefined,
    ...target,
    connection: {
      application_name: 'margin-cms',
      TimeZone: 'UTC',
      statement_timeout: options.statementTimeoutMs,
      ...connection,
    },
  };
}

/**
 * A postgres.js pool behind Drizzle. Connects lazily: nothing is sent before the first query (call
 * `checkSchema()` at start-up to find out early). Does not migrate: see `migratePostgres`.
 */
export async function openPostgres(options: PostgresOptions): Promise<PostgresConnection> {
  const connections = new ConnectionCounts();
  const sql = postgres(poolOptions(options, connections));
  const db = drizzle(sql, options.logger !== undefined ? { logger: options.logger } : {});
  const migrationsFolder = options.migrationsFolder ?? MIGRATIONS_FOLDER;
  return {
    kind: 'postgres',
    db,
    sql,
    gate: new ConnectionGate(options.poolSize, options.acquireTimeoutMs, options.pipelineDepth ?? DEFAULT_PIPELINE_DEPTH),
    connections,
    checkSchema: () => checkSchema(sql, migrationsFolder),
    close: () => sql.end({ timeout: 5 }),
  };
}

async function checkSchema(sql: postgres.Sql, migrationsFolder: string): Promise<void> {
  let latest: number | null;
  try {
    const rows = await sql<{ latest: string | null }[]>`
      select max(created_at)::text as latest from ${sql(MIGRATIONS_SCHEMA)}.${sql(MIGRATIONS_TABLE)}`;
    latest = rows[0]?.latest == null ? null : Number(rows[0].latest);
  } catch (error) {
    const code = pgErrorInfo(error)?.code;
    // 42P01 undefined_table, 3F000 invalid_schema_name: never migrated.
    if (code !== '42P01' && code !== '3F000') throw toDomainError(error);
    latest = null;
  }
  const journal = readJournal(migrationsFolder);
  const pending = pendingMigrations(journal, latest);
  if (pending.length > 0) throw new SchemaBehindError(pending.map((m) => m.tag));
  await checkRequirements(sql, journal);
}

const SCHEMA_UNKNOWN =
  'database schema is not one this server knows: it has no table schema_requirements (migration 0018) although every ' +
  'migration of this server is recorded as applied; it was migrated by another line of releases';

/** Throws `SchemaAheadError` when the database requires a migration `journal` lacks (see `schema_requirements`). */
async function checkRequirements(sql: postgres.Sql, journal: readonly JournalEntry[]): Promise<void> {
  let requirements: SchemaRequirement[];
  try {
    requirements = await sql<SchemaRequirement[]>`select migration, reason from schema_requirements order by migration`;
  } catch (error) {
    // 42P01 undefined_table with nothing pending: migrated by another line of releases than this build's.
    if (pgErrorInfo(error)?.code === '42P01') throw new Error(SCHEMA_UNKNOWN);
    throw toDomainError(error);
  }
  assertRequirementsKnown(requirements, journal);
}

/**
 * Applies pending migrations over one dedicated connection, holding an advisory lock so that two
 * deployers running it at once apply each migration once, then fills what SQL cannot (`backfillSearch`).
 */
export async function migratePostgres(
  url: string,
  options: { migrationsFolder?: string; connectTimeoutSeconds?: number } = {},
): Promise<void> {
  const { target, connection } = targetOf(url);
  const sql = postgres({
    ...target,
    max: 1,
    connect_timeout: options.connectTimeoutSeconds ?? 10,
    onnotice: () => undefined,
    connection: { application_name: 'margin-cms-migrate', TimeZone: 'UTC', ...connection },
  });
  try {
    await sql`select pg_advisory_lock(hashtext('margin-cms:migrate'))`;
    try {
      const db = drizzle(sql);
      await migrate(db, migrationConfig(options.migrationsFolder));
      // Nothing to apply to a database a newer release migrated: say so now, before this build writes to it.
      await checkRequirements(sql, readJournal(options.migrationsFolder));
      await backfillSearch(db);
    } finally {
      await sql`select pg_advisory_unlock(hashtext('margin-cms:migrate'))`;
    }
  } finally {
    await sql.end({ timeout: 5 });
  }
}
