/**
 * The worker thread `HtmlRenderer` renders in: `{ id, markdown, siteUrl, media }` in, `{ id, html }` (or
 * `{ id, refused }` for a body past `RENDER_LIMITS`, `{ id, error }` when it threw) out, one at a
 * time; `{ ready: true }` once it listens, so that the renderer's time budget does not count the
 * worker's start.
 */
import { parentPort } from 'node:worker_threads';
import { RenderRefused, renderMarkdown, type RenderMedia } from './markdown-html.js';

export interface RenderJob {
  id: number;
  markdown: string;
  siteUrl: string;
  /** The media the body's images link to, looked up before: the worker reads no store. */
  media: RenderMedia[];
}

export type RenderReply = { ready: true } | { id: number; html: string } | { id: number; refused: string } | { id: number; error: string };

const port = parentPort;
if (port !== null) {
  port.on('message', ({ id, markdown, siteUrl, media }: RenderJob) => {
    let reply: RenderReply;
    try {
      reply = { id, html: renderMarkdown(markdown, siteUrl, media) };
    } catch (error) {
      if (error instanceof RenderRefused) reply = { id, refused: error.message };
      else reply = { id, error: error instanceof Error ? error.message : String(error) };
    }
    port.postMessage(reply);
  });
  port.postMessage({ ready: true } satisfies RenderReply);
}
