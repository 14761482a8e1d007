import { isAscii } from './text.js';
/**
 * Counts the words of the readable text of a markdown document.
 *
 * Rule, applied in this order:
 * 1. Fenced code blocks (``` or ~~~, closed by a fence of the same character
 *    at least as long; an unclosed fence runs to the end of the document) are
 *    excluded entirely, fences and contents. Indented code blocks are not
 *    recognised and count as text. Inline code counts: only the backticks go.
 * 2. HTML comments and `<script>` / `<style>` elements are removed with their
 *    contents; other HTML tags (and `<url>` autolinks) are removed, their text
 *    content is kept. Numeric character references are decoded; named ones
 *    (`&nbsp;`, `&amp;`, ...) count as whitespace.
 * 3. Images `![alt](src)` count their alt text only; links `[text](url)` and
 *    `[text][ref]` count their text only; link reference definitions
 *    (`[ref]: url`) and footnote markers (`[^1]`) are removed.
 * 4. Ordered-list markers (`1.` / `1)` at the start of a line) are removed.
 *    Other markdown syntax (`#`, `*`, `_`, `>`, `-`, `|`, ...) is not made of
 *    letters or digits and so never forms a word.
 * 5. A word is a maximal run of Unicode letters, digits and combining marks
 *    (`\p{L}\p{N}\p{M}`), where a single apostrophe (`'` or `’`) or hyphen
 *    (`-` or `‐`) between two such runs joins them: "don't" and
 *    "state-of-the-art" are one word each, `snake_case` and `a--b` are two.
 *    Scripts written without spaces (e.g. Chinese) count one word per run.
 *
 * Empty or whitespace-only input counts 0.
 */
export function countWords(markdown: string): number {
  const text = stripMarkdown(markdown);
  return isAscii(text) ? countAsciiWords(text) : (text.match(WORD_PATTERN)?.length ?? 0);
}

const WORD_PATTERN = /[\p{L}\p{N}\p{M}]+(?:['’\-‐][\p{L}\p{N}\p{M}]+)*/gu;

/** Kinds of ASCII characters for `WORD_PATTERN`: `[A-Za-z0-9]`, the joiners `'` and `-`, the rest. */
const OTHER = 0;
const WORD = 1;
const JOINER = 2;

function asciiKind(c: number): number {
  if ((c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57)) return WORD;
  return c === 39 || c === 45 ? JOINER : OTHER;
}

/**
 * The matches of `WORD_PATTERN` in ASCII text, counted without making them: one starts at each
 * run of word characters but a run joined to the one before by a single `'` or `-`.
 */
function countAsciiWords(text: string): number {
  let words = 0;
  let before = OTHER;
  let previous = OTHER;
  for (let i = 0; i < text.length; i++) {
    const kind = asciiKind(text.charCodeAt(i));
    if (kind === WORD && previous !== WORD && !(previous === JOINER && before === WORD)) words++;
    before = previous;
    previous = kind;
  }
  return words;
}

/** Opening fence, optionally inside list indentation or blockquote markers. */
const FENCE_OPEN = /^(?:[ \t]*>)*[ \t]*(`{3,}|~{3,})(.*)$/;

function removeFencedCode(markdown: string): string {
  const kept: string[] = [];
  let openFence: string | null = null;
  for (const line of markdown.split(/\r\n|\r|\n/)) {
    if (openFence === null) {
      const open = FENCE_OPEN.exec(line);
      // A backtick fence's info string may not contain backticks (CommonMark).
      if (open && !(open[1]!.startsWith('`') && open[2]!.includes('`'))) {
        openFence = open[1]!;
      } else {
        kept.push(line);
      }
      continue;
    }
    const close = FENCE_OPEN.exec(line);
    if (close && close[1]![0] === openFence[0] && close[1]!.length >= openFence.length && close[2]!.trim() === '') {
      openFence = null;
    }
  }
  return kept.join('\n');
}

/** A link or image destination with optional title: `(url)`, `(<url>)`, `(url "title")`. */
const DESTINATION = String.raw`\(\s*(?:<[^>\n]*>|(?:[^()\s]|\([^()\s]*\))*)(?:\s+(?:"[^"]*"|'[^']*'|\([^()]*\)))?\s*\)`;
const IMAGE = new RegExp(String.raw`!\[([^\]]*)\]${DESTINATION}`, 'g');
const INLINE_LINK = new RegExp(String.raw`\[([^\]]*)\]${DESTINATION}`, 'g');
const REFERENCE_LINK = /!?\[([^\]]*)\]\[[^\]]*\]/g;
const LINK_DEFINITION = /^[ \t]{0,3}\[[^\]]+\]:[ \t]*\S+.*$/gm;
const FOOTNOTE_MARKER = /\[\^[^\]\s]+\]/g;

function decodeNumericReference(_: string, dec?: string, hex?: string): string {
  const codePoint = dec !== undefined ? Number.parseInt(dec, 10) : Number.parseInt(hex ?? '', 16);
  return Number.isInteger(codePoint) && codePoint > 0 && codePoint <= 0x10ffff ? String.fromCodePoint(codePoint) : ' ';
}

/**
 * Rules 1-4. Each group of steps runs only when the text holds the character all its patterns
 * need (most bodies have no HTML, entity or link): skipped, it would have changed nothing.
 * Fences are looked for line by line only when there may be one, or a `\r` to normalise.
 */
function stripMarkdown(markdown: string): string {
  const fenced = markdown.includes('```') || markdown.includes('~~~') || markdown.includes('\r');
  let text = fenced ? removeFencedCode(markdown) : markdown;
  if (text.includes('<')) {
    text = text
      .replace(/<!--[\s\S]*?(?:-->|$)/g, ' ')
      .replace(/<(script|style)\b[^>]*>[\s\S]*?(?:<\/\1\s*>|$)/gi, ' ')
      .replace(/<\/?[A-Za-z][^<>]*>/g, ' ');
  }
  if (text.includes('&')) {
    text = text.replace(/&#(?:(\d{1,7})|[xX]([0-9a-fA-F]{1,6}));/g, decodeNumericReference).replace(/&[A-Za-z][A-Za-z0-9]{1,31};/g, ' ');
  }
  if (text.includes('[')) {
    text = text
      .replace(LINK_DEFINITION, ' ')
      .replace(FOOTNOTE_MARKER, ' ')
      .replace(IMAGE, ' $1 ')
      .replace(INLINE_LINK, ' $1 ')
      .replace(REFERENCE_LINK, ' $1 ');
  }
  return /\d[.)]/.test(text) ? text.replace(/^((?:[ \t]*>)*)[ \t]*\d{1,9}[.)](?=\s|$)/gm, '$1 ') : text;
}
