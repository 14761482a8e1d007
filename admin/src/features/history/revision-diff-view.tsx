import { parsePatch } from 'diff';
import type { ReactNode } from 'react';
import { LineDiff, type DiffLine } from '../../components/line-diff';
import { FIELD_LABELS } from '../../lib/post-fields';
import type { RevisionDiff } from './queries';

type Side = RevisionDiff['from'];

/** How a side is named: "current (version 4)" or "version 2". */
export const sideName = (side: Side): string => (side.current ? `current (version ${side.version})` : `version ${side.version}`);

const shown = (value: string) => (value === '' ? '(empty)' : value);

interface Hunk {
  start: number;
  lines: DiffLine[];
  /** The last line of the body is the same text on both sides, with a line break after it on one only. */
  lastLineBreak: boolean;
}

/**
 * The hunks of the server's unified diff (jsdiff's parsePatch), each as lines of the line diff.
 * A patch says a last line without a line break as removed and added again (`-end`, `\ No newline
 * at end of file`, `+end`): the same text both sides, shown as one line, not as a change.
 */
function hunksOf(unified: string): Hunk[] {
  return (parsePatch(unified)[0]?.hunks ?? []).map((hunk) => {
    const lines: (DiffLine & { open: boolean })[] = [];
    for (const line of hunk.lines) {
      if (line.startsWith('\\')) {
        if (lines.length > 0) lines[lines.length - 1]!.open = true;
        continue;
      }
      lines.push({ text: line.slice(1), kind: line[0] === '+' ? 'added' : line[0] === '-' ? 'removed' : 'same', open: false });
    }
    const removed = lines.findLastIndex((line) => line.kind === 'removed');
    const added = lines.findLastIndex((line) => line.kind === 'added');
    const lastLineBreak =
      removed !== -1 && added > removed && lines[removed]!.text === lines[added]!.text && lines[removed]!.open !== lines[added]!.open;
    if (lastLineBreak) {
      lines[added]!.kind = 'same';
      lines.splice(removed, 1);
    }
    return { start: hunk.newStart, lines: lines.map(({ text, kind }) => ({ text, kind })), lastLineBreak };
  });
}

function BodyChange({ body, from, to }: { body: RevisionDiff['body']; from: string; to: string }) {
  const hunks = hunksOf(body.unified);
  // The last line counted once as removed and once as added when only its line break differs.
  const breakOnly = hunks.some((hunk) => hunk.lastLineBreak) ? 1 : 0;
  const additions = body.additions === null ? null : body.additions - breakOnly;
  const deletions = body.deletions === null ? null : body.deletions - breakOnly;
  if (additions === 0 && deletions === 0) return <p>Only the line break after the last line differs.</p>;
  const counts =
    additions === null || deletions === null
      ? null
      : `${additions} ${additions === 1 ? 'line' : 'lines'} only in ${to}, ${deletions} only in ${from}.`;
  return (
    <>
      {counts && <p>{counts}</p>}
      {body.truncated && (
        <p>
          {hunks.length === 0
            ? 'The bodies differ too much to show line by line.'
            : 'The diff is cut short: it shows the changes that fitted.'}
        </p>
      )}
      {hunks.map((hunk) => (
        <LineDiff
          key={hunk.start}
          lines={hunk.lines}
          label={`Body from line ${hunk.start} of ${to}`}
          added={`Only in ${to}: `}
          removed={`Only in ${from}: `}
        />
      ))}
    </>
  );
}

type CoverImage = RevisionDiff['coverImage']['from'];
type PostSeo = RevisionDiff['seo']['from'];

/** A cover as one line: none (empty), or its image and its alt text. */
const coverText = (cover: CoverImage): string => (cover === null ? '' : `image ${cover.mediaId}, alt “${cover.alt}”`);

/** The SEO fields as one line; a field left to the post's own is "(the post's)". */
const seoText = (seo: PostSeo): string => {
  const own = (value: string | null) => (value === null ? '(the post’s)' : `“${value}”`);
  return `title ${own(seo.title)}, description ${own(seo.description)}, canonical URL ${own(seo.canonicalUrl)}`;
};

/** The fields that differ between the two sides of `diff`, each as its two values, tags as sets, the body as lines. */
export function RevisionDiffView({ diff }: { diff: RevisionDiff }) {
  const from = sideName(diff.from);
  const to = sideName(diff.to);
  if (diff.changed.length === 0)
    return (
      <p>
        No difference: {to} is the same as {from}.
      </p>
    );
  const pair = (a: string, b: string): ReactNode => (
    <>
      <p>
        <span className="diff-side">{capital(from)}:</span> {shown(a)}
      </p>
      <p>
        <span className="diff-side">{capital(to)}:</span> {shown(b)}
      </p>
    </>
  );
  const change: Record<RevisionDiff['changed'][number], () => ReactNode> = {
    title: () => pair(diff.title.from, diff.title.to),
    slug: () => pair(diff.slug.from, diff.slug.to),
    excerpt: () => pair(diff.excerpt.from, diff.excerpt.to),
    status: () => pair(diff.status.from, diff.status.to),
    tags: () => (
      <>
        {diff.tags.added.length > 0 && (
          <p>
            <span className="diff-side">Only in {to}:</span> {diff.tags.added.join(', ')}
          </p>
        )}
        {diff.tags.removed.length > 0 && (
          <p>
            <span className="diff-side">Only in {from}:</span> {diff.tags.removed.join(', ')}
          </p>
        )}
      </>
    ),
    coverImage: () => pair(coverText(diff.coverImage.from), coverText(diff.coverImage.to)),
    seo: () => pair(seoText(diff.seo.from), seoText(diff.seo.to)),
    body: () => <BodyChange body={diff.body} from={from} to={to} />,
  };
  return (
    <dl className="diff-fields">
      {diff.changed.map((name) => (
        <div key={name} className="diff-field">
          <dt>{FIELD_LABELS[name]}</dt>
          <dd>{change[name]()}</dd>
        </div>
      ))}
    </dl>
  );
}

const capital = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
