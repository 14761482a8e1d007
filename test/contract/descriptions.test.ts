// The spec's prose as the docs render it: Markdown where a wrapped line that begins with a number
// and a dot ("304. Each address…") becomes a numbered list item. A list starts at 1 and counts
// up; any other numbered line is a sentence that wrapped there by accident.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './bundle.js';

/** Every `description` string of `node`, with the JSON path it sits at. */
function descriptions(node: unknown, at = '#'): { at: string; text: string }[] {
  if (Array.isArray(node)) return node.flatMap((item, i) => descriptions(item, `${at}/${i}`));
  if (node === null || typeof node !== 'object') return [];
  return Object.entries(node).flatMap(([key, value]) =>
    key === 'description' && typeof value === 'string' ? [{ at: `${at}/description`, text: value }] : descriptions(value, `${at}/${key}`),
  );
}

/** The lines of `text` that Markdown reads as a numbered item out of a list's 1, 2, 3 order. */
function strayNumberedLines(text: string): string[] {
  const stray: string[] = [];
  let previous = 0;
  for (const line of text.split('\n')) {
    const match = /^\s*(\d+)[.)]\s/.exec(line);
    const number = match ? Number(match[1]) : 0;
    if (match && number !== 1 && number !== previous + 1) stray.push(line.trim());
    if (line.trim() !== '') previous = number;
  }
  return stray;
}

describe('the spec descriptions', () => {
  it('finds a wrapped "304." line (the check itself)', () => {
    expect(strayNumberedLines('answers\n304. Each address')).toEqual(['304. Each address']);
    expect(strayNumberedLines('Steps:\n1. one\n2. two\n3) three')).toEqual([]);
  });

  it('have no line that Markdown would render as a stray numbered list item', () => {
    const bundle: unknown = JSON.parse(readFileSync(join(repoRoot, 'generated/openapi.json'), 'utf8'));
    const found = descriptions(bundle).flatMap(({ at, text }) => strayNumberedLines(text).map((line) => `${at}: ${line}`));
    expect(found).toEqual([]);
  });
});
