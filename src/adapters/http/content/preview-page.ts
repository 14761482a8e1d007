import { createHash } from 'node:crypto';
import type { components } from '../../../../generated/api.js';
import type { PostStatus } from '../../../domain/index.js';

type CoverImage = components['schemas']['ContentCoverImage'];

/**
 * The preview as a page a reviewer reads in a browser (getContentPreview with `Accept: text/html`):
 * self-contained (one inline stylesheet, allowed by its hash; no script, no font or file of
 * another site), semantic (`main`, `article`, `h1`, `time`), light and dark, never indexed.
 */

/** What the page shows of a post: its fields as the Content API gives them, and its status. */
export interface PreviewPageInput {
  title: string;
  status: PostStatus;
  /** When a scheduled draft publishes itself, else null. */
  publishAt: Date | null;
  /** The date the post shows: its first publication, else its `publishAt`, else now (as the JSON's `publishedAt`). */
  shownDate: Date;
  tags: readonly string[];
  wordCount: number;
  coverImage: CoverImage | null;
  /** The body rendered and sanitised by `HtmlRenderer`; null when it could not be (then `markdown` is shown). */
  html: string | null;
  markdown: string;
  siteTitle: string;
}

// Nothing scrolls inside the page (long code lines and table cells wrap): a scrolling box would
// need a keyboard stop the renderer's HTML does not give it.
const STYLE = `:root{color-scheme:light dark;--fg:#1f2328;--muted:#57606a;--bg:#fff;--line:#d0d7de;--note:#fff8c5;--link:#0969da;--code:#f6f8fa}
@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--muted:#9da7b3;--bg:#0d1117;--line:#30363d;--note:#3b2e00;--link:#4493f8;--code:#161b22}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:1.125rem/1.65 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans",sans-serif}
.note{margin:0;padding:.75rem 1.25rem;background:var(--note);border-bottom:1px solid var(--line);font-size:.95rem}
.site{max-width:42rem;margin:1.5rem auto 0;padding:0 1.25rem;color:var(--muted);font-size:.95rem}
main{max-width:42rem;margin:0 auto;padding:1rem 1.25rem 4rem}
h1{font-size:2.25rem;line-height:1.2;margin:.5rem 0}
.meta{color:var(--muted);margin:0 0 1.5rem}
.cover{margin:0 0 2rem}
img{max-width:100%;height:auto}
a{color:var(--link)}
pre,code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.9em}
pre{background:var(--code);padding:1rem;border-radius:6px;white-space:pre-wrap;overflow-wrap:anywhere}
:not(pre)>code{background:var(--code);padding:.1em .3em;border-radius:4px}
blockquote{margin:0;padding-left:1rem;border-left:4px solid var(--line);color:var(--muted)}
table{border-collapse:collapse}
th,td{border:1px solid var(--line);padding:.3rem .6rem;overflow-wrap:anywhere}
.tags{display:flex;flex-wrap:wrap;gap:.5rem;list-style:none;padding:0;margin:2.5rem 0 0;color:var(--muted)}
.tags li{border:1px solid var(--line);border-radius:999px;padding:0 .6rem;font-size:.9rem}`;

/** The stylesheet's CSP source: the page allows this one inline stylesheet and no other style. */
const STYLE_SOURCE = `'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`;

/**
 * The CSP of the preview's pages: nothing but their own stylesheet (by hash) and images, from
 * `mediaOrigin` (this API's media files, whose URLs are absolute) and over HTTPS (a body's images
 * elsewhere, as readers of the published post will see them), and `data:` for the page's empty
 * icon (else the browser asks /favicon.ico; the renderer lets no `data:` image into a body). No
 * script, frame, form or `<base>`.
 */
export function previewPageCsp(mediaOrigin: string): string {
  return [
    "default-src 'none'",
    `style-src ${STYLE_SOURCE}`,
    `img-src ${mediaOrigin} https: data:`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text made safe in an element or a quoted attribute. */
function escape(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ENTITIES[c]!);
}

const LONG_DATE = new Intl.DateTimeFormat('en', { dateStyle: 'long', timeZone: 'UTC' });
const DATE_TIME = new Intl.DateTimeFormat('en', { dateStyle: 'long', timeStyle: 'short', timeZone: 'UTC' });

/** What the banner says the post is. */
function statusNote(input: PreviewPageInput): string {
  const who = 'Only people with this link can see this preview.';
  switch (input.status) {
    case 'published':
      return `Preview of a published post, as it is now. ${who}`;
    case 'archived':
      return `Preview of an archived post: readers no longer see it. ${who}`;
    default:
      return input.publishAt === null
        ? `Preview of a draft: not published. ${who}`
        : `Preview of a draft scheduled for ${escape(DATE_TIME.format(input.publishAt))} UTC. ${who}`;
  }
}

/** The cover as a figure: the original, its same-type variants as a `srcset`, and the post's alt text. */
function coverFigure(cover: CoverImage | null): string {
  if (cover === null) return '';
  const sameType = cover.variants.filter((variant) => variant.contentType === cover.contentType);
  const srcset = [...sameType.map((v) => `${v.url} ${v.width}w`), `${cover.url} ${cover.width}w`].join(', ');
  return (
    `<figure class="cover"><img src="${escape(cover.url)}" srcset="${escape(srcset)}" sizes="(min-width: 44rem) 42rem, 100vw"` +
    ` width="${cover.width}" height="${cover.height}" alt="${escape(cover.alt)}"></figure>`
  );
}

/** The page's frame around `main`. */
function page(title: string, siteTitle: string, note: string, main: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<meta name="referrer" content="no-referrer">
<link rel="icon" href="data:,">
<title>${escape(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<header>
<p class="note" role="note">${note}</p>
<p class="site">${escape(siteTitle)}</p>
</header>
<main>
${main}
</main>
</body>
</html>
`;
}

/** The preview of a post as a whole page. */
export function previewPage(input: PreviewPageInput): string {
  const minutes = Math.max(1, Math.round(input.wordCount / 230));
  const tags =
    input.tags.length === 0 ? '' : `<ul class="tags" aria-label="Tags">${input.tags.map((t) => `<li>${escape(t)}</li>`).join('')}</ul>`;
  const body =
    input.html === null
      ? `<p><em>The body could not be rendered in time; here is its markdown.</em></p><pre>${escape(input.markdown)}</pre>`
      : input.html;
  const article = `<article>
<header>
<h1>${escape(input.title)}</h1>
<p class="meta"><time datetime="${input.shownDate.toISOString()}">${escape(LONG_DATE.format(input.shownDate))}</time> · ${minutes} min read</p>
</header>
${coverFigure(input.coverImage)}
<div class="body">
${body}
</div>
${tags}
</article>`;
  return page(`Preview: ${input.title} · ${input.siteTitle}`, input.siteTitle, statusNote(input), article);
}

/** The page of a link that shows nothing (unknown, expired, revoked, or its post deleted): one page for all. */
export function previewGonePage(siteTitle: string): string {
  const main = `<h1>This preview link does not work</h1>
<p>It may have expired or been revoked, or the post was deleted. Ask whoever sent it for a new link.</p>`;
  return page(`Preview not found · ${siteTitle}`, siteTitle, 'Preview links work for a limited time.', main);
}
