import { describe } from 'vitest';
import { describeActivityLogContract } from './activity-log.contract.js';
import { describeBlobStoreContract } from './blob-store.contract.js';
import type { MakeStore } from './fixtures.js';
import { describeIdempotencyStoreContract } from './idempotency-store.contract.js';
import { describeLoginAttemptRepositoryContract } from './login-attempt-repository.contract.js';
import { describeMediaRepositoryContract } from './media-repository.contract.js';
import { describePostRepositoryContract } from './post-repository.contract.js';
import { describePreviewLinkRepositoryContract } from './preview-link-repository.contract.js';
import { describeRateLimitCounterContract } from './rate-limit-counter.contract.js';
import { describeRefreshTokenRepositoryContract } from './refresh-token-repository.contract.js';
import { describeRevisionRepositoryContract } from './revision-repository.contract.js';
import { describeUnitOfWorkContract } from './unit-of-work.contract.js';
import { describeUserRepositoryContract } from './user-repository.contract.js';
import { describeWebhookOutboxContract } from './webhook-outbox.contract.js';
import { describeWebhookRepositoryContract } from './webhook-repository.contract.js';

export type { MakeStore } from './fixtures.js';
export {
  describeActivityLogContract,
  describeBlobStoreContract,
  describeIdempotencyStoreContract,
  describeLoginAttemptRepositoryContract,
  describeMediaRepositoryContract,
  describePostRepositoryContract,
  describePreviewLinkRepositoryContract,
  describeRateLimitCounterContract,
  describeRefreshTokenRepositoryContract,
  describeRevisionRepositoryContract,
  describeUnitOfWorkContract,
  describeUserRepositoryContract,
  describeWebhookOutboxContract,
  describeWebhookRepositoryContract,
};

/**
 * Every port contract, run against one adapter. `make` returns a fresh, empty store for each test;
 * the suites close it afterwards. No skips: an adapter passes all of it or does not pass.
 */
export function describeStoreContract(adapterName: string, make: MakeStore): void {
  describe(`Store contract: ${adapterName}`, () => {
    describePostRepositoryContract(make);
    describeRevisionRepositoryContract(make);
    describeActivityLogContract(make);
    describeIdempotencyStoreContract(make);
    describeUserRepositoryContract(make);
    describeRefreshTokenRepositoryContract(make);
    describeLoginAttemptRepositoryContract(make);
    describeRateLimitCounterContract(make);
    describeUnitOfWorkContract(make);
    describeMediaRepositoryContract(make);
    describeBlobStoreContract(make);
    describeWebhookOutboxContract(make);
    describeWebhookRepositoryContract(make);
    describePreviewLinkRepositoryContract(make);
  });
}
