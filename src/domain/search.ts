import { isAscii } from './text.js';
/**
 * What `q` means, one rule for every store: the words of a text, the web-search syntax of a query,
 * the weighted document a post is searched as, whether a query matches it and how well.
 *
 * A store may hand the matching to its database (PostgreSQL's `tsvector @@ tsquery`): the document
 * is written as a `tsvector` and the query as a `tsquery` by `documentVectorText` and
 * `queryText` below, so the database never tokenises text itself and answers exactly as
 * `matchesDocument` does.
 */

/**
 * The fewest characters the last word of a query needs to match as a prefix: a shorter one (`a`,
 * `po`) matches whole words only, as a prefix it would match nearly every post.
 */
export const MIN_PREFIX_LENGTH = 3;
/** Words longer than this many characters are dropped (a hash, a data URL): nobody searches for them. */
const MAX_WORD_LENGTH = 100;
/** The greatest position a word of a document takes (PostgreSQL's limit): later words all stand there. */
export const MAX_POSITION = 16383;
/** The most positions a word keeps in a document (PostgreSQL's limit): its first ones. */
export const MAX_POSITIONS_PER_WORD = 256;
/** The most distinct words a document holds: a word first met after them is not searchable. */
export const MAX_DOCUMENT_WORDS = 50_000;
/**
 * The most UTF-8 bytes the distinct words of a document take together: a word first met that
 * does not fit beside them is not searchable. With `MAX_DOCUMENT_WORDS` and the position limits it
 * keeps a document's tsvector under 800 KiB, well within PostgreSQL's 1 MiB (SQLSTATE 54000).
 */
export const MAX_DOCUMENT_WORD_BYTES = 512 * 1024;

const LETTER_FOLDS: Record<string, string> = { ß: 'ss', æ: 'ae', œ: 'oe', ø: 'o', ł: 'l', đ: 'd' };
const FOLDED = /[ßæœøłđ]/g;
const MARKS = /\p{M}+/gu;
const SEPARATORS = /[^\p{L}\p{N}]+/u;

/**
 * The words of `text`: case and accents folded (lowercase, NFKD with the combining marks removed,
 * and ß→ss, æ→ae, œ→oe, ø→o, ł→l, đ→d), split at every character that is not a letter or a digit,
 * words longer than `MAX_WORD_LENGTH` dropped.
 */
export function searchTokens(text: string): string[] {
  // The same words by a shorter road (a fifth of the time on a 1 KB body): most posts are ASCII.
  if (isAscii(text)) return asciiWords(text.toLowerCase());
  const folded = text
    .toLowerCase()
    .normalize('NFKD')
    .replace(MARKS, '')
    .replace(FOLDED, (ch) => LETTER_FOLDS[ch]!)
    .toLowerCase();
  return wordsOf(folded.split(SEPARATORS));
}

function wordsOf(parts: string[]): string[] {
  return parts.filter((word) => word !== '' && word.length <= MAX_WORD_LENGTH);
}

/** The runs of `[a-z0-9]` in lowercased ASCII `text` but those longer than `MAX_WORD_LENGTH`. */
function asciiWords(text: string): string[] {
  const words: string[] = [];
  let start = -1;
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? text.charCodeAt(i) : 0;
    if ((c >= 97 && c <= 122) || (c >= 48 && c <= 57)) {
      if (start < 0) start = i;
    } else if (start >= 0) {
      if (i - start <= MAX_WORD_LENGTH) words.push(text.slice(start, i));
      start = -1;
    }
  }
  return words;
}

// ---------------------------------------------------------------------------------------------
// Queries

/** One term of a query: a word, or words that must stand adjacent and in order (a phrase). */
interface SearchTerm {
  /** Folded words, at least one; more than one make a phrase. */
  words: string[];
  /** Whether it was written as a "quoted phrase" (a word with punctuation is a phrase too). */
  phrase: boolean;
  /** `-term`: the post must not contain it. */
  negated: boolean;
  /** Its last word matches any word it begins (the last word of the query, while typing). */
  prefix: boolean;
}

/** Terms joined by `or`: one of them must hold. */
type SearchClause = SearchTerm[];

/** Clauses that must all hold. Empty: the query has no word and matches nothing. */
export interface SearchQuery {
  clauses: SearchClause[];
}

interface RawTerm {
  text: string;
  quoted: boolean;
  negated: boolean;
}

/** The chunks of a query: quoted phrases, `or`, and other runs of non-space characters. */
function rawTerms(q: string): (RawTerm | 'or')[] {
  const out: (RawTerm | 'or')[] = [];
  const chunk = /(-?)"([^"]*)"?|(\S+)/g;
  for (let m = chunk.exec(q); m !== null; m = chunk.exec(q)) {
    if (m[3] === undefined) {
      out.push({ text: m[2]!, quoted: true, negated: m[1] === '-' });
    } else if (m[3].toLowerCase() === 'or') {
      out.push('or');
    } else {
      const negated = m[3].startsWith('-') && m[3].length > 1;
      out.push({ text: negated ? m[3].slice(1) : m[3], quoted: false, negated });
    }
  }
  return out;
}

/**
 * The query `q` in web-search syntax: words in any order, all required; `"quoted words"` adjacent
 * and in order; `-word` or `-"a phrase"` excluded; `or` between two terms for either (binding
 * tighter than the implicit AND: `a b or c` is a AND (b OR c)); a word with punctuation inside is
 * the phrase of its words (`e-mail` is `"e mail"`). The last word of the query matches as a prefix
 * when it has at least `MIN_PREFIX_LENGTH` characters, unless the query ends with a space or a
 * closing quote. Terms without any word are dropped, and
 * an `or` missing a side is ignored. A query whose clauses all contain an excluded term has no
 * required word: it matches nothing (`clauses` is empty).
 */
export function parseSearchQuery(q: string): SearchQuery {
  const clauses: SearchClause[] = [];
  let joinNext = false;
  let last: SearchTerm | null = null;
  let lastRaw: RawTerm | null = null;
  for (const raw of rawTerms(q)) {
    if (raw === 'or') {
      joinNext = clauses.length > 0;
      continue;
    }
    const words = searchTokens(raw.text);
    if (words.length === 0) continue;
    const term: SearchTerm = { words, phrase: raw.quoted || words.length > 1, negated: raw.negated, prefix: false };
    if (joinNext) clauses[clauses.length - 1]!.push(term);
    else clauses.push([term]);
    joinNext = false;
    last = term;
    lastRaw = raw;
  }
  const closed = lastRaw?.quoted === true && q.endsWith('"');
  const long = last !== null && [...last.words[last.words.length - 1]!].length >= MIN_PREFIX_LENGTH;
  if (last !== null && long && !/\s$/.test(q) && !closed) last.prefix = true;
  return { clauses: clauses.some((clause) => clause.every((term) => !term.negated)) ? clauses : [] };
}

// ---------------------------------------------------------------------------------------------
// Documents

/** Where a word stands: title (A), excerpt or tags (B), body (C). PostgreSQL's tsvector weights. */
type SearchWeight = 'A' | 'B' | 'C';

/** The fields of a post that are searched. */
export interface SearchFields {
  title: string;
  excerpt: string;
  tags: readonly string[];
  body: string;
}

/** A post as searched: each word with its positions, ascending, and the weight at each. */
export type SearchDocument = Map<string, { pos: number[]; weight: SearchWeight[] }>;

const WEIGHT_ORDER: Record<SearchWeight, number> = { A: 3, B: 2, C: 1 };

/** The UTF-8 length of `word` (a lone surrogate counts as the 3 bytes of U+FFFD). */
function utf8Length(word: string): number {
  let n = 0;
  for (let i = 0; i < word.length; i++) {
    const c = word.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < word.length && (word.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

/**
 * The document of a post: the words of the title (weight A), then of the excerpt and of each tag
 * (B), then of the body (C), numbered from 1 with a gap between fields (and between tags) so that
 * no phrase spans two of them. Positions past `MAX_POSITION` stand at it; a word keeps its first
 * `MAX_POSITIONS_PER_WORD` positions; two at one position keep the heavier weight.
 * It holds the first `MAX_DOCUMENT_WORDS` distinct words in that order, up to
 * `MAX_DOCUMENT_WORD_BYTES` of them: a word first met when the document is full, or whose bytes do
 * not fit beside the words it holds, is left out (its position still counts, so no phrase spans it).
 */
export function searchDocument(fields: SearchFields): SearchDocument {
  const parts: [string, SearchWeight][] = [
    [fields.title, 'A'],
    [fields.excerpt, 'B'],
    ...fields.tags.map((tag): [string, SearchWeight] => [tag, 'B']),
    [fields.body, 'C'],
  ];
  const doc: SearchDocument = new Map();
  let next = 1;
  let bytes = 0;
  for (const [text, weight] of parts) {
    const words = searchTokens(text);
    for (const word of words) {
      const at = Math.min(next++, MAX_POSITION);
      const entry = doc.get(word);
      if (entry === undefined) {
        const size = utf8Length(word);
        if (doc.size >= MAX_DOCUMENT_WORDS || bytes + size > MAX_DOCUMENT_WORD_BYTES) continue;
        bytes += size;
        doc.set(word, { pos: [at], weight: [weight] });
        continue;
      }
      const i = entry.pos.length - 1;
      if (i >= 0 && entry.pos[i] === at) {
        if (WEIGHT_ORDER[weight] > WEIGHT_ORDER[entry.weight[i]!]) entry.weight[i] = weight;
      } else if (entry.pos.length < MAX_POSITIONS_PER_WORD) {
        entry.pos.push(at);
        entry.weight.push(weight);
      }
    }
    if (words.length > 0) next++;
  }
  return doc;
}

/** The document as PostgreSQL's `tsvector` input (`'word':1A,5C …`); words are letters and digits, never quoted. */
export function documentVectorText(doc: SearchDocument): string {
  let out = '';
  for (const [word, { pos, weight }] of doc) {
    out += `${out === '' ? '' : ' '}'${word}':${pos[0]}${weight[0]}`;
    for (let i = 1; i < pos.length; i++) out += `,${pos[i]}${weight[i]}`;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Matching and rank

/** The weights a match may use: every field, or the title, excerpt and tags, or the title only. */
type WeightSet = ReadonlySet<SearchWeight>;
const EVERY_FIELD: WeightSet = new Set(['A', 'B', 'C']);
const TITLE_EXCERPT_TAGS: WeightSet = new Set(['A', 'B']);
const TITLE: WeightSet = new Set(['A']);

/** The positions of `word` (or, as a prefix, of every word it begins) with an allowed weight. */
function positionsOf(doc: SearchDocument, word: string, prefix: boolean, weights: WeightSet): Set<number> {
  const found = new Set<number>();
  const add = (entry: { pos: number[]; weight: SearchWeight[] }) =>
    entry.pos.forEach((p, i) => {
      if (weights.has(entry.weight[i]!)) found.add(p);
    });
  if (!prefix) {
    const entry = doc.get(word);
    if (entry !== undefined) add(entry);
    return found;
  }
  for (const [candidate, entry] of doc) if (candidate.startsWith(word)) add(entry);
  return found;
}

/** Whether the words of `term` stand in `doc`, adjacent and in order, at allowed weights. */
function termOccurs(doc: SearchDocument, term: SearchTerm, weights: WeightSet): boolean {
  const n = term.words.length;
  const sets = term.words.map((word, i) => positionsOf(doc, word, term.prefix && i === n - 1, weights));
  for (const start of sets[0]!) if (sets.every((set, i) => set.has(start + i))) return true;
  return false;
}

/**
 * Whether `query` matches `doc`: every clause holds, a clause when one of its terms does, a term
 * when it occurs (an excluded term when it does not). An empty query matches nothing.
 */
export function matchesDocument(doc: SearchDocument, query: SearchQuery): boolean {
  return matchesWithin(doc, query, EVERY_FIELD);
}

function matchesWithin(doc: SearchDocument, query: SearchQuery, weights: WeightSet): boolean {
  if (query.clauses.length === 0) return false;
  return query.clauses.every((clause) =>
    clause.some((term) => termOccurs(doc, term, term.negated ? EVERY_FIELD : weights) !== term.negated),
  );
}

/**
 * How a match ranks, its class: 3 when the query matches the title alone, 2 when it matches the
 * title, excerpt and tags (without the body), 1 when it needs the body. (Excluded terms are
 * excluded from the whole post in every class.) A store ranks by class, then may order within a
 * class by how well the words match (their frequency and closeness), then by id.
 */
export function matchClass(doc: SearchDocument, query: SearchQuery): 1 | 2 | 3 {
  if (matchesWithin(doc, query, TITLE)) return 3;
  if (matchesWithin(doc, query, TITLE_EXCERPT_TAGS)) return 2;
  return 1;
}

/** The query as PostgreSQL's `tsquery` input, its words limited to the weights in `weights` ('' for every field). */
export function queryText(query: SearchQuery, weights: '' | 'A' | 'AB' = ''): string {
  const term = (t: SearchTerm): string => {
    const w = t.negated ? '' : weights;
    const words = t.words.map((word, i) => {
      const prefix = t.prefix && i === t.words.length - 1 ? '*' : '';
      return `'${word}'${prefix || w ? `:${prefix}${w}` : ''}`;
    });
    const text = words.length === 1 ? words[0]! : `(${words.join(' <-> ')})`;
    return t.negated ? `!${text}` : text;
  };
  return query.clauses.map((clause) => (clause.length === 1 ? term(clause[0]!) : `(${clause.map(term).join(' | ')})`)).join(' & ');
}
