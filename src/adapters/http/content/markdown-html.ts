import MarkdownIt from 'markdown-it';
import sanitizeHtml from 'sanitize-html';

const parser = new MarkdownIt({ html: true, linkify: true, typographer: false });

/** A URL that leaves the site: absolute http(s), or protocol-relative. */
const EXTERNAL_URL = /^\s*(https?:)?\/\//i;
/** The alignment markdown-it writes on a table cell as `style="text-align:…"`. */
const CELL_ALIGNMENT = /^text-align:(left|right|center)$/;

/** Keeps a cell's alignment as an `align` attribute: `style` itself never survives sanitising. */
function alignCell(tagName: string, attribs: sanitizeHtml.Attributes): sanitizeHtml.Tag {
  const { style, ...rest } = attribs;
  const align = CELL_ALIGNMENT.exec(style ?? '')?.[1];
  return { tagName, attribs: align === undefined ? rest : { ...rest, align } };
}

const SANITIZE: sanitizeHtml.IOptions = {
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
  // Other tags are dropped and their text kept; the default `nonTextTags` (script, style,
  // textarea, option, xmp) go with their content.
  transformTags: {
    // Whatever `rel` the author wrote is replaced: only links off the site get one.
    a: (tagName, { rel: _rel, ...attribs }) => ({
      tagName,
      attribs: EXTERNAL_URL.test(attribs.href ?? '') ? { ...attribs, rel: 'nofollow noopener' } : attribs,
    }),
    th: alignCell,
    td: alignCell,
  },
};

/**
 * A post body (CommonMark with GitHub tables and strikethrough, raw HTML allowed, bare URLs
 * linked) as HTML that is safe to put in a page: only content tags survive, no script, style,
 * event handler or embedded document; links and images keep http(s) URLs (links also mailto:)
 * and relative ones, and links off the site carry `rel="nofollow noopener"`.
 */
export function renderMarkdown(markdown: string): string {
  return sanitizeHtml(parser.render(markdown), SANITIZE);
}
