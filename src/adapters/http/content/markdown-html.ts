import MarkdownIt from 'markdown-it';
import type Token from 'markdown-it/lib/token.mjs';
import sanitizeHtml from 'sanitize-html';
import type { MediaFile } from '../../../domain/media.js';
import { mediaFileLink } from '../media-urls.js';

const parser = new MarkdownIt({ html: true, linkify: true, typographer: false });

/** The page a relative link is resolved against when the site's address is not given. */
const NO_SITE = 'https://site.invalid/';

/**
 * Whether a link leaves the site, decided as a browser decides it: `href` parsed (WHATWG URL, so
 * tabs and newlines are dropped and `\` counts as `/` in http(s) URLs) against a page of the site,
 * and off-site when it is http(s) of another origin. `/\evil.example`, `\\evil.example` and
 * `/<tab>/evil.example` are all off-site; so is a URL that does not parse, to be safe.
 */
function leavesSite(href: string, page: URL): boolean {
  let url: URL;
  try {
    url = new URL(href, page);
  } catch {
    return true;
  }
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.origin !== page.origin;
}
/** The alignment markdown-it writes on a table cell as `style="text-align:…"`. */
const CELL_ALIGNMENT = /^text-align:(left|right|center)$/;

/** Keeps a cell's alignment as an `align` attribute: `style` itself never survives sanitising. */
function alignCell(tagName: string, attribs: sanitizeHtml.Attributes): sanitizeHtml.Tag {
  const { style, ...rest } = attribs;
  const align = CELL_ALIGNMENT.exec(style ?? '')?.[1];
  return { tagName, attribs: align === undefined ? rest : { ...rest, align } };
}

/** A file of a media as the renderer needs it. */
type RenderFile = Pick<MediaFile, 'name' | 'contentType' | 'width' | 'height'>;

/** A media of the library that a body links to, looked up before rendering (see `mediaIdsIn`). */
export interface RenderMedia {
  id: string;
  /** Its original (`original.<ext>`) and its variants. */
  files: readonly RenderFile[];
}

/** The width an image takes in a page: the whole viewport on a narrow screen, else the column's 800 px. */
const IMAGE_SIZES = '(max-width: 800px) 100vw, 800px';

const LOADING = new Set(['lazy', 'eager']);
const DECODING = new Set(['async', 'sync', 'auto']);

/**
 * An image's attributes: `src`, `alt` and `title` as written; `loading` lazy and `decoding` async
 * unless the author chose another valid value. An image of one of our media files (`mediaFileLink`)
 * whose media is known also gets the `width` and `height` of the file it names, and a `srcset` of
 * the media's original and WebP variants (each `<width>w`, URLs beside its `src`) with `sizes`;
 * any other keeps the `width` and `height` the author wrote, and never a `srcset` or `sizes`.
 */
function imageAttributes(attribs: sanitizeHtml.Attributes, media: ReadonlyMap<string, RenderMedia>): sanitizeHtml.Attributes {
  const { src, alt, title, width, height, loading, decoding } = attribs;
  const written = Object.fromEntries(
    Object.entries({ src, alt, title }).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
  const hints = {
    loading: loading !== undefined && LOADING.has(loading) ? loading : 'lazy',
    decoding: decoding !== undefined && DECODING.has(decoding) ? decoding : 'async',
  };
  const link = src === undefined ? null : mediaFileLink(src);
  const known = link === null ? undefined : media.get(link.mediaId);
  const file = known?.files.find((candidate) => candidate.name === link!.fileName);
  if (link === null || known === undefined || file === undefined) {
    const size = Object.fromEntries(Object.entries({ width, height }).filter((entry): entry is [string, string] => entry[1] !== undefined));
    return { ...written, ...size, ...hints };
  }
  const candidates = known.files
    .filter((candidate) => candidate.name.startsWith('original.') || candidate.contentType === 'image/webp')
    .sort((a, b) => a.width - b.width);
  const srcset = candidates.map((candidate) => `${link.base}${known.id}/${candidate.name} ${candidate.width}w`).join(', ');
  return { ...written, width: String(file.width), height: String(file.height), srcset, sizes: IMAGE_SIZES, ...hints };
}

const SANITIZE = {
  allowedTags: [...sanitizeHtml.defaults.allowedTags, 'img', 'del', 'ins', 'details', 'summary'],
  allowedAttributes: {
    a: ['href', 'title', 'name', { name: 'rel', multiple: false, values: ['nofollow noopener'] }],
    // Whatever the author wrote, `imageAttributes` decides these; a srcset's URLs are held to
    // the image schemes as `src` is.
    img: ['src', 'alt', 'title', 'width', 'height', 'srcset', 'sizes', 'loading', 'decoding'],
    code: ['class'],
    pre: ['class'],
    th: ['align', 'colspan', 'rowspan'],
    td: ['align', 'colspan', 'rowspan'],
  },
  allowedClasses: { code: ['language-*'], pre: ['language-*'] },
  allowedSchemes: ['http', 'https', 'mailto'],
  allowedSchemesByTag: { img: ['http', 'https'] },
} satisfies sanitizeHtml.IOptions;

/** The sanitiser's options for a site whose pages are under `page`, with the media its images link to. */
function sanitizeOptions(page: URL, media: ReadonlyMap<string, RenderMedia>): sanitizeHtml.IOptions {
  return {
    ...SANITIZE,
    // Other tags are dropped and their text kept; the default `nonTextTags` (script, style,
    // textarea, option, xmp) go with their content.
    transformTags: {
      // Whatever `rel` the author wrote is replaced: only links off the site get one.
      a: (tagName, { rel: _rel, ...attribs }) => ({
        tagName,
        attribs: attribs.href !== undefined && leavesSite(attribs.href, page) ? { ...attribs, rel: 'nofollow noopener' } : attribs,
      }),
      th: alignCell,
      td: alignCell,
      img: (tagName, attribs) => ({ tagName, attribs: imageAttributes(attribs, media) }),
    },
  };
}

/**
 * The bounds of what one render may make, so that no body fills its worker's heap: a worker that
 * reaches its heap limit can abort the whole process (nodejs/node#47224; markdown-it grows one
 * array of tokens), and a body's HTML is cached and sent whole. The figures behind them, and the
 * heap the worst bodies within them take, are in bench/NOTES.md (`bench/render-heap.ts`).
 */
export const RENDER_LIMITS = {
  /** The longest body rendered, in UTF-16 code units: 1 Mi, the default request limit (BODY_LIMIT_BYTES). */
  bodyChars: 1024 * 1024,
  /**
   * The most text markdown-it's tokens may hold, all together (contents, link and image URLs and
   * titles, code info): 4 Mi. Without reference links a body's tokens hold about its own length (a
   * URL's non-ASCII characters percent-encoded take up to 9 each); a reference definition used
   * again and again holds its URL once per use: 1,200 uses of a 400 KB URL rendered to 480 M.
   */
  tokenTextChars: 4 * 1024 * 1024,
  /** The most HTML markdown-it may make of a body, before it is sanitised: 16 Mi. */
  markupChars: 16 * 1024 * 1024,
} as const;

/** A body the renderer refuses to render: past `RENDER_LIMITS`, whatever the time it would take. */
export class RenderRefused extends Error {
  override readonly name = 'RenderRefused';
}

/** The length of all the text `tokens` and their children hold. */
function tokenTextOf(tokens: readonly Token[]): number {
  let chars = 0;
  for (const token of tokens) {
    chars += token.content.length + token.info.length;
    for (const [, value] of token.attrs ?? []) chars += value.length;
    if (token.children !== null) chars += tokenTextOf(token.children);
  }
  return chars;
}

/**
 * A post body (CommonMark with GitHub tables and strikethrough, raw HTML allowed, bare URLs
 * linked) as HTML that is safe to put in a page: only content tags survive, no script, style,
 * event handler or embedded document; links and images keep http(s) URLs (links also mailto:)
 * and relative ones, and links off the site (`siteUrl`, e.g. https://blog.example.com; any
 * absolute http(s) link when not given) carry `rel="nofollow noopener"`. Images load lazily; those
 * of the `media` given (our media files, see `imageAttributes`) carry their size and a `srcset`.
 * A body past `RENDER_LIMITS` throws `RenderRefused`: checked on the body, on its tokens before
 * they are rendered, and on the HTML before it is parsed again (its length is known unflattened).
 *
 * Synchronous and unbounded in time (sanitize-html's parser keeps its open elements in an array it
 * unshifts, so n unclosed tags cost O(n²)): readers get it through `HtmlRenderer`, which runs it in
 * a worker thread with a time budget.
 */
export function renderMarkdown(markdown: string, siteUrl?: string, media: readonly RenderMedia[] = []): string {
  if (markdown.length > RENDER_LIMITS.bodyChars) throw new RenderRefused(`the body is longer than ${RENDER_LIMITS.bodyChars} characters`);
  const env = {};
  const tokens = parser.parse(markdown, env);
  if (tokenTextOf(tokens) > RENDER_LIMITS.tokenTextChars) throw new RenderRefused('the body repeats too much text (reference links)');
  const markup = parser.renderer.render(tokens, parser.options, env);
  if (markup.length > RENDER_LIMITS.markupChars)
    throw new RenderRefused(`the body renders to more than ${RENDER_LIMITS.markupChars} characters`);
  const page = new URL(siteUrl === undefined ? NO_SITE : `${siteUrl}/`);
  return sanitizeHtml(markup, sanitizeOptions(page, new Map(media.map((one) => [one.id, one]))));
}
