/**
 * The worker thread `HtmlRenderer` renders in: `{ id, markdown, siteUrl }` in, `{ id, html }` (or
 * `{ id, error }`) out, one at a time; `{ ready: true }` once it listens, so that the renderer's
 * time budget does not count the worker's start.
 */
import { parentPort } from 'node:worker_threads';
import { renderMarkdown } from './markdown-html.js';

export interface RenderJob {
  id: number;
  markdown: string;
  siteUrl: string;
}

export type RenderReply = { ready: true } | { id: number; html: string } | { id: number; error: string };

const port = parentPort;
if (port !== null) {
  port.on('message', ({ id, markdown, siteUrl }: RenderJob) => {
    let reply: RenderReply;
    try {
      reply = { id, html: renderMarkdown(markdown, siteUrl) };
    } catch (error) {
      reply = { id, error: error instanceof Error ? error.message : String(error) };
    }
    port.postMessage(reply);
  });
  port.postMessage({ ready: true } satisfies RenderReply);
}
