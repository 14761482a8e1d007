/**
 * What the feeds make of a body `HtmlRenderer` rendered (`renderMarkdown`'s sanitised HTML): its
 * URLs made absolute, and its plain text as a summary. Both read that HTML as the sanitiser writes
 * it, which is what makes a few regular expressions enough: in text and attribute values `<` and
 * `>` are always escaped (`&lt;`, `&gt;`), so `<` only ever opens a tag and `>` only ever closes
 * one; attribute values are always double-quoted with `"` escaped (`&quot;`).
 */
import { mediaFileLink, mediaFileUrl } from '../media-urls.js';

/** An `<a>` or `<img>` start tag. */
const LINKING_TAG = /<(?:a|img)\s[^>]*>/g;
/** A URL-bearing attribute of such a tag, its value as written (escaped). */
const URL_ATTRIBUTE = /(\s(?:href|src|srcset)=")([^"]*)"/g;

const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"' };

/** Text with the entities the sanitiser writes (`&amp;` `&lt;` `&gt;` `&quot;`, and numeric ones) read, in one pass. */
function unescapeHtml(text: string): string {
  return text.replace(/&(?:#(\d{1,7})|#[xX]([0-9a-fA-F]{1,6})|(amp|lt|gt|quot));/g, (entity, dec?: string, hex?: string, name?: string) => {
    if (name !== undefined) return NAMED[name]!;
    const codePoint = dec !== undefined ? Number.parseInt(dec, 10) : Number.parseInt(hex ?? '', 16);
    return codePoint > 0 && codePoint <= 0x10ffff ? String.fromCodePoint(codePoint) : entity;
  });
}

function escapeAttribute(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** Where a feed entry's relative URLs point: the post's page, and the Content API for our media files. */
export interface EntryBase {
  /** The absolute URL of the post's page (`postUrl`): relative links are resolved against it. */
  page: string;
  /** The Content API's absolute address (`SiteInfo.contentApiUrl`): our media files live there. */
  contentApiUrl: string;
}

/** A URL with a scheme (`https:`, `mailto:`): already absolute, kept without parsing it. */
const ABSOLUTE = /^[a-z][a-z0-9+.-]*:/i;

/**
 * One URL made absolute: a link to one of our media files given from the root (`/api/v1/content/media/<id>/<file>`,
 * as authors write them) becomes its `mediaFileUrl` on the Content API, any other relative URL is
 * resolved against the post's page; an absolute URL, or one that does not parse, is kept.
 */
function absoluteUrl(url: string, base: EntryBase): string {
  if (ABSOLUTE.test(url)) return url;
  const media = mediaFileLink(url);
  if (media !== null && media.base.startsWith('/') && !media.base.startsWith('//'))
    return mediaFileUrl(base.contentApiUrl, media.mediaId, media.fileName);
  try {
    return new URL(url, base.page).href;
  } catch {
    return url;
  }
}

/** A `srcset`'s candidates (`<url> <descriptor>`, comma-separated) with their URLs made absolute. */
function absoluteSrcset(srcset: string, base: EntryBase): string {
  return srcset
    .split(/,\s+/)
    .map((candidate) => {
      const [url = '', ...descriptor] = candidate.trim().split(/\s+/);
      return [absoluteUrl(url, base), ...descriptor].join(' ');
    })
    .join(', ');
}

/**
 * Rendered HTML whose links' `href` and images' `src` and `srcset` are absolute (see
 * `absoluteUrl`): a feed reader has no page to resolve them against. Text is left as it is, even
 * where it reads like an attribute.
 */
export function withAbsoluteUrls(html: string, base: EntryBase): string {
  return html.replace(LINKING_TAG, (tag) =>
    tag.replace(URL_ATTRIBUTE, (_attribute, start: string, value: string) => {
      const url = unescapeHtml(value);
      const absolute = start.includes('srcset') ? absoluteSrcset(url, base) : absoluteUrl(url, base);
      return `${start}${escapeAttribute(absolute)}"`;
    }),
  );
}

/** How many characters a generated summary keeps at most, before its ellipsis. */
export const SUMMARY_MAX = 280;

/** Tags of phrasing content that do not break a word (`<strong>x</strong>!` reads `x!`). */
const INLINE_TAG =
  /<\/?(?:a|abbr|b|bdi|bdo|cite|code|data|del|dfn|em|i|ins|kbd|mark|q|s|samp|small|span|strong|sub|sup|time|u|var)(?:\s[^>]*)?>/g;

/**
 * The plain text of rendered HTML, cut for a summary: tags dropped (inline ones as nothing, any
 * other, a block or an image, as a word break), entities
 * read, white space collapsed; when longer than `max` characters (code points), cut at the last
 * white space within them (or at `max` itself when there is none) and ended with `…`.
 */
export function summaryOf(html: string, max = SUMMARY_MAX): string {
  // The start of a long body is enough: a prefix ending at a tag's end, grown until it holds more text than is kept.
  for (let length = 8 * max; ; length *= 4) {
    const end = length >= html.length ? html.length : html.lastIndexOf('>', length) + 1;
    const text = plainText(html.slice(0, end));
    if (end === html.length || [...text].length > max) return cut(text, max);
  }
}

/** The text of HTML: inline tags dropped, any other a space, entities read, white space collapsed. */
function plainText(html: string): string {
  return unescapeHtml(html.replace(INLINE_TAG, '').replace(/<[^>]*>/g, ' '))
    .replace(/\s+/g, ' ')
    .trim();
}

/** `text`, or when longer than `max` characters its start cut at a word boundary, with an ellipsis (see `summaryOf`). */
function cut(text: string, max: number): string {
  const characters = [...text];
  if (characters.length <= max) return text;
  const head = characters.slice(0, max + 1).join('');
  const space = head.lastIndexOf(' ');
  const cut = space > 0 ? head.slice(0, space) : characters.slice(0, max).join('');
  return `${cut.trimEnd()}…`;
}
