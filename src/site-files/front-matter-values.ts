/**
 * The values of a front matter read by what their keys mean (a date, text, tags, a mapping, a
 * status, a post id), for the MarginCMS post file and the generators' conventions alike. A value
 * that is not what its key asks for throws a `FrontMatterError` naming the key.
 */
import {
  isCanonicalUrl,
  isStorableText,
  isUlid,
  SEO_DESCRIPTION_MAX,
  SEO_TITLE_MAX,
  type PostSeo,
  type PostStatus,
} from '../domain/index.js';

/** A front-matter value that does not say what its key asks for; the file is skipped with its message. */
export class FrontMatterError extends Error {}

/** The most characters of a value an error quotes. */
const QUOTED_MAX = 100;

/**
 * A value as an error names it: a scalar as JSON, a string cut at QUOTED_MAX characters; a list or
 * a mapping by its kind only. Never a collection serialised: YAML aliases share one node many
 * times over, so a 64 KiB front matter could serialise to megabytes, and every file's error
 * goes into the report.
 */
function quoted(value: unknown): string {
  if (Array.isArray(value)) return 'a list';
  if (value !== null && typeof value === 'object') return 'a mapping';
  if (typeof value === 'string' && value.length > QUOTED_MAX) return `${JSON.stringify(value.slice(0, QUOTED_MAX))}…`;
  return JSON.stringify(value) ?? String(value);
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ]+(\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?\s*(Z|z|[+-]\d{2}:?\d{2})?)?$/;
const MONTH_DAY_YEAR = /^([A-Za-z]{3})[a-z]*\.? (\d{1,2}),? (\d{4})$/;

/** An instant from a front-matter value, or null for an absent one. */
export function dateOf(key: string, value: unknown): Date | null {
  if (value === undefined || value === null || value === '') return null;
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw new FrontMatterError(`${key} is not a date`);
    return new Date(value.getTime());
  }
  if (typeof value !== 'string') throw new FrontMatterError(`${key} is not a date: ${quoted(value)}`);
  const text = value.trim();
  const full = DATE_TIME.exec(text);
  const spoken = full ? null : MONTH_DAY_YEAR.exec(text);
  const fields = full
    ? full.slice(1, 7).map((part) => Number(part ?? 0))
    : spoken
      ? [Number(spoken[3]), MONTHS.indexOf(spoken[1]!.toLowerCase()) + 1, Number(spoken[2]), 0, 0, 0]
      : null;
  if (fields === null) throw new FrontMatterError(`${key} is not a date: ${quoted(value)}`);
  const [year, month, day, hour, minute, second] = fields as [number, number, number, number, number, number];
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth || hour > 23 || minute > 59 || second > 59) {
    throw new FrontMatterError(`${key} is not a date: ${quoted(value)}`);
  }
  const milliseconds = full?.[7] ? Math.floor(Number(`0${full[7]}`) * 1000) : 0;
  const zone = full?.[8]?.toUpperCase() ?? 'Z';
  const offsetMinutes = zone === 'Z' ? 0 : (zone.startsWith('-') ? -1 : 1) * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(-2)));
  return new Date(Date.UTC(year, month - 1, day, hour, minute, second, milliseconds) - offsetMinutes * 60_000);
}

/** Text from a scalar (a number or a boolean as written), or `fallback` for an absent one. */
export function text(key: string, value: unknown, fallback: string): string {
  if (value === undefined || value === null) return fallback;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw new FrontMatterError(`${key} is not text`);
}

/** A list of tags: a list, or one string split at commas (or, with `words`, at spaces too). */
export function tagsOf(value: unknown, words: boolean, key = 'tags'): string[] {
  if (value === undefined || value === null) return [];
  if (typeof value === 'string') return value.split(words ? /[\s,]+/ : /\s*,\s*/).filter((tag) => tag !== '');
  if (Array.isArray(value)) return value.map((tag) => text(key, tag, ''));
  throw new FrontMatterError(`${key} is not a list`);
}

export function mapping(key: string, value: unknown): Record<string, unknown> {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value) || value instanceof Date) throw new FrontMatterError(`${key} is not a mapping`);
  return value as Record<string, unknown>;
}

export function statusOf(key: string, value: unknown): PostStatus {
  if (value === 'draft' || value === 'published' || value === 'archived') return value;
  throw new FrontMatterError(`${key} is not draft, published or archived: ${quoted(value)}`);
}

export function idOf(key: string, value: unknown): string {
  if (typeof value !== 'string' || !isUlid(value)) throw new FrontMatterError(`${key} is not a post id (a ULID): ${quoted(value)}`);
  return value;
}

/**
 * The front-matter keys of the SEO fields: MarginCMS's own first (what an export writes), then
 * the names other generators and their themes give them (jekyll-seo-tag's `canonical_url`, Hugo
 * PaperMod's and Astro's `canonicalURL`). `description` is not one of them: it is the excerpt.
 */
const SEO_KEYS = {
  title: ['seo_title', 'meta_title'],
  description: ['seo_description', 'meta_description'],
  canonicalUrl: ['canonical_url', 'canonicalURL', 'canonical'],
} as const satisfies Record<keyof PostSeo, readonly string[]>;

/**
 * The SEO fields a front matter states, each null when no key of it is there (an empty string too).
 * - `margincms` (an export's file): MarginCMS's own keys only; a value that is not text throws a
 *   `FrontMatterError`, and text the post rules refuse makes the post invalid when it is written.
 * - `generator` (a Hugo, Jekyll or Astro file): the first of the field's keys that holds text the
 *   post rules take; a value they would refuse (a relative canonical URL, an SEO title over 200
 *   characters) is left out, so that it costs the field, not the post.
 */
export function seoOf(data: Record<string, unknown>, source: 'margincms' | 'generator'): PostSeo {
  const field = (keys: readonly string[], valid: (value: string) => boolean): string | null => {
    if (source === 'margincms') {
      const value = text(keys[0]!, data[keys[0]!], '');
      return value === '' ? null : value;
    }
    for (const key of keys) {
      const value = data[key];
      if (typeof value === 'string' && value !== '' && isStorableText(value) && valid(value)) return value;
    }
    return null;
  };
  const within = (max: number) => (value: string) => [...value].length <= max;
  return {
    title: field(SEO_KEYS.title, within(SEO_TITLE_MAX)),
    description: field(SEO_KEYS.description, within(SEO_DESCRIPTION_MAX)),
    canonicalUrl: field(SEO_KEYS.canonicalUrl, isCanonicalUrl),
  };
}

/** The SEO front-matter keys an export writes for `seo`: MarginCMS's own, only for the fields set. */
export function seoFrontMatter(seo: PostSeo): Record<string, string> {
  const keys: Record<string, string> = {};
  if (seo.title !== null) keys[SEO_KEYS.title[0]] = seo.title;
  if (seo.description !== null) keys[SEO_KEYS.description[0]] = seo.description;
  if (seo.canonicalUrl !== null) keys[SEO_KEYS.canonicalUrl[0]] = seo.canonicalUrl;
  return keys;
}
