import { LRUCache } from 'lru-cache';
import type { Media } from '../../../domain/media.js';
import { strongEtagOf } from './conditional.js';
import type { RenderMedia } from './markdown-html.js';
import { defaultRenderWorkers, RenderPool, type Outcome } from './render-pool.js';

/**
 * The version of what `renderMarkdown` makes of a body: part of the ETag of an `include=html`
 * answer, so bump it whenever the same markdown renders differently (sanitising rules, plugins).
 */
const RENDERER_VERSION = 3;

/**
 * Which media a render saw: their ids, sorted. A media's files never change after its upload (only
 * its alt and caption do, which the HTML does not show), so the ids fix what the images render as;
 * a media deleted since is one id fewer, and renders as a plain image.
 */
function mediaKeyOf(media: readonly Pick<RenderMedia, 'id'>[]): string {
  return media
    .map((one) => one.id)
    .sort()
    .join(',');
}

/**
 * The ETags of a post's `include=html` answers, rendered and not (see `HtmlRenderer`): hashes of
 * what fixes their bytes, the post's id and version, `RENDERER_VERSION`, the site's address (links
 * to it are not marked off-site), the Content API's address (the cover's URLs start there) and the
 * media found for it (its cover and the body's images, see `mediaKeyOf`), so that neither needs the HTML.
 */
export function htmlEtagsOf(
  post: { id: string; version: number },
  siteUrl: string,
  media: readonly Pick<RenderMedia, 'id'>[] = [],
  contentApiUrl = '',
): { rendered: string; unrendered: string } {
  const fixed = `${RENDERER_VERSION}\n${siteUrl}\n${contentApiUrl}\n${post.id}\n${post.version}\n${mediaKeyOf(media)}`;
  return { rendered: strongEtagOf(`html\n${fixed}`), unrendered: strongEtagOf(`unrendered\n${fixed}`) };
}

/** What the renderer needs of a media: its id and its files' names, types and sizes (a small message to the worker). */
export function renderMediaOf(media: Pick<Media, 'id' | 'files'>): RenderMedia {
  return {
    id: media.id,
    files: media.files.map(({ name, contentType, width, height }) => ({ name, contentType, width, height })),
  };
}

/** A post as the renderer needs it: `(id, version)` names its body. */
export interface RenderablePost {
  id: string;
  version: number;
  body: string;
}

export interface HtmlRendererOptions {
  /** The site's address (PUBLIC_SITE_URL): links to another origin are marked off-site. */
  siteUrl: string;
  /** How long one body may render before its worker is stopped, in ms (2,000). */
  budgetMs?: number;
  /** How much rendered HTML the cache keeps, in UTF-16 code units (32 Mi, 64 MiB). */
  maxCachedChars?: number;
  /** How many workers render at once (`defaultRenderWorkers()`: 2 to 4, as the cores). */
  workers?: number;
  /** How many bodies may wait while every worker renders; one more is answered null at once (32). */
  maxWaiting?: number;
  /** How long a body that ran out of time is not tried again, in ms (10 minutes). */
  failureTtlMs?: number;
}

/** What one render is given: a body and the media its images link to. */
interface RenderInput {
  markdown: string;
  media: readonly RenderMedia[];
}

/** A body's HTML, or null when it cannot be rendered within the budget. */
type Rendered = { html: string | null };

/**
 * `renderMarkdown` for readers, never on the event loop and never twice for one post version:
 * bodies render in a pool of `workers` worker threads (`RenderPool`), each within `budgetMs` (past
 * it its worker is terminated and another started), so a body that runs to its budget holds up no
 * other while a worker is free; and the HTML is kept in an LRU cache by
 * `(post id, version)`, bounded by its size. Concurrent asks for the same version share one
 * render. A body that ran out of time, is past `RENDER_LIMITS` (or threw) is remembered as null for `failureTtlMs`; a body
 * that found `maxWaiting` others waiting is null too, but not remembered.
 *
 * Why a worker: sanitize-html's parser (htmlparser2) unshifts every open element onto an array,
 * so a body of n unclosed tags costs O(n²): one large body can hold a core for seconds
 * (bench/NOTES.md).
 */
export class HtmlRenderer {
  readonly #siteUrl: string;
  readonly #budgetMs: number;
  readonly #failureTtlMs: number;
  readonly #cache: LRUCache<string, Rendered, RenderInput>;
  readonly #pool: RenderPool;

  constructor(options: HtmlRendererOptions) {
    this.#siteUrl = options.siteUrl;
    this.#budgetMs = options.budgetMs ?? 2000;
    this.#failureTtlMs = options.failureTtlMs ?? 600_000;
    this.#pool = new RenderPool({
      workers: options.workers ?? defaultRenderWorkers(),
      budgetMs: this.#budgetMs,
      maxWaiting: options.maxWaiting ?? 32,
    });
    this.#cache = new LRUCache<string, Rendered, RenderInput>({
      maxSize: options.maxCachedChars ?? 32 * 1024 * 1024,
      sizeCalculation: (rendered, key) => key.length + (rendered.html?.length ?? 0) || 1,
      fetchMethod: async (_key, _stale, { context, options: set }) => {
        const outcome = await this.#render(context);
        if ('html' in outcome) return { html: outcome.html };
        if (outcome.failed === 'busy') return undefined;
        set.ttl = this.#failureTtlMs;
        return { html: null };
      },
    });
  }

  /**
   * The post's body as sanitised HTML, or null when it could not be rendered in time or is past
   * `RENDER_LIMITS` (remembered as such for `failureTtlMs`). `media` are
   * those its images link to that exist (see `renderMarkdown`); they are part of the cache's key
   * with the post's id and version (see `mediaKeyOf`), so a media deleted since renders again.
   */
  async html(post: RenderablePost, media: readonly RenderMedia[] = []): Promise<string | null> {
    const key = `${post.id}\u0000${post.version}\u0000${mediaKeyOf(media)}`;
    const rendered = await this.#cache.fetch(key, { context: { markdown: post.body, media } });
    return rendered?.html ?? null;
  }

  /**
   * Any body rendered as a post's would be, in the same workers, queue and budget, but neither
   * cached nor remembered when it fails: the editor's preview, a new body at every pause in typing.
   */
  preview(markdown: string, media: readonly RenderMedia[] = []): Promise<Outcome> {
    return this.#render({ markdown, media });
  }

  /** The budget one body may render within, in ms. */
  get budgetMs(): number {
    return this.#budgetMs;
  }

  /** Stops the workers; bodies still rendering or waiting are answered null. */
  close(): Promise<void> {
    return this.#pool.close();
  }

  #render({ markdown, media }: RenderInput): Promise<Outcome> {
    return this.#pool.render({ markdown, siteUrl: this.#siteUrl, media: [...media] });
  }
}
