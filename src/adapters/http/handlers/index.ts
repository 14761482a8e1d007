import type { Clock, Store } from '../../../domain/index.js';
import type { AuthService } from '../../../app/auth-service.js';
import type { MediaDeps } from '../../../app/media.js';
import type { PostUseCases } from '../../../app/post-use-cases.js';
import { previewPost, type PreviewLinkDeps } from '../../../app/preview-links.js';
import type { WebhookDeps } from '../../../app/webhooks.js';
import { HtmlRenderer } from '../content/html-renderer.js';
import type { HandlerRegistry } from '../registry.js';
import { activityHandlers } from './activity.js';
import { authHandlers } from './auth.js';
import { contentApiUrlOf, contentHandlers, type ContentSite } from './content.js';
import { mediaHandlers } from './media.js';
import { metaHandlers, type ReadinessCheck } from './meta.js';
import { postHandlers } from './posts.js';
import { previewHandlers } from './preview.js';
import { previewLinkHandlers } from './preview-links.js';
import { revisionHandlers } from './revisions.js';
import { siteHandlers, siteInfoHandlers, type SiteImportDeps } from './site.js';
import { statsHandlers } from './stats.js';
import { tagHandlers } from './tags.js';
import { webhookHandlers } from './webhooks.js';

export interface HandlerDeps {
  store: Store;
  auth: AuthService;
  posts: PostUseCases;
  /** The media library's use cases' ports (files public under the Content API's address + `/media`). */
  media: MediaDeps;
  readiness?: ReadinessCheck;
  content: ContentSite;
  clock: Clock;
  imports: SiteImportDeps;
  /** The webhook subscriptions' use cases' ports. */
  webhooks: WebhookDeps;
  /** The preview links' use cases' ports (the previews public under the Content API's address + `/preview`). */
  previewLinks: PreviewLinkDeps;
  /** The preview's renderer; by default one of its own (see `createHandlers`). */
  previewRenderer?: HtmlRenderer;
  /** Where a new preview link sends a reviewer, with `{token}` (PREVIEW_URL_TEMPLATE); null or absent: the Content API's page. */
  previewUrlTemplate?: string | null;
}

/**
 * How many previews may wait for the preview's worker. An author's editor asks for one at each
 * pause in typing; past this the preview answers 503 with Retry-After, and readers never notice.
 */
const PREVIEW_MAX_WAITING = 4;

/** Every operation's handler, one file per spec tag. A missing operationId fails `tsc` here. */
export function createHandlers(deps: HandlerDeps): HandlerRegistry {
  const siteUrl = deps.content.site.siteUrl;
  const contentApiUrl = contentApiUrlOf(deps.content.apiUrl);
  const renderer = deps.content.renderer ?? new HtmlRenderer({ siteUrl });
  // The same code, site and budget as the readers' renderer, so the same HTML, but a worker and a
  // queue of its own: previews (never cached, one per pause in typing, any body an author sends)
  // must not make readers wait or go without their HTML. One worker: previews come from signed-in
  // authors, a few at a time, and need not take more cores from readers.
  const previewRenderer = deps.previewRenderer ?? new HtmlRenderer({ siteUrl, workers: 1, maxWaiting: PREVIEW_MAX_WAITING });
  return {
    ...metaHandlers(deps.store, deps.readiness),
    ...authHandlers(deps.auth),
    ...postHandlers(deps.posts),
    ...revisionHandlers(deps.posts),
    ...siteHandlers(deps.posts, deps.clock, deps.imports, { deps: deps.media, filesUrl: (request) => `${contentApiUrl(request)}/media` }),
    ...siteInfoHandlers(deps.content.site),
    ...tagHandlers(deps.posts.queries),
    ...activityHandlers(deps.posts.queries),
    ...statsHandlers(deps.posts.queries),
    ...previewHandlers(previewRenderer, deps.posts.content),
    ...contentHandlers(
      deps.posts.content,
      { ...deps.content, renderer },
      { post: (token) => previewPost(deps.previewLinks, token), now: () => deps.clock.now() },
    ),
    ...previewLinkHandlers(deps.previewLinks, (request) => `${contentApiUrl(request)}/preview`, deps.previewUrlTemplate ?? null),
    ...mediaHandlers(deps.media, deps.posts.writes, (request) => `${contentApiUrl(request)}/media`),
    ...webhookHandlers(deps.webhooks),
  };
}
