import { LRUCache } from 'lru-cache';
import { strongEtagOf } from './conditional.js';
import type { HtmlRenderer, RenderablePost } from './html-renderer.js';
import type { RenderMedia } from './markdown-html.js';

/** A feed entry's body to render, with the media its cover and images name that exist (as `include=html` looks them up). */
export interface FeedBody {
  post: RenderablePost;
  media: readonly RenderMedia[];
}

/** How many of a feed's bodies are asked of the renderer at once: the rest wait here, not in its queue. */
const RENDERS_AT_ONCE = 4;

/**
 * The feed's bodies as `renderer` renders them for `include=html` (through its cache, so an
 * unchanged post renders once for both), `RENDERS_AT_ONCE` at a time, in the order given; null for
 * a body the renderer could not render in time, and for every body not rendered by `deadlineMs`:
 * the renderer gives each body its own budget, a few workers at a time, so without a deadline of
 * their own a feed of slow bodies would wait for several budgets in a row. Renders still running at the deadline
 * go on and fill the cache for the next request.
 */
export async function renderFeedBodies(
  renderer: Pick<HtmlRenderer, 'html'>,
  bodies: readonly FeedBody[],
  deadlineMs: number,
): Promise<(string | null)[]> {
  const rendered: (string | null)[] = bodies.map(() => null);
  let next = 0;
  let late = false;
  const renderNext = async (): Promise<void> => {
    while (!late && next < bodies.length) {
      const index = next++;
      const { post, media } = bodies[index]!;
      const html = await renderer.html(post, media).catch(() => null);
      if (!late) rendered[index] = html;
    }
  };
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, deadlineMs);
  });
  const lanes = Array.from({ length: Math.min(RENDERS_AT_ONCE, bodies.length) }, renderNext);
  await Promise.race([Promise.all(lanes), deadline]);
  late = true;
  clearTimeout(timer);
  return rendered;
}

/** A feed as written: its XML and the strong ETag of its bytes. */
export interface WrittenFeed {
  xml: string;
  etag: string;
}

/** How much XML the feed cache keeps, in UTF-16 code units (8 Mi, 16 MiB): a few hundred feeds of 20 short posts, a few of long ones. */
const FEED_CACHE_CHARS = 8 * 1024 * 1024;

/**
 * The feeds written lately, each by a key naming everything that fixes its bytes (the caller's:
 * its format, tag and date, and for each entry what fixes its post and rendered body, as
 * `htmlEtagsOf` does): a feed read again while nothing in it changed is not written again, and
 * its ETag not hashed again. An LRU cache bounded by the size of its XML.
 */
export class FeedCache {
  readonly #written = new LRUCache<string, WrittenFeed>({
    maxSize: FEED_CACHE_CHARS,
    sizeCalculation: (feed, key) => feed.xml.length + key.length,
  });

  /** The feed under `key`, written with `write` when the cache has none. */
  written(key: string, write: () => string): WrittenFeed {
    const cached = this.#written.get(key);
    if (cached !== undefined) return cached;
    const xml = write();
    const feed = { xml, etag: strongEtagOf(xml) };
    this.#written.set(key, feed);
    return feed;
  }
}
