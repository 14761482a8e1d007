import { describe, expect, it } from 'vitest';
import { ValidationError, type ValidationIssue } from './errors.js';
import { normalizeTag, normalizeTags, TAG_MAX_LENGTH, TAGS_MAX } from './tags.js';

function issuesOf(fn: () => unknown): readonly ValidationIssue[] {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(ValidationError);
    return (e as ValidationError).issues;
  }
  throw new Error('expected a ValidationError');
}

describe('normalizeTags', () => {
  it('trims, lowercases and collapses internal whitespace', () => {
    expect(normalizeTags(['  TypeScript ', 'Web \t  Dev'])).toEqual(['typescript', 'web dev']);
  });

  it('removes duplicates after case folding, keeping first-occurrence order', () => {
    expect(normalizeTags(['b', 'A', 'B', 'a', ' c ', 'C'])).toEqual(['b', 'a', 'c']);
  });

  it('treats composed and decomposed accents as the same tag', () => {
    expect(normalizeTags(['café', 'cafe\u0301'])).toEqual(['café']);
  });

  it('returns an empty list for no tags', () => {
    expect(normalizeTags([])).toEqual([]);
  });

  it('accepts a tag of exactly 40 code points, counting astral characters once', () => {
    const emojiTag = '🚀'.repeat(TAG_MAX_LENGTH);
    expect(emojiTag.length).toBe(80);
    expect(normalizeTags([emojiTag, 'x'.repeat(40)])).toEqual([emojiTag, 'x'.repeat(40)]);
  });

  it('rejects a tag longer than 40 characters with its pointer', () => {
    expect(issuesOf(() => normalizeTags(['ok', 'x'.repeat(41)]))).toEqual([{ pointer: '/tags/1', message: expect.stringContaining('40') }]);
  });

  it('rejects empty and whitespace-only tags', () => {
    expect(issuesOf(() => normalizeTags(['', '   '])).map((i) => i.pointer)).toEqual(['/tags/0', '/tags/1']);
  });

  it('reports every bad entry, not only the first', () => {
    const issues = issuesOf(() => normalizeTags(['good', '', 'fine', 'y'.repeat(50), ' ']));
    expect(issues.map((i) => i.pointer)).toEqual(['/tags/1', '/tags/3', '/tags/4']);
  });

  it('rejects a non-string entry coming from untyped input', () => {
    const issues = issuesOf(() => normalizeTags(['ok', 7 as unknown as string]));
    expect(issues).toEqual([{ pointer: '/tags/1', message: 'Tag must be a string.' }]);
  });

  it('accepts 20 distinct tags', () => {
    const tags = Array.from({ length: TAGS_MAX }, (_, i) => `t${i}`);
    expect(normalizeTags(tags)).toEqual(tags);
  });

  it('accepts more than 20 entries when at most 20 remain after dedup', () => {
    const lower = Array.from({ length: TAGS_MAX }, (_, i) => `t${i}`);
    const upper = lower.map((t) => t.toUpperCase());
    expect(normalizeTags([...lower, ...upper])).toEqual(lower);
  });

  it('rejects more than 20 distinct tags with a /tags pointer', () => {
    const tags = Array.from({ length: TAGS_MAX + 1 }, (_, i) => `t${i}`);
    expect(issuesOf(() => normalizeTags(tags))).toEqual([{ pointer: '/tags', message: expect.stringContaining('21') }]);
  });

  it('reports bad entries and the too-many error together', () => {
    const tags = [...Array.from({ length: 21 }, (_, i) => `t${i}`), ''];
    expect(issuesOf(() => normalizeTags(tags)).map((i) => i.pointer)).toEqual(['/tags/21', '/tags']);
  });
});

describe('normalizeTag', () => {
  it('normalizes a single tag the same way', () => {
    expect(normalizeTag('  Machine   LEARNING ')).toBe('machine learning');
  });

  it('throws a ValidationError pointing at /tag for an invalid tag', () => {
    expect(issuesOf(() => normalizeTag('  '))).toEqual([{ pointer: '/tag', message: 'Tag must not be empty.' }]);
    expect(issuesOf(() => normalizeTag('z'.repeat(41))).map((i) => i.pointer)).toEqual(['/tag']);
  });
});
