import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { NodeFS } from '@electric-sql/pglite/nodefs';
import { drizzle } from 'drizzle-orm/pglite';
import { migrate } from 'drizzle-orm/pglite/migrator';
import type { Database } from './database.js';
import { assertRequirementsKnown, migrationConfig, readJournal } from '../schema/migrations.js';
import { schemaRequirements } from '../schema/schema.js';
import { backfillSearch } from '../schema/search-backfill.js';
import { lockDataDir, type DataDirLock } from './data-dir-lock.js';
import { makePrivateDir, makePrivateTree } from './private-files.js';

export interface PgliteOptions {
  /**
   * Directory holding the database files (created if missing); absent or `undefined`: in memory.
   * It and every folder in it are kept 0700, every file 0600 (see `PrivateNodeFS`).
   */
  dataDir?: string | undefined;
  /** Defaults to the repository's `drizzle/`. */
  migrationsFolder?: string;
}

export interface PgliteConnection {
  readonly kind: 'pglite';
  readonly db: Database;
  readonly client: PGlite;
  /** Closes PGlite (flushing it to `dataDir`), then releases the data directory's lock. */
  close(): Promise<void>;
}

/**
 * Opens an embedded PGlite (with pg_trgm) and applies pending migrations; a folder that a newer
 * release migrated, requiring a migration this build lacks, is refused (`SchemaAheadError`). One process at a time
 * may open a given `dataDir`: it is locked first (`lockDataDir`), a DataDirInUseError naming the
 * holder when another live process has it, and released by `close` (a killed process leaves a
 * lock the next open takes over). In memory, nothing is locked.
 */
export async function openPglite(options: PgliteOptions = {}): Promise<PgliteConnection> {
  let lock: DataDirLock | null = null;
  if (options.dataDir !== undefined) {
    makePrivateDir(options.dataDir);
    lock = await lockDataDir(options.dataDir);
  }
  try {
    return await openLocked(options, () => lock?.release());
  } catch (error) {
    lock?.release();
    throw error;
  }
}

async function openLocked(options: PgliteOptions, unlock: () => void): Promise<PgliteConnection> {
  // Files an earlier version left readable by others.
  if (options.dataDir !== undefined) makePrivateTree(options.dataDir);
  const client = await PGlite.create({
    ...(options.dataDir !== undefined ? { fs: new PrivateNodeFS(options.dataDir) } : {}),
    extensions: { pg_trgm },
  });
  try {
    await client.exec(`SET TIME ZONE 'UTC'`);
    const db = drizzle(client);
    await migrate(db, migrationConfig(options.migrationsFolder));
    // A data folder a newer release migrated: refused (SchemaAheadError) before this build writes to it.
    const requirements = await db.select().from(schemaRequirements).orderBy(schemaRequirements.migration);
    assertRequirementsKnown(requirements, readJournal(options.migrationsFolder));
    await backfillSearch(db);
    return {
      kind: 'pglite',
      db,
      client,
      close: async () => {
        try {
          await client.close();
        } finally {
          unlock();
        }
      },
    };
  } catch (error) {
    await client.close().catch(() => undefined);
    throw error;
  }
}

/** The part of Emscripten's NODEFS (the file system PGlite mounts on a host folder) that sets modes. */
interface NodeFsInternals {
  node_ops: { mknod: (parent: unknown, name: string, mode: number, dev: number) => unknown };
  doSetAttr: (
    target: unknown,
    node: unknown,
    attributes: { mode?: number },
    chmod: (target: unknown, mode: number) => void,
    ...rest: unknown[]
  ) => void;
}

/**
 * PGlite's NodeFS with the group and other bits taken off every mode it sets. Emscripten's NODEFS
 * creates a file and then chmods it to the mode PostgreSQL asked for (0666 in the WASM build), so
 * a umask alone does not help; here `mknod` (create) and `doSetAttr` (chmod) are wrapped on this
 * instance's module, before anything is mounted: folders are created 0700, files 0600.
 */
class PrivateNodeFS extends NodeFS {
  override async init(...args: Parameters<NodeFS['init']>): ReturnType<NodeFS['init']> {
    const { emscriptenOpts } = await super.init(...args);
    const keepPrivate = (module: { NODEFS: unknown }): void => {
      const nodefs = module.NODEFS as NodeFsInternals;
      if (typeof nodefs.node_ops?.mknod !== 'function' || typeof nodefs.doSetAttr !== 'function') {
        throw new Error('PGlite: NODEFS has no mknod or doSetAttr to keep the data directory private (PGlite upgraded?)');
      }
      const mknod = nodefs.node_ops.mknod.bind(nodefs.node_ops);
      nodefs.node_ops.mknod = (parent, name, mode, dev) => mknod(parent, name, mode & ~0o077, dev);
      const doSetAttr = nodefs.doSetAttr.bind(nodefs);
      nodefs.doSetAttr = (target, node, attributes, chmod, ...rest) =>
        doSetAttr(target, node, attributes, (path, mode) => chmod(path, mode & ~0o077), ...rest);
    };
    return { emscriptenOpts: { ...emscriptenOpts, preRun: [keepPrivate, ...(emscriptenOpts.preRun ?? [])] } };
  }
}
