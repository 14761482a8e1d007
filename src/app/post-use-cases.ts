import type { Clock, IdGenerator, Store } from '../domain/index.js';
import { BulkPosts } from './bulk-posts.js';
import { ContentQueries } from './content-queries.js';
import { History } from './history.js';
import { IdempotentRunner, type IdempotencyTimes } from './idempotent-runner.js';
import { PostQueries } from './post-queries.js';
import { PostWrites } from './post-writes.js';
import { ScheduledPublishing } from './scheduled-publishing.js';
import { SiteImport } from './site-import.js';

export interface PostUseCases {
  writes: PostWrites;
  bulk: BulkPosts;
  queries: PostQueries;
  /** What readers may see (the Content API). */
  content: ContentQueries;
  scheduled: ScheduledPublishing;
  /** Whole-site import from markdown files. */
  imports: SiteImport;
}

/** The use cases on posts over one store, sharing one history writer and one idempotency runner. */
export function createPostUseCases(options: {
  store: Store;
  clock: Clock;
  ids: IdGenerator;
  idempotency: IdempotencyTimes;
  /** Scheduled posts published per transaction (default 100). */
  publishBatchSize?: number;
}): PostUseCases {
  const { store, clock, ids } = options;
  const history = new History(ids, clock);
  const idempotent = new IdempotentRunner(store, clock, options.idempotency);
  return {
    writes: new PostWrites({ store, clock, ids, history, idempotent }),
    bulk: new BulkPosts({ store, clock, history, idempotent }),
    queries: new PostQueries(store, clock),
    content: new ContentQueries(store, clock),
    imports: new SiteImport({ store, clock, history, newId: () => ids.next() }),
    scheduled: new ScheduledPublishing({ unitOfWork: store.unitOfWork, clock, history, batchSize: options.publishBatchSize ?? 100 }),
  };
}
