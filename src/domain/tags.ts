import { ValidationError, type ValidationIssue } from './errors.js';

/** Maximum length of one tag, in code points, after normalization. */
export const TAG_MAX_LENGTH = 40;
/** Maximum number of distinct tags on a post. */
export const TAGS_MAX = 20;

type Normalized = { ok: true; tag: string } | { ok: false; message: string };

function normalizeOne(input: unknown): Normalized {
  if (typeof input !== 'string') {
    return { ok: false, message: 'Tag must be a string.' };
  }
  const tag = input.normalize('NFC').trim().replace(/\s+/g, ' ').toLowerCase();
  const length = [...tag].length;
  if (length === 0) {
    return { ok: false, message: 'Tag must not be empty.' };
  }
  if (length > TAG_MAX_LENGTH) {
    return {
      ok: false,
      message: `Tag must be at most ${TAG_MAX_LENGTH} characters (got ${length}).`,
    };
  }
  return { ok: true, tag };
}

/**
 * Normalizes one tag: Unicode NFC, trimmed, internal whitespace runs collapsed
 * to one space, lowercased. Must be 1–`TAG_MAX_LENGTH` code points long.
 * @throws ValidationError with pointer `/tag`
 */
export function normalizeTag(input: string): string {
  const result = normalizeOne(input);
  if (!result.ok) {
    throw new ValidationError([{ pointer: '/tag', message: result.message }]);
  }
  return result.tag;
}

/**
 * Normalizes every tag as `normalizeTag` does and removes duplicates, keeping
 * the first occurrence's position. At most `TAGS_MAX` distinct tags.
 * @throws ValidationError listing every bad entry (`/tags/<index in input>`)
 *   and, when there are too many distinct tags, `/tags`.
 */
export function normalizeTags(input: readonly string[]): string[] {
  const issues: ValidationIssue[] = [];
  const seen = new Set<string>();
  input.forEach((raw, index) => {
    const result = normalizeOne(raw);
    if (result.ok) {
      seen.add(result.tag);
    } else {
      issues.push({ pointer: `/tags/${index}`, message: result.message });
    }
  });
  if (seen.size > TAGS_MAX) {
    issues.push({
      pointer: '/tags',
      message: `At most ${TAGS_MAX} distinct tags are allowed (got ${seen.size}).`,
    });
  }
  if (issues.length > 0) {
    throw new ValidationError(issues);
  }
  return [...seen];
}
