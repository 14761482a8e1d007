import type { Store } from '../../../domain/index.js';
import type { HandlerRegistry } from '../registry.js';
import { activityHandlers } from './activity.js';
import { authHandlers } from './auth.js';
import { metaHandlers } from './meta.js';
import { postHandlers } from './posts.js';
import { revisionHandlers } from './revisions.js';
import { statsHandlers } from './stats.js';
import { tagHandlers } from './tags.js';

export interface HandlerDeps {
  store: Store;
}

/** Every operation's handler, one file per spec tag. A missing operationId fails `tsc` here. */
export function createHandlers(deps: HandlerDeps): HandlerRegistry {
  return {
    ...metaHandlers(deps.store),
    ...authHandlers(),
    ...postHandlers(),
    ...revisionHandlers(),
    ...tagHandlers(),
    ...activityHandlers(),
    ...statsHandlers(),
  };
}
