import type { Clock, IdGenerator, Store } from '../domain/index.js';
import { BulkPosts } from './bulk-posts.js';
import { History } from './history.js';
import { IdempotentRunner, type IdempotencyTimes } from './idempotent-runner.js';
import { PostQueries } from './post-queries.js';
import { PostWrites } from './post-writes.js';

export interface PostUseCases {
  writes: PostWrites;
  bulk: BulkPosts;
  queries: PostQueries;
}

/** The use cases on posts over one store, sharing one history writer and one idempotency runner. */
export function createPostUseCases(options: { store: Store; clock: Clock; ids: IdGenerator; idempotency: IdempotencyTimes }): PostUseCases {
  const { store, clock, ids } = options;
  const history = new History(ids, clock);
  const idempotent = new IdempotentRunner(store, clock, options.idempotency);
  return {
    writes: new PostWrites({ store, clock, ids, history, idempotent }),
    bulk: new BulkPosts({ store, clock, history, idempotent }),
    queries: new PostQueries(store, clock),
  };
}
