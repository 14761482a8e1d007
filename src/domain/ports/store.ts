import type { BlobStore, MediaRepository } from './media-repository.js';
import type { PreviewLinkRepository } from './preview-link-repository.js';
import type { TransactionalRepositories, UnitOfWork } from './unit-of-work.js';
import type { UserRepository } from './user-repository.js';
import type { WebhookRepository } from './webhook-repository.js';

/**
 * Everything the application persists, as one adapter provides it. The repositories used outside
 * `unitOfWork.run` auto-commit each call.
 */
export interface Store extends TransactionalRepositories {
  readonly kind: 'memory' | 'pglite' | 'postgres';
  users: UserRepository;
  unitOfWork: UnitOfWork;
  /** The media library's records and their files' bytes: auto-commit only, outside `unitOfWork`. */
  media: MediaRepository;
  blobs: BlobStore;
  /** Webhook subscriptions and their deliveries (filled by the post writes): auto-commit only. */
  webhooks: WebhookRepository;
  /** Preview links of posts: auto-commit only. */
  previewLinks: PreviewLinkRepository;
  /** Resolves when the store answers a trivial query; throws `UnavailableError` otherwise. */
  ping(): Promise<void>;
  /** Releases connections; the store is unusable afterwards. */
  close(): Promise<void>;
}
