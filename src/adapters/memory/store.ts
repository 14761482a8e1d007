import { UnavailableError } from '../../domain/errors.js';
import type { Store } from '../../domain/ports/store.js';
import { MemoryBlobStore } from './blob-store.js';
import { MemoryMediaRepository } from './media-repository.js';
import { MemoryPreviewLinkRepository } from './preview-link-repository.js';
import { MemoryDatabase } from './state.js';
import { MemoryUnitOfWork, transactionalRepositories } from './unit-of-work.js';
import { MemoryUserRepository } from './user-repository.js';
import { MemoryWebhookRepository } from './webhook-repository.js';

/** A store that keeps everything in process memory, empty at start. For tests and demos. */
export function createMemoryStore(): Store {
  const db = new MemoryDatabase();
  let closed = false;
  return {
    kind: 'memory',
    ...transactionalRepositories(db.autoCommit),
    users: new MemoryUserRepository(db.autoCommit),
    unitOfWork: new MemoryUnitOfWork(db),
    media: new MemoryMediaRepository(db),
    blobs: new MemoryBlobStore(db),
    webhooks: new MemoryWebhookRepository(db),
    previewLinks: new MemoryPreviewLinkRepository(db),
    async ping() {
      if (closed) throw new UnavailableError(1, 'The memory store is closed.');
    },
    async close() {
      closed = true;
      db.close();
    },
  };
}
