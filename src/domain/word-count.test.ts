import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { countWords } from './word-count.js';

describe('countWords', () => {
  it('returns 0 for empty or whitespace-only input', () => {
    expect(countWords('')).toBe(0);
    expect(countWords('  \n\t \r\n ')).toBe(0);
  });

  it('counts plain words separated by whitespace and punctuation', () => {
    expect(countWords('Hello, world! How are you?')).toBe(5);
  });

  it('counts contractions and hyphenated compounds as one word', () => {
    expect(countWords("Don't use state-of-the-art tools")).toBe(4);
    expect(countWords('It’s fine')).toBe(2);
  });

  it('splits on dashes that are not between two word characters', () => {
    expect(countWords('well -- known - fact')).toBe(3);
    expect(countWords('a--b')).toBe(2);
  });

  it('counts numbers and non-Latin letters as words', () => {
    expect(countWords('Version 2 shipped in 2024')).toBe(5);
    expect(countWords('Привет мир καλημέρα')).toBe(3);
  });

  it('keeps letters with combining marks in one word', () => {
    expect(countWords('cafe\u0301 noir')).toBe(2);
  });

  it('ignores heading, emphasis, quote and bullet markers', () => {
    const md = ['# Title here', '', '> **bold** and _italic_', '', '- one', '* two', '+ three', '', '---'].join('\n');
    expect(countWords(md)).toBe(8);
  });

  it('does not count ordered-list numbers as words', () => {
    expect(countWords('1. first\n2) second\n10. tenth')).toBe(3);
  });

  it('excludes fenced code blocks entirely', () => {
    const md = ['Before code', '```ts', 'const answer = 42;', '```', 'after code'].join('\n');
    expect(countWords(md)).toBe(4);
  });

  it('excludes tilde fences and requires a closing fence at least as long', () => {
    const md = ['start', '~~~~', 'hidden words', '~~~', 'still hidden', '~~~~', 'end'].join('\n');
    expect(countWords(md)).toBe(2);
  });

  it('treats an unclosed fence as running to the end of the document', () => {
    expect(countWords('visible\n```\nnever closed code')).toBe(1);
  });

  it('counts inline code as words without the backticks', () => {
    expect(countWords('Call `render` then `flush`')).toBe(4);
  });

  it('counts only the text of a link, not its URL', () => {
    expect(countWords('See [the docs](https://example.com/docs/getting-started "Docs title") now')).toBe(4);
  });

  it('counts only the alt text of an image', () => {
    expect(countWords('![a red fox](images/fox-photo.png) jumps')).toBe(4);
    expect(countWords('![](images/spacer.gif)')).toBe(0);
  });

  it('counts a linked image by its alt text', () => {
    expect(countWords('[![build status](https://ci.example/badge.svg)](https://ci.example)')).toBe(2);
  });

  it('counts reference links by their text and drops link definitions', () => {
    const md = 'Read [the guide][guide] today.\n\n[guide]: https://example.com/guide "Guide"';
    expect(countWords(md)).toBe(4);
  });

  it('strips HTML tags but keeps their text', () => {
    expect(countWords('<p class="lead">Hello <em>there</em></p><br/>friend')).toBe(3);
  });

  it('drops HTML comments, scripts and styles with their contents', () => {
    const md = 'one <!-- not counted --> two <script>var x = 1;</script><style>p { color: red }</style> three';
    expect(countWords(md)).toBe(3);
  });

  it('does not count autolink URLs', () => {
    expect(countWords('Visit <https://example.com> today')).toBe(2);
  });

  it('treats named entities as whitespace and decodes numeric ones', () => {
    expect(countWords('fish&nbsp;&amp;&nbsp;chips')).toBe(2);
    expect(countWords('caf&#233; &#x41;BC')).toBe(2);
  });

  it('ignores footnote markers', () => {
    expect(countWords('A claim[^1] here.')).toBe(3);
  });

  it('handles Windows line endings around fences', () => {
    expect(countWords('text\r\n```\r\ncode here\r\n```\r\nmore')).toBe(2);
  });
});

/** The rule as written before its fast paths: every step on every text, every match made. */
function referenceCount(markdown: string): number {
  const fenced: string[] = [];
  let open: string | null = null;
  for (const line of markdown.split(/\r\n|\r|\n/)) {
    const fence = /^(?:[ \t]*>)*[ \t]*(`{3,}|~{3,})(.*)$/.exec(line);
    if (open === null) {
      if (fence && !(fence[1]!.startsWith('`') && fence[2]!.includes('`'))) open = fence[1]!;
      else fenced.push(line);
    } else if (fence && fence[1]![0] === open[0] && fence[1]!.length >= open.length && fence[2]!.trim() === '') open = null;
  }
  const destination = String.raw`\(\s*(?:<[^>\n]*>|(?:[^()\s]|\([^()\s]*\))*)(?:\s+(?:"[^"]*"|'[^']*'|\([^()]*\)))?\s*\)`;
  const decode = (_: string, dec?: string, hex?: string) => {
    const code = dec !== undefined ? Number.parseInt(dec, 10) : Number.parseInt(hex ?? '', 16);
    return Number.isInteger(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : ' ';
  };
  const text = fenced
    .join('\n')
    .replace(/<!--[\s\S]*?(?:-->|$)/g, ' ')
    .replace(/<(script|style)\b[^>]*>[\s\S]*?(?:<\/\1\s*>|$)/gi, ' ')
    .replace(/<\/?[A-Za-z][^<>]*>/g, ' ')
    .replace(/&#(?:(\d{1,7})|[xX]([0-9a-fA-F]{1,6}));/g, decode)
    .replace(/&[A-Za-z][A-Za-z0-9]{1,31};/g, ' ')
    .replace(/^[ \t]{0,3}\[[^\]]+\]:[ \t]*\S+.*$/gm, ' ')
    .replace(/\[\^[^\]\s]+\]/g, ' ')
    .replace(new RegExp(String.raw`!\[([^\]]*)\]${destination}`, 'g'), ' $1 ')
    .replace(new RegExp(String.raw`\[([^\]]*)\]${destination}`, 'g'), ' $1 ')
    .replace(/!?\[([^\]]*)\]\[[^\]]*\]/g, ' $1 ')
    .replace(/^((?:[ \t]*>)*)[ \t]*\d{1,9}[.)](?=\s|$)/gm, '$1 ');
  return text.match(/[\p{L}\p{N}\p{M}]+(?:['’\-‐][\p{L}\p{N}\p{M}]+)*/gu)?.length ?? 0;
}

describe('countWords fast paths', () => {
  const pieces = [
    'word',
    'Two',
    '42',
    ' ',
    '\n',
    '\r\n',
    '\r',
    '-',
    '--',
    "'",
    '’',
    '‐',
    '.',
    ')',
    '1.',
    '2)',
    '> ',
    '```',
    '~~~',
    '`',
    '<',
    '>',
    '<b>',
    '</b>',
    '<!--',
    '-->',
    '<script>',
    '</script>',
    '&',
    '&amp;',
    '&#38;',
    '&#233;',
    '&#x5b;',
    '&#91;',
    '[',
    ']',
    '(',
    '[a](b)',
    '![alt](x.png)',
    '[t][r]',
    '[r]: http://x',
    '[^1]',
    'é',
    'caf\u0301',
    'мир',
    '_',
    '#',
  ];
  const markdown = fc.array(fc.constantFrom(...pieces), { maxLength: 40 }).map((parts) => parts.join(''));

  it('count as the rule does on any text', () => {
    fc.assert(
      fc.property(markdown, (md) => countWords(md) === referenceCount(md)),
      { numRuns: 3000 },
    );
  });

  it('count as the rule does on a body of plain prose', () => {
    const prose = "# Notes on caching\n\nThe cache's state-of-the-art hit rate -- 93 % -- holds.\n\n- one item\n- 2nd item\n";
    expect(countWords(prose)).toBe(referenceCount(prose));
  });
});
