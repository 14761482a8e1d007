import type { Clock, Store } from '../../../domain/index.js';
import type { AuthService } from '../../../app/auth-service.js';
import type { PostUseCases } from '../../../app/post-use-cases.js';
import { HtmlRenderer } from '../content/html-renderer.js';
import type { HandlerRegistry } from '../registry.js';
import { activityHandlers } from './activity.js';
import { authHandlers } from './auth.js';
import { contentHandlers, type ContentSite } from './content.js';
import { metaHandlers, type ReadinessCheck } from './meta.js';
import { postHandlers } from './posts.js';
import { previewHandlers } from './preview.js';
import { revisionHandlers } from './revisions.js';
import { siteHandlers, type SiteImportDeps } from './site.js';
import { statsHandlers } from './stats.js';
import { tagHandlers } from './tags.js';

export interface HandlerDeps {
  store: Store;
  auth: AuthService;
  posts: PostUseCases;
  readiness?: ReadinessCheck;
  content: ContentSite;
  clock: Clock;
  imports: SiteImportDeps;
}

/** Every operation's handler, one file per spec tag. A missing operationId fails `tsc` here. */
export function createHandlers(deps: HandlerDeps): HandlerRegistry {
  // One renderer for readers and the editor's preview: the same HTML, one worker, one budget.
  const renderer = deps.content.renderer ?? new HtmlRenderer({ siteUrl: deps.content.site.siteUrl });
  return {
    ...metaHandlers(deps.store, deps.readiness),
    ...authHandlers(deps.auth),
    ...postHandlers(deps.posts),
    ...revisionHandlers(deps.posts),
    ...siteHandlers(deps.posts, deps.clock, deps.imports),
    ...tagHandlers(deps.posts.queries),
    ...activityHandlers(deps.posts.queries),
    ...statsHandlers(deps.posts.queries),
    ...previewHandlers(renderer),
    ...contentHandlers(deps.posts.content, { ...deps.content, renderer }),
  };
}
