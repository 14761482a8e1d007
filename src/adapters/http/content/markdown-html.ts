import MarkdownIt from 'markdown-it';
import sanitizeHtml from 'sanitize-html';

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

const SANITIZE = {
  allowedTags: [...sanitizeHtml.defaults.allowedTags, 'img', 'del', 'ins', 'details', 'summary'],
  allowedAttributes: {
    a: ['href', 'title', 'name', { name: 'rel', multiple: false, values: ['nofollow noopener'] }],
    img: ['src', 'alt', 'title', 'width', 'height', 'loading'],
    code: ['class'],
    pre: ['class'],
    th: ['align', 'colspan', 'rowspan'],
    td: ['align', 'colspan', 'rowspan'],
  },
  allowedClasses: { code: ['language-*'], pre: ['language-*'] },
  allowedSchemes: ['http', 'https', 'mailto'],
  allowedSchemesByTag: { img: ['http', 'https'] },
} satisfies sanitizeHtml.IOptions;

/** The sanitiser's options for a site whose pages are under `page`. */
function sanitizeOptions(page: URL): sanitizeHtml.IOptions {
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
    },
  };
}

/**
 * A post body (CommonMark with GitHub tables and strikethrough, raw HTML allowed, bare URLs
 * linked) as HTML that is safe to put in a page: only content tags survive, no script, style,
 * event handler or embedded document; links and images keep http(s) URLs (links also mailto:)
 * and relative ones, and links off the site (`siteUrl`, e.g. https://blog.example.com; any
 * absolute http(s) link when not given) carry `rel="nofollow noopener"`.
 *
 * Synchronous and unbounded in time (sanitize-html's parser keeps its open elements in an array it
 * unshifts, so n unclosed tags cost O(n²)): readers get it through `HtmlRenderer`, which runs it in
 * a worker thread with a time budget.
 */
export function renderMarkdown(markdown: string, siteUrl?: string): string {
  return sanitizeHtml(parser.render(markdown), sanitizeOptions(new URL(siteUrl === undefined ? NO_SITE : `${siteUrl}/`)));
}
