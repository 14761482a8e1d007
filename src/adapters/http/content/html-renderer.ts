import { Worker } from 'node:worker_threads';
import { LRUCache } from 'lru-cache';
import type { Media } from '../../../domain/media.js';
import { strongEtagOf } from './conditional.js';
import type { RenderMedia } from './markdown-html.js';
import type { RenderJob, RenderReply } from './markdown-worker.js';

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
 * to it are not marked off-site) and the media found for it (its cover and the body's images, see
 * `mediaKeyOf`), so that neither needs the HTML.
 */
export function htmlEtagsOf(
  post: { id: string; version: number },
  siteUrl: string,
  media: readonly Pick<RenderMedia, 'id'>[] = [],
): { rendered: string; unrendered: string } {
  const fixed = `${RENDERER_VERSION}\n${siteUrl}\n${post.id}\n${post.version}\n${mediaKeyOf(media)}`;
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
  /** How many bodies may wait for the worker; one more is answered null at once (32). */
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

/** How long a worker may stay idle before it is stopped, in ms. */
const IDLE_MS = 60_000;

/** What one render came to: the HTML, or why there is none (past the budget, threw, too many waiting). */
export type Outcome = { html: string } | { failed: 'timeout' | 'error' } | { failed: 'busy' };

interface Job {
  message: RenderJob;
  done: (outcome: Outcome) => void;
}

interface Running {
  /** Answers the job once; `stop` terminates the worker first (it ran past the budget). */
  finish: (outcome: Outcome, stop: boolean) => void;
}

interface StartedWorker {
  worker: Worker;
  /** Resolves once the worker listens; rejects when it fails or exits first. */
  ready: Promise<Worker>;
}

// The worker's file beside this one: markdown-worker.js in the bundle (scripts/build.mjs makes it
// an entry), markdown-worker.ts when running from source, where Node 20 needs tsx to load it.
const FROM_SOURCE = import.meta.url.endsWith('.ts');
const WORKER_URL = new URL(FROM_SOURCE ? './markdown-worker.ts' : './markdown-worker.js', import.meta.url);

function startWorker(): Worker {
  if (!FROM_SOURCE) return new Worker(WORKER_URL);
  const tsx = import.meta.resolve('tsx/esm/api');
  const boot = `import(${JSON.stringify(tsx)}).then(({ register }) => { register(); return import(${JSON.stringify(WORKER_URL.href)}); });`;
  return new Worker(boot, { eval: true });
}

/**
 * `renderMarkdown` for readers, never on the event loop and never twice for one post version:
 * bodies render one at a time in a worker thread, each within `budgetMs` (past it the worker is
 * terminated and a new one started for the next body), and the HTML is kept in an LRU cache by
 * `(post id, version)`, bounded by its size. Concurrent asks for the same version share one
 * render. A body that ran out of time (or threw) is remembered as null for `failureTtlMs`; a body
 * that found `maxWaiting` others waiting is null too, but not remembered.
 *
 * Why a worker: sanitize-html's parser (htmlparser2) unshifts every open element onto an array,
 * so a body of n unclosed tags costs O(n²): one large body can hold a core for seconds
 * (bench/NOTES.md).
 */
export class HtmlRenderer {
  readonly #siteUrl: string;
  readonly #budgetMs: number;
  readonly #maxWaiting: number;
  readonly #failureTtlMs: number;
  readonly #cache: LRUCache<string, Rendered, RenderInput>;
  readonly #waiting: Job[] = [];
  #running: Running | undefined;
  #worker: StartedWorker | undefined;
  #idle: NodeJS.Timeout | undefined;
  #nextId = 1;
  #closed = false;

  constructor(options: HtmlRendererOptions) {
    this.#siteUrl = options.siteUrl;
    this.#budgetMs = options.budgetMs ?? 2000;
    this.#maxWaiting = options.maxWaiting ?? 32;
    this.#failureTtlMs = options.failureTtlMs ?? 600_000;
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
   * The post's body as sanitised HTML, or null when it could not be rendered in time. `media` are
   * those its images link to that exist (see `renderMarkdown`); they are part of the cache's key
   * with the post's id and version (see `mediaKeyOf`), so a media deleted since renders again.
   */
  async html(post: RenderablePost, media: readonly RenderMedia[] = []): Promise<string | null> {
    const key = `${post.id}\u0000${post.version}\u0000${mediaKeyOf(media)}`;
    const rendered = await this.#cache.fetch(key, { context: { markdown: post.body, media } });
    return rendered?.html ?? null;
  }

  /**
   * Any body rendered as a post's would be, in the same worker, queue and budget, but neither
   * cached nor remembered when it fails: the editor's preview, a new body at every pause in typing.
   */
  preview(markdown: string, media: readonly RenderMedia[] = []): Promise<Outcome> {
    return this.#render({ markdown, media });
  }

  /** The budget one body may render within, in ms. */
  get budgetMs(): number {
    return this.#budgetMs;
  }

  /** Stops the worker; bodies still waiting are answered null. */
  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#idle);
    for (const job of this.#waiting.splice(0)) job.done({ failed: 'busy' });
    this.#running?.finish({ failed: 'busy' }, false);
    await this.#stopWorker();
  }

  #render({ markdown, media }: RenderInput): Promise<Outcome> {
    if (this.#closed || this.#waiting.length >= this.#maxWaiting) return Promise.resolve({ failed: 'busy' });
    return new Promise((resolve) => {
      const message: RenderJob = { id: this.#nextId++, markdown, siteUrl: this.#siteUrl, media: [...media] };
      this.#waiting.push({ message, done: resolve });
      this.#pump();
    });
  }

  /** Starts the next waiting job when none is running. */
  #pump(): void {
    if (this.#running !== undefined || this.#closed) return;
    clearTimeout(this.#idle);
    const job = this.#waiting.shift();
    if (job === undefined) {
      // A worker left idle for IDLE_MS is stopped: its heap holds the last body it rendered.
      this.#idle = setTimeout(() => void this.#stopWorker(), IDLE_MS).unref();
      return;
    }
    let timer: NodeJS.Timeout | undefined;
    let onMessage: ((reply: RenderReply) => void) | undefined;
    const running: Running = {
      finish: (outcome, stop) => {
        if (this.#running !== running) return;
        clearTimeout(timer);
        if (onMessage !== undefined) this.#worker?.worker.off('message', onMessage);
        this.#running = undefined;
        job.done(outcome);
        // A worker past its budget is stopped before the next job starts on a fresh one.
        void (stop ? this.#stopWorker() : Promise.resolve()).then(() => this.#pump());
      },
    };
    this.#running = running;
    const current = this.#startedWorker();
    current.ready.then(
      (worker) => {
        if (this.#running !== running) return;
        onMessage = (reply: RenderReply) => {
          if ('id' in reply && reply.id === job.message.id)
            running.finish('html' in reply ? { html: reply.html } : { failed: 'error' }, false);
        };
        worker.on('message', onMessage);
        timer = setTimeout(() => running.finish({ failed: 'timeout' }, true), this.#budgetMs);
        worker.postMessage(job.message);
      },
      () => running.finish({ failed: 'error' }, true),
    );
  }

  /** The worker, started when there is none; one that fails or exits fails its job and is forgotten. */
  #startedWorker(): StartedWorker {
    if (this.#worker !== undefined) return this.#worker;
    const worker = startWorker();
    worker.unref(); // an idle renderer never keeps the process alive
    const ready = new Promise<Worker>((resolve, reject) => {
      worker.on('message', (reply: RenderReply) => {
        if ('ready' in reply) resolve(worker);
      });
      const lost = (reason: unknown) => {
        reject(reason instanceof Error ? reason : new Error(`the render worker exited with ${String(reason)}`));
        if (this.#worker?.worker !== worker) return; // stopped on purpose
        this.#worker = undefined;
        this.#running?.finish({ failed: 'error' }, false);
      };
      worker.on('error', lost);
      worker.on('exit', lost);
    });
    this.#worker = { worker, ready };
    return this.#worker;
  }

  async #stopWorker(): Promise<void> {
    const current = this.#worker;
    this.#worker = undefined;
    if (current !== undefined) await current.worker.terminate();
  }
}
