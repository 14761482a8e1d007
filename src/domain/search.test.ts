import { describe, expect, it } from 'vitest';
import {
  documentVectorText,
  matchClass,
  matchesDocument,
  MAX_DOCUMENT_WORD_BYTES,
  MAX_DOCUMENT_WORDS,
  MAX_POSITION,
  MAX_POSITIONS_PER_WORD,
  MIN_PREFIX_LENGTH,
  parseSearchQuery,
  queryText,
  searchDocument,
  searchTokens,
} from './search.js';

const doc = (title: string, body = '', excerpt = '', tags: string[] = []) => searchDocument({ title, excerpt, tags, body });
const finds = (q: string, d: ReturnType<typeof doc>) => matchesDocument(d, parseSearchQuery(q));

describe('searchTokens', () => {
  it('folds case and accents, ÉTÉ into ete', () => {
    expect(searchTokens('ÉTÉ à Noël')).toEqual(['ete', 'a', 'noel']);
  });

  it('folds the letters NFKD leaves alone: ß, æ, œ, ø, ł, đ', () => {
    expect(searchTokens('Straße Æsir cœur Ørsted Łódź Đakovo')).toEqual(['strasse', 'aesir', 'coeur', 'orsted', 'lodz', 'dakovo']);
  });

  it('splits at every character that is not a letter or a digit', () => {
    expect(searchTokens('e-mail, v2.0 (ok)_x')).toEqual(['e', 'mail', 'v2', '0', 'ok', 'x']);
    expect(searchTokens('привет 日本語')).toEqual(['привет', '日本語']);
  });

  it('finds the same words in ASCII text by its shorter road as by the full folding', () => {
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    for (let n = 0; n < 500; n++) {
      const text = Array.from({ length: next() % 60 }, () => String.fromCharCode(next() % 128)).join('');
      // One non-ASCII letter after a separator sends the text down the full road; it adds one word.
      expect(searchTokens(text)).toEqual(searchTokens(`${text} é`).slice(0, -1));
    }
  });

  it('drops words longer than 100 characters', () => {
    expect(searchTokens(`a ${'x'.repeat(101)} ${'y'.repeat(100)}`)).toEqual(['a', 'y'.repeat(100)]);
  });
});

describe('parseSearchQuery', () => {
  it('makes every word a required clause, the last one a prefix', () => {
    expect(parseSearchQuery('Postgres produc')).toEqual({
      clauses: [
        [{ words: ['postgres'], phrase: false, negated: false, prefix: false }],
        [{ words: ['produc'], phrase: false, negated: false, prefix: true }],
      ],
    });
  });

  it('takes no prefix of a last word shorter than MIN_PREFIX_LENGTH characters: a and po match whole words', () => {
    expect(MIN_PREFIX_LENGTH).toBe(3);
    const prefixes = (q: string) =>
      parseSearchQuery(q)
        .clauses.flat()
        .map((term) => term.prefix);
    expect(prefixes('a')).toEqual([false]);
    expect(prefixes('postgres po')).toEqual([false, false]);
    expect(prefixes('pos')).toEqual([true]);
    expect(prefixes('été')).toEqual([true]);
    expect(prefixes('"e-ma')).toEqual([false]);
    expect(finds('po', doc('Postgres'))).toBe(false);
    expect(finds('po', doc('Po river'))).toBe(true);
    expect(finds('pos', doc('Postgres'))).toBe(true);
  });

  it('takes no prefix when the query ends with a space or a closing quote', () => {
    expect(parseSearchQuery('postgres ').clauses[0]![0]!.prefix).toBe(false);
    expect(parseSearchQuery('"keyset cursor"').clauses[0]![0]!).toEqual({
      words: ['keyset', 'cursor'],
      phrase: true,
      negated: false,
      prefix: false,
    });
    expect(parseSearchQuery('"keyset curs').clauses[0]![0]!.prefix).toBe(true);
  });

  it('reads -word and -"phrase" as exclusions, e-mail as a phrase', () => {
    const { clauses } = parseSearchQuery('a -b -"c d" e-mail ');
    expect(clauses.map((c) => c.map((t) => [t.words.join(' '), t.phrase, t.negated]))).toEqual([
      [['a', false, false]],
      [['b', false, true]],
      [['c d', true, true]],
      [['e mail', true, false]],
    ]);
  });

  it('binds or tighter than the implicit AND and ignores an or missing a side', () => {
    const words = (q: string) => parseSearchQuery(q).clauses.map((c) => c.map((t) => t.words[0]));
    expect(words('a b or c ')).toEqual([['a'], ['b', 'c']]);
    expect(words('a OR b or c d ')).toEqual([['a', 'b', 'c'], ['d']]);
    expect(words('or a or ')).toEqual([['a']]);
  });

  it('has no clause when no word is required', () => {
    expect(parseSearchQuery('%_ - ""').clauses).toEqual([]);
    expect(parseSearchQuery('-hugo').clauses).toEqual([]);
  });
});

describe('matchesDocument', () => {
  const post = doc('Running postgres', `postgres ${'filler '.repeat(300)} in production`, 'An e-mail', ['ops-notes']);

  it('finds two words far apart in either order', () => {
    expect(finds('postgres production ', post)).toBe(true);
    expect(finds('production postgres ', post)).toBe(true);
    expect(finds('production mysql ', post)).toBe(false);
  });

  it('needs a phrase adjacent and in order, never across two fields', () => {
    expect(finds('"in production"', post)).toBe(true);
    expect(finds('"production in"', post)).toBe(false);
    expect(finds('"postgres an"', post)).toBe(false);
    expect(finds('email', post)).toBe(false);
    expect(finds('E-Mail ', post)).toBe(true);
    expect(finds('"ops notes"', post)).toBe(true);
  });

  it('excludes, takes either with or, and matches the last word as a prefix', () => {
    expect(finds('postgres -production', post)).toBe(false);
    expect(finds('postgres -mysql ', post)).toBe(true);
    expect(finds('mysql or production ', post)).toBe(true);
    expect(finds('postgres produc', post)).toBe(true);
    expect(finds('postgres produc ', post)).toBe(false);
  });
});

describe('matchClass', () => {
  const ranked = (q: string, d: ReturnType<typeof doc>) => matchClass(d, parseSearchQuery(q));
  it('is 3 when the title alone matches, 2 with the excerpt or tags, 1 when the body is needed', () => {
    expect(ranked('apple ', doc('Apple pie'))).toBe(3);
    expect(ranked('apple ', doc('Pie', '', 'apple'))).toBe(2);
    expect(ranked('apple ', doc('Pie', '', '', ['apple']))).toBe(2);
    expect(ranked('apple ', doc('Pie', 'apple'))).toBe(1);
    expect(ranked('apple pie ', doc('Apple', 'pie'))).toBe(1);
  });
});

describe('searchDocument', () => {
  it('numbers words past MAX_POSITION at it and keeps a word’s first MAX_POSITIONS_PER_WORD positions', () => {
    const long = doc('t', `${'w '.repeat(MAX_POSITION + 10)}end`);
    expect(long.get('end')!.pos).toEqual([MAX_POSITION]);
    expect(long.get('w')!.pos).toHaveLength(MAX_POSITIONS_PER_WORD);
  });

  it('holds the first MAX_DOCUMENT_WORDS distinct words: later new words are left out, known ones still count', () => {
    const words = Array.from({ length: 140_000 }, (_, i) => `w${i}`);
    const big = doc('w0', `${words.join(' ')} w7 phrase`);
    expect(big.size).toBe(MAX_DOCUMENT_WORDS);
    expect(finds('w49999 ', big)).toBe(true);
    expect(finds('w50000 ', big)).toBe(false);
    expect(finds('phrase ', big)).toBe(false);
    expect(big.get('w7')!.pos).toEqual([10, MAX_POSITION]);
  });

  it('holds up to MAX_DOCUMENT_WORD_BYTES of distinct words, in UTF-8 bytes: a new word that does not fit is left out', () => {
    // 100-character words of 96 two-byte letters and 4 digits: 196 bytes each, beside the title's 1.
    const word = (i: number) => `${'ж'.repeat(96)}${String(i).padStart(4, '0')}`;
    const fit = Math.floor((MAX_DOCUMENT_WORD_BYTES - 1) / 196);
    const big = doc('t', `${Array.from({ length: fit + 10 }, (_, i) => word(i)).join(' ')} short`);
    const kept = [...big.keys()].filter((w) => w.length === 100);
    expect(kept).toHaveLength(fit);
    expect(big.has('short')).toBe(true);
    expect(big.has(searchTokens(word(fit + 5))[0]!)).toBe(false);
  });

  it('keeps a document of the largest body within PostgreSQL’s 1 MiB tsvector (its own measure of the entries)', () => {
    const pgSize = (d: ReturnType<typeof doc>) =>
      [...d].reduce((n, [w, { pos }]) => n + ((Buffer.byteLength(w) + 1) & ~1) + 2 + 2 * pos.length, 0);
    const distinct = doc('t', Array.from({ length: 200_000 }, (_, i) => i.toString(36)).join(' '));
    const long = doc('t', Array.from({ length: 6_000 }, (_, i) => `${'界'.repeat(96)}${i.toString(36).padStart(4, '0')}`).join(' '));
    for (const d of [distinct, long]) expect(pgSize(d)).toBeLessThan(1024 * 1024 - 1);
  });

  it('writes the tsvector and tsquery input PostgreSQL reads without tokenising', () => {
    expect(documentVectorText(doc('Été', 'b été'))).toBe("'ete':1A,4C 'b':3C");
    expect(queryText(parseSearchQuery('a -"b c" d or eee'))).toBe("'a' & !('b' <-> 'c') & ('d' | 'eee':*)");
    expect(queryText(parseSearchQuery('a bbb'), 'AB')).toBe("'a':AB & 'bbb':*AB");
  });
});
