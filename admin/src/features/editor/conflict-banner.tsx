import { useEffect, useRef, useState } from 'react';
import { LineDiff, linesBetween } from '../../components/line-diff';
import { FIELD_LABELS } from '../../lib/post-fields';
import { differingFields, type FieldName, type Fields } from './fields';
import { localTime } from './schedule';

/** Each field named as the editor labels it. */
const LABELS: Record<FieldName, string> = FIELD_LABELS;

const shown = (fields: Fields, name: Exclude<FieldName, 'body'>): string => {
  if (name === 'publishAt') return fields.publishAt === null ? '(not scheduled)' : localTime(fields.publishAt);
  if (name === 'coverImage')
    return fields.coverImage === null ? '(none)' : `image ${fields.coverImage.mediaId}, alt “${fields.coverImage.alt}”`;
  if (name === 'seo') {
    const { title, description, canonicalUrl } = fields.seo;
    return `title “${title}”, description “${description}”, canonical URL “${canonicalUrl}”`;
  }
  const value = name === 'tags' ? fields.tags.join(', ') : fields[name];
  return value === '' ? '(empty)' : value;
};

/** Puts the author's version (front matter and body) on the clipboard. */
function asText(fields: Fields): string {
  const header = [
    `title: ${JSON.stringify(fields.title)}`,
    `slug: ${fields.slug}`,
    `excerpt: ${JSON.stringify(fields.excerpt)}`,
    `tags: [${fields.tags.map((tag) => JSON.stringify(tag)).join(', ')}]`,
    `status: ${fields.status}`,
    ...(fields.publishAt === null ? [] : [`publishAt: ${fields.publishAt}`]),
  ];
  return `---\n${header.join('\n')}\n---\n${fields.body}`;
}

/**
 * A 412 is a conversation: someone saved the post since the author opened it. The banner comes up
 * when a save is refused (`refused`), or before any save, as soon as the editor reads the newer
 * version (on focus). It is an alert, scrolled into view and given focus each time a version
 * arrives, wherever the author was on the page. It shows,
 * field by field, how the author's edit and the post as it is now (`current`) differ, and offers
 * the three ways on: take theirs, apply mine on top of theirs, or copy mine to keep it elsewhere.
 */
export function ConflictBanner({
  mine,
  theirs,
  theirsVersion,
  onKeepTheirs,
  onApplyMine,
  applying,
  refused,
}: {
  mine: Fields;
  theirs: Fields;
  theirsVersion: number;
  /** Whether a save was refused (412), or the newer version was read before any save. */
  refused: boolean;
  onKeepTheirs: () => void;
  onApplyMine: () => void;
  applying: boolean;
}) {
  const [copied, setCopied] = useState<string>('');
  const differing = differingFields(mine, theirs);
  const banner = useRef<HTMLElement>(null);
  useEffect(() => {
    // jsdom has no scrollIntoView.
    banner.current?.scrollIntoView?.({ block: 'start' });
    banner.current?.focus({ preventScroll: true });
  }, [theirsVersion]);

  async function copyMine() {
    try {
      await navigator.clipboard.writeText(asText(mine));
      setCopied('Your version is on the clipboard.');
    } catch {
      setCopied('The clipboard refused: select the body and copy it by hand.');
    }
  }

  return (
    <section ref={banner} className="conflict" role="alert" aria-labelledby="conflict-title" tabIndex={-1}>
      <h2 id="conflict-title">Someone else saved this post meanwhile</h2>
      <p>
        It is now at version {theirsVersion}. {refused ? 'Your edit was not saved.' : 'Your changes are not saved yet.'}{' '}
        {differing.length === 0 ? 'Their version and yours are the same.' : 'Here is how yours differs from theirs:'}
      </p>
      {differing.length > 0 && (
        <dl className="conflict-fields">
          {differing.map((name) => (
            <div key={name} className="conflict-field">
              <dt>{LABELS[name]}</dt>
              <dd>
                {name === 'body' ? (
                  <LineDiff
                    lines={linesBetween(theirs.body, mine.body)}
                    label="Body, line by line"
                    added="Only in yours: "
                    removed="Only in theirs: "
                  />
                ) : (
                  <>
                    <p>
                      <span className="conflict-side">Theirs:</span> {shown(theirs, name)}
                    </p>
                    <p>
                      <span className="conflict-side">Yours:</span> {shown(mine, name)}
                    </p>
                  </>
                )}
              </dd>
            </div>
          ))}
        </dl>
      )}
      <p>“Apply mine on top” saves the fields you changed over their version; the fields you did not change keep theirs.</p>
      <div className="actions">
        <button type="button" onClick={onKeepTheirs} disabled={applying}>
          Keep theirs
        </button>
        <button type="button" onClick={onApplyMine} disabled={applying}>
          {applying ? 'Applying…' : 'Apply mine on top'}
        </button>
        <button type="button" onClick={() => void copyMine()}>
          Copy mine
        </button>
      </div>
      <p aria-live="polite">{copied}</p>
    </section>
  );
}
