import { diffLines } from 'diff';

/** One line of a line diff: only on the `added` side, only on the `removed` side, or on both. */
export interface DiffLine {
  text: string;
  kind: 'added' | 'removed' | 'same';
}

/** The lines from `from` to `to`, by jsdiff's diffLines (loaded only with the pages that show a diff). */
export function linesBetween(from: string, to: string): DiffLine[] {
  return diffLines(from, to).flatMap((change) =>
    change.value
      .replace(/\n$/, '')
      .split('\n')
      .map((text): DiffLine => ({ text, kind: change.added ? 'added' : change.removed ? 'removed' : 'same' })),
  );
}

/**
 * Lines as a list: an added line in `<ins>`, a removed one in `<del>`, each with a visually
 * hidden prefix (`added`, `removed`: "Only in yours: ") so a screen reader says which side it is on.
 */
export function LineDiff({ lines, label, added, removed }: { lines: DiffLine[]; label: string; added: string; removed: string }) {
  return (
    <ol className="line-diff" aria-label={label}>
      {lines.map(({ text, kind }, i) => (
        <li key={i} className={`line-${kind}`}>
          {kind === 'added' ? (
            <ins>
              <span className="visually-hidden">{added}</span>
              {text}
            </ins>
          ) : kind === 'removed' ? (
            <del>
              <span className="visually-hidden">{removed}</span>
              {text}
            </del>
          ) : (
            text
          )}
        </li>
      ))}
    </ol>
  );
}
