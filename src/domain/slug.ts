import { SLUG_MAX } from './post.js';

const SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** Letters that Unicode NFKD does not decompose into ASCII base letters. */
const SPECIAL_FOLDS: Readonly<Record<string, string>> = {
  ß: 'ss',
  æ: 'ae',
  ø: 'o',
  œ: 'oe',
  ł: 'l',
  đ: 'd',
  þ: 'th',
};

const SPECIAL_FOLD_PATTERN = new RegExp(`[${Object.keys(SPECIAL_FOLDS).join('')}]`, 'gu');

/** The fallback slug used when a title contains no ASCII-foldable letters or digits. */
const FALLBACK_SLUG = 'post';

function cutToLength(slug: string, max: number): string {
  return slug.slice(0, Math.max(0, max)).replace(/-+$/, '');
}

/**
 * Derives a URL slug from a title.
 *
 * Lowercases, folds diacritics (NFKD, combining marks removed, plus ß→ss, æ→ae,
 * ø→o, œ→oe, ł→l, đ→d, þ→th), turns every run of characters other than
 * `[a-z0-9]` into a single `-`, trims leading/trailing `-` and cuts the result
 * to `SLUG_MAX` (100) characters without leaving a trailing `-`.
 * Returns `'post'` when nothing is left.
 */
export function slugify(title: string): string {
  const folded = title
    .toLowerCase()
    .replace(SPECIAL_FOLD_PATTERN, (ch) => SPECIAL_FOLDS[ch] ?? ch)
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '');
  const slug = cutToLength(folded.replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, ''), SLUG_MAX);
  return slug === '' ? FALLBACK_SLUG : slug;
}

/** True when `s` is lowercase ASCII words joined by single `-` and at most `SLUG_MAX` long. */
export function isValidSlug(s: string): boolean {
  return s.length <= SLUG_MAX && SLUG_PATTERN.test(s);
}

/**
 * Returns `${base}-${n}`, cutting `base` (and any trailing `-` the cut leaves)
 * so that the result is at most `SLUG_MAX` characters.
 * `n` must be a positive safe integer.
 */
export function withSuffix(base: string, n: number): string {
  if (!Number.isSafeInteger(n) || n < 1) {
    throw new RangeError(`Slug suffix must be a positive integer, got ${n}`);
  }
  const suffix = `-${n}`;
  const cutBase = cutToLength(base, SLUG_MAX - suffix.length);
  return `${cutBase === '' ? FALLBACK_SLUG : cutBase}${suffix}`;
}
