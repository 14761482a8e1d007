import { useEffect, useState, type FormEvent } from 'react';
import type { components, ExportQuery } from '../../../../src/client/index.js';
import { Field } from '../../components/field';
import { ProblemAlert } from '../../components/problem-alert';
import { problemOf, unreachable, type ApiProblem } from '../../lib/problem';
import { useSession } from '../../lib/session';
import { offerDownload, sizeOf } from './download';

type Layout = NonNullable<ExportQuery['layout']>;
type PostStatus = components['schemas']['PostStatus'];

const LAYOUTS: { layout: Layout; label: string; hint: string }[] = [
  { layout: 'flat', label: 'MarginCMS', hint: '<slug>.md at the root with MarginCMS’s front matter: what an import reads back exactly.' },
  { layout: 'hugo', label: 'Hugo', hint: 'content/posts/<slug>.md with the keys Hugo expects, and MarginCMS’s under margin.' },
];

const STATUSES: { status: PostStatus; label: string }[] = [
  { status: 'draft', label: 'Drafts' },
  { status: 'published', label: 'Published' },
  { status: 'archived', label: 'Archived' },
];

/** What the last export saved: its object URL (kept for "save again", revoked when replaced), name and size. */
interface Saved {
  url: string;
  filename: string;
  size: number;
}

/** The export: a layout and the filters the API offers, then the zip through src/client, saved by the browser. */
export function ExportSection() {
  const { client } = useSession();
  const [layout, setLayout] = useState<Layout>('flat');
  const [statuses, setStatuses] = useState<PostStatus[]>(STATUSES.map((s) => s.status));
  const [tag, setTag] = useState('');
  const [pending, setPending] = useState(false);
  const [problem, setProblem] = useState<ApiProblem | null>(null);
  const [saved, setSaved] = useState<Saved | null>(null);
  useEffect(() => (saved ? () => URL.revokeObjectURL(saved.url) : undefined), [saved]);

  const toggle = (status: PostStatus, on: boolean) =>
    setStatuses((current) => STATUSES.map((s) => s.status).filter((s) => (s === status ? on : current.includes(s))));

  async function exportSite(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (statuses.length === 0) return;
    setPending(true);
    setProblem(null);
    try {
      const query: ExportQuery = {
        layout,
        ...(statuses.length < STATUSES.length ? { status: statuses } : {}),
        ...(tag.trim() ? { tag: tag.trim() } : {}),
      };
      const result = await client.exportSite(query);
      if (result.error !== undefined) {
        setProblem(problemOf(result.error, result.response));
        return;
      }
      const { archive, filename } = result.data;
      setSaved({ url: offerDownload(archive, filename), filename, size: archive.size });
    } catch {
      setProblem(unreachable());
    } finally {
      setPending(false);
    }
  }

  const tagError = problem?.fieldError('/query/tag');
  return (
    <section aria-labelledby="export-title" className="site-section">
      <h2 id="export-title">Export</h2>
      <p>Every post as a markdown file (front matter, then the body), in one zip with a manifest.</p>
      <form onSubmit={exportSite} noValidate aria-labelledby="export-title">
        <fieldset>
          <legend>Layout</legend>
          {LAYOUTS.map((l) => (
            <div key={l.layout} className="choice">
              <input
                type="radio"
                id={`layout-${l.layout}`}
                name="layout"
                checked={layout === l.layout}
                onChange={() => setLayout(l.layout)}
                aria-describedby={`layout-${l.layout}-hint`}
              />
              <label htmlFor={`layout-${l.layout}`}>{l.label}</label>
              <p id={`layout-${l.layout}-hint`} className="hint">
                {l.hint}
              </p>
            </div>
          ))}
        </fieldset>
        <fieldset aria-describedby={statuses.length === 0 ? 'export-status-error' : undefined}>
          <legend>Posts</legend>
          {STATUSES.map((s) => (
            <div key={s.status} className="choice">
              <input
                type="checkbox"
                id={`export-${s.status}`}
                checked={statuses.includes(s.status)}
                onChange={(e) => toggle(s.status, e.target.checked)}
              />
              <label htmlFor={`export-${s.status}`}>{s.label}</label>
            </div>
          ))}
          {statuses.length === 0 && (
            <p id="export-status-error" className="field-error">
              Choose at least one status.
            </p>
          )}
        </fieldset>
        <Field id="export-tag" label="Tag" hint="Only the posts with this tag; empty for every tag." error={tagError}>
          {(p) => (
            <input
              id={p.id}
              type="text"
              value={tag}
              onChange={(e) => setTag(e.target.value)}
              aria-describedby={p.describedBy}
              aria-invalid={p.invalid || undefined}
              spellCheck={false}
            />
          )}
        </Field>
        <button type="submit" disabled={pending || statuses.length === 0}>
          {pending ? 'Exporting…' : 'Download the zip'}
        </button>
      </form>
      {problem && !tagError && <ProblemAlert error={problem} />}
      <p aria-live="polite">
        {saved && (
          <>
            Exported {saved.filename} ({sizeOf(saved.size)}).{' '}
            <a href={saved.url} download={saved.filename}>
              Save it again
            </a>
          </>
        )}
      </p>
    </section>
  );
}
