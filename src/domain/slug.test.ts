import { describe, expect, it } from 'vitest';
import { SLUG_MAX } from './post.js';
import { isValidSlug, slugify, withSuffix } from './slug.js';

describe('slugify', () => {
  it('lowercases and joins words with single hyphens', () => {
    expect(slugify('Hello,  World!!')).toBe('hello-world');
  });

  it('folds diacritics and lowercases the title', () => {
    expect(slugify('Église à Noël')).toBe('eglise-a-noel');
    expect(slugify('Ångström über Crème Brûlée')).toBe('angstrom-uber-creme-brulee');
  });

  it('maps letters NFKD cannot decompose to ASCII spellings', () => {
    expect(slugify('Straße')).toBe('strasse');
    expect(slugify('Æsir Øresund Œuvre Łódź Đakovo Þórr')).toBe('aesir-oresund-oeuvre-lodz-dakovo-thorr');
  });

  it('decomposes compatibility characters such as ligatures and full-width digits', () => {
    expect(slugify('ﬁnal ＡＢＣ１２３')).toBe('final-abc123');
  });

  it('drops emoji and other symbols without leaving stray hyphens', () => {
    expect(slugify('🚀 Launch day 🎉')).toBe('launch-day');
    expect(slugify('C++ & Rust: 2024 edition')).toBe('c-rust-2024-edition');
  });

  it('trims leading and trailing separators', () => {
    expect(slugify('  --Hello--  ')).toBe('hello');
  });

  it('treats underscores and apostrophes as separators', () => {
    expect(slugify("snake_case isn't kebab")).toBe('snake-case-isn-t-kebab');
  });

  it('returns "post" when the title is empty or only symbols', () => {
    expect(slugify('')).toBe('post');
    expect(slugify('   ')).toBe('post');
    expect(slugify('!!! ??? 🎉')).toBe('post');
    expect(slugify('日本語')).toBe('post');
  });

  it('cuts a 300-character title to at most 100 characters without a trailing hyphen', () => {
    // 'abcd ' repeated puts a separator at every fifth position, so position 100 lands on a hyphen.
    const title = 'abcd '.repeat(60);
    expect(title).toHaveLength(300);
    const slug = slugify(title);
    expect(slug.length).toBeLessThanOrEqual(SLUG_MAX);
    expect(slug).toBe('abcd-'.repeat(20).slice(0, 99));
    expect(slug.endsWith('-')).toBe(false);
    expect(isValidSlug(slug)).toBe(true);
  });

  it('keeps exactly 100 characters when the cut falls inside a word', () => {
    expect(slugify('a'.repeat(300))).toBe('a'.repeat(100));
  });

  it('always produces a valid slug', () => {
    for (const title of ['Hello', 'ß', '-', 'x'.repeat(150), 'Ça va? Oui!', '1 2 3']) {
      expect(isValidSlug(slugify(title))).toBe(true);
    }
  });
});

describe('isValidSlug', () => {
  it('accepts lowercase alphanumeric words joined by single hyphens', () => {
    expect(isValidSlug('hello')).toBe(true);
    expect(isValidSlug('hello-world-2')).toBe(true);
    expect(isValidSlug('a'.repeat(100))).toBe(true);
  });

  it('rejects uppercase, double, leading and trailing hyphens, and other characters', () => {
    for (const s of ['', 'Hello', 'hello--world', '-hello', 'hello-', 'hello world', 'héllo', 'a_b']) {
      expect(isValidSlug(s), s).toBe(false);
    }
  });

  it('rejects slugs longer than 100 characters', () => {
    expect(isValidSlug('a'.repeat(101))).toBe(false);
  });
});

describe('withSuffix', () => {
  it('appends the number after a hyphen', () => {
    expect(withSuffix('hello-world', 2)).toBe('hello-world-2');
  });

  it('cuts the base so the result stays within 100 characters', () => {
    const result = withSuffix('a'.repeat(100), 12);
    expect(result).toBe(`${'a'.repeat(97)}-12`);
    expect(result).toHaveLength(100);
  });

  it('trims a hyphen left at the end of the cut base', () => {
    const base = `${'a'.repeat(97)}-bc`;
    expect(withSuffix(base, 3)).toBe(`${'a'.repeat(97)}-3`);
    expect(isValidSlug(withSuffix(base, 3))).toBe(true);
  });

  it('rejects a suffix that is not a positive integer', () => {
    expect(() => withSuffix('a', 0)).toThrow(RangeError);
    expect(() => withSuffix('a', 1.5)).toThrow(RangeError);
  });
});
