import { describe, expect, it } from 'vitest';
import { diffBodies, MAX_EDIT_LINES, MAX_UNIFIED_CHARS } from './body-diff.js';

const lines = (count: number, make: (i: number) => string) => Array.from({ length: count }, (_, i) => make(i)).join('\n') + '\n';
const side = (body: string, label: string) => ({ body, label });

describe('diffBodies', () => {
  it('writes a unified diff with three lines of context, headers naming both sides, and exact counts', () => {
    const from = lines(10, (i) => `line ${i}`);
    const to = from.replace('line 5\n', 'line five\nline 5b\n');
    const result = diffBodies(side(from, 'body v1'), side(to, 'body v2'));
    expect(result).toEqual({
      changed: true,
      additions: 2,
      deletions: 1,
      truncated: false,
      unified: [
        '--- body v1',
        '+++ body v2',
        '@@ -3,7 +3,8 @@',
        ' line 2',
        ' line 3',
        ' line 4',
        '-line 5',
        '+line five',
        '+line 5b',
        ' line 6',
        ' line 7',
        ' line 8',
        '',
      ].join('\n'),
    });
  });

  it('answers unchanged with empty text for equal bodies', () => {
    expect(diffBodies(side('same\n', 'a'), side('same\n', 'b'))).toEqual({
      changed: false,
      additions: 0,
      deletions: 0,
      unified: '',
      truncated: false,
    });
  });

  it('marks a missing final newline the way patch(1) reads it', () => {
    const result = diffBodies(side('a\nb', 'x'), side('a\nb\n', 'y'));
    expect(result.unified).toContain('\\ No newline at end of file');
    expect(result).toMatchObject({ additions: 1, deletions: 1 });
  });

  it(`gives up past ${MAX_EDIT_LINES} edited lines: no text, null counts, truncated`, () => {
    const count = MAX_EDIT_LINES / 2 + 10;
    const result = diffBodies(
      side(
        lines(count, (i) => `old ${i}`),
        'a',
      ),
      side(
        lines(count, (i) => `new ${i}`),
        'b',
      ),
    );
    expect(result).toEqual({ changed: true, additions: null, deletions: null, unified: '', truncated: true });
  });

  it('ends a diff longer than 1 MiB at the last whole hunk that fits, with the counts of the whole diff', () => {
    // 400 changed lines of 3 KiB, each far enough from the next to be its own hunk: about 2.4 MiB of diff.
    const filler = 'x'.repeat(3072);
    const from = lines(400 * 8, (i) => (i % 8 === 0 ? `${i} ${filler}` : `${i}`));
    const to = lines(400 * 8, (i) => (i % 8 === 0 ? `${i} ${filler}!` : `${i}`));
    const result = diffBodies(side(from, 'a'), side(to, 'b'));
    expect(result.truncated).toBe(true);
    expect(result).toMatchObject({ changed: true, additions: 400, deletions: 400 });
    expect(result.unified.length).toBeLessThanOrEqual(MAX_UNIFIED_CHARS);
    expect(result.unified.length).toBeGreaterThan(MAX_UNIFIED_CHARS - 20_000);
    const hunks = result.unified.split('\n').filter((line: string) => line.startsWith('@@'));
    expect(hunks.length).toBeGreaterThan(100);
    expect(hunks.length).toBeLessThan(400);
    // The text ends with a whole hunk: its last line is context, not a cut line.
    expect(result.unified.endsWith('\n')).toBe(true);
    expect(result.unified.trimEnd().split('\n').at(-1)).toMatch(/^ \d+$/);
  });
});
