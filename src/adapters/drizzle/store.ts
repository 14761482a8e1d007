import { sql } from 'drizzle-orm';
import { UnavailableError } from '../../domain/errors.js';
import type { Store } from '../../domain/ports/store.js';
import type { ConnectionGate } from './driver/connection-gate.js';
import { DbSession, withConnection, type Database, type DrizzleKind, type StoreState } from './driver/database.js';
import { domainErrorFor, UNAVAILABLE_RETRY_AFTER_SECONDS } from './driver/pg-errors.js';
import { DrizzleBlobStore } from './repositories/blob-store.js';
import { DrizzleMediaRepository } from './repositories/media-repository.js';
import { DrizzlePreviewLinkRepository } from './repositories/preview-link-repository.js';
import { DrizzleUnitOfWork, transactionalRepositories } from './repositories/unit-of-work.js';
import { DrizzleUserRepository } from './repositories/user-repository.js';
import { DrizzleWebhookRepository } from './repositories/webhook-repository.js';

export interface DrizzleStoreOptions {
  /**
   * Releases the connection(s) behind `db`. Defaults to closing `db.$client` (`end()` for a
   * postgres.js pool, `close()` for PGlite); tests sharing one database pass a no-op.
   */
  close?: () => Promise<void>;
}

interface PostgresStoreOptions extends DrizzleStoreOptions {
  /** Bounds the wait for a pool connection: `PostgresConnection.gate`. */
  gate: ConnectionGate;
}

async function closeClient(db: Database): Promise<void> {
  const client = (db as { $client?: { end?: () => Promise<void>; close?: () => Promise<void> } }).$client;
  if (typeof client?.end === 'function') await client.end();
  else if (typeof client?.close === 'function') await client.close();
}

/**
 * A `Store` over a migrated database opened by `openPglite` or `openPostgres`. A PostgreSQL store
 * takes its pool's gate, always: `storeOver` (open-store.ts) builds it from the connection.
 */
export function createDrizzleStore(db: Database, kind: 'pglite', options?: DrizzleStoreOptions): Store;
export function createDrizzleStore(db: Database, kind: 'postgres', options: PostgresStoreOptions): Store;
export function createDrizzleStore(db: Database, kind: DrizzleKind, options: DrizzleStoreOptions & { gate?: ConnectionGate } = {}): Store {
  const state: StoreState = { closed: false, ...(options.gate !== undefined ? { gate: options.gate } : {}) };
  const session = new DbSession(db, false, state);
  const close = options.close ?? (() => closeClient(db));
  return {
    kind,
    ...transactionalRepositories(session),
    users: new DrizzleUserRepository(session),
    unitOfWork: new DrizzleUnitOfWork(db, state),
    media: new DrizzleMediaRepository(session),
    blobs: new DrizzleBlobStore(session),
    webhooks: new DrizzleWebhookRepository(session),
    previewLinks: new DrizzlePreviewLinkRepository(session),
    async ping() {
      try {
        await withConnection(state, () => db.execute(sql`select 1`));
      } catch (error) {
        if (error instanceof UnavailableError) throw error;
        const mapped = domainErrorFor(error);
        throw mapped instanceof UnavailableError
          ? mapped
          : new UnavailableError(UNAVAILABLE_RETRY_AFTER_SECONDS, undefined, { cause: error });
      }
    },
    async close() {
      if (state.closed) return;
      state.closed = true;
      await close();
    },
  };
}
