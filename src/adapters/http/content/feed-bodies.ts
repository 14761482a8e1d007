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
 * the renderer gives each body its own budget, one after the other, so without a deadline of
 * their own a feed of slow bodies would wait for the sum. Renders still running at the deadline
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
