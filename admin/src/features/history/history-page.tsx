import { type FormEvent } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import type { Post } from '../../../../src/client/index.js';
import { ProblemAlert } from '../../components/problem-alert';
import { useDocumentTitle } from '../../lib/page';
import { ApiProblem, unreachable } from '../../lib/problem';
import { changesOf } from './changes';
import './history.css';
import { useCurrentPost, useRevisionDiff, useRevisions, type Against, type RevisionSummary } from './queries';
import { RestoreRevision } from './restore-revision';
import { RevisionDiffView, sideName } from './revision-diff-view';

const dateFormat = new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeStyle: 'short' });

const asProblem = (error: unknown): ApiProblem => (error instanceof ApiProblem ? error : unreachable());

const versionOf = (value: string | null): number | null => (value !== null && /^[1-9][0-9]{0,9}$/.test(value) ? Number(value) : null);

/** The comparison the URL names (`?version=2&against=current`), so a diff can be linked to and reloaded. */
function useComparison(): { version: number | null; against: Against; choose: (version: number, against: Against) => void } {
  const [params, setParams] = useSearchParams();
  const version = versionOf(params.get('version'));
  const against = versionOf(params.get('against')) ?? 'current';
  const choose = (next: number, nextAgainst: Against) =>
    setParams(nextAgainst === 'current' ? { version: String(next) } : { version: String(next), against: String(nextAgainst) });
  return { version, against, choose };
}

/** A post's history (`/posts/:id/history`): its revisions, the diff of one against current or another, and restore. */
export default function HistoryPage() {
  const { id = '' } = useParams();
  const post = useCurrentPost(id);
  useDocumentTitle(post.data ? `History of “${post.data.title}”` : 'History');
  return (
    <>
      <h1>{post.data ? `History of “${post.data.title}”` : 'History'}</h1>
      <p>
        <Link to={`/posts/${id}`}>Back to the editor</Link>
      </p>
      {post.error ? (
        <ProblemAlert error={asProblem(post.error)} />
      ) : post.data ? (
        <History post={post.data} />
      ) : (
        <p aria-live="polite">Loading the post…</p>
      )}
    </>
  );
}

function History({ post }: { post: Post }) {
  const revisions = useRevisions(post.id);
  const { version, against, choose } = useComparison();
  const items = revisions.data?.pages.flatMap((page) => page.items) ?? [];
  return (
    <>
      <section aria-labelledby="revisions-title" className="revisions">
        <h2 id="revisions-title">Revisions</h2>
        {revisions.error && <ProblemAlert error={asProblem(revisions.error)} />}
        {!revisions.data && !revisions.error && <p aria-live="polite">Loading the revisions…</p>}
        {items.length > 0 && <RevisionTable items={items} current={post.version} />}
        {revisions.hasNextPage && (
          <button type="button" onClick={() => void revisions.fetchNextPage()} disabled={revisions.isFetchingNextPage}>
            {revisions.isFetchingNextPage ? 'Loading…' : 'Load older revisions'}
          </button>
        )}
      </section>
      {items.length > 0 && (
        <section aria-labelledby="compare-title" className="compare">
          <h2 id="compare-title">Compare</h2>
          <CompareForm
            key={`${version}-${against}`}
            versions={items.map((r) => r.version)}
            version={version}
            against={against}
            onChoose={choose}
          />
          {version !== null && <Comparison post={post} version={version} against={against} />}
        </section>
      )}
    </>
  );
}

function RevisionTable({ items, current }: { items: RevisionSummary[]; current: number }) {
  return (
    <div className="table-scroll">
      <table>
        <thead>
          <tr>
            <th scope="col">Version</th>
            <th scope="col">Saved</th>
            <th scope="col">By</th>
            <th scope="col">What changed</th>
            <th scope="col">Compare</th>
          </tr>
        </thead>
        <tbody>
          {items.map((revision, i) => (
            <tr key={revision.version}>
              <td>{revision.version === current ? `${revision.version} (current)` : revision.version}</td>
              <td>
                <time dateTime={revision.createdAt}>{dateFormat.format(new Date(revision.createdAt))}</time>
                {revision.autosave && ' (autosaved)'}
              </td>
              <td>{revision.actor.name}</td>
              <td>{changesOf(revision, items[i + 1])}</td>
              <td>
                {revision.version !== current && (
                  <Link to={{ search: `?version=${revision.version}` }}>
                    With current<span className="visually-hidden"> (version {revision.version})</span>
                  </Link>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function CompareForm(props: {
  versions: number[];
  version: number | null;
  against: Against;
  onChoose: (version: number, against: Against) => void;
}) {
  const { versions } = props;
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const against = String(form.get('against'));
    props.onChoose(Number(form.get('version')), against === 'current' ? 'current' : Number(against));
  }
  return (
    <form className="compare-form" onSubmit={submit}>
      <label htmlFor="compare-version">Version</label>
      <select id="compare-version" name="version" defaultValue={props.version ?? versions[1] ?? versions[0]}>
        {versions.map((v) => (
          <option key={v} value={v}>
            Version {v}
          </option>
        ))}
      </select>
      <label htmlFor="compare-against">against</label>
      <select id="compare-against" name="against" defaultValue={String(props.against)}>
        <option value="current">Current</option>
        {versions.map((v) => (
          <option key={v} value={v}>
            Version {v}
          </option>
        ))}
      </select>
      <button type="submit">Compare</button>
    </form>
  );
}

function Comparison({ post, version, against }: { post: Post; version: number; against: Against }) {
  const diff = useRevisionDiff(post.id, version, against);
  if (diff.error) return <ProblemAlert error={asProblem(diff.error)} />;
  if (!diff.data) return <p aria-live="polite">Loading the diff…</p>;
  return (
    <div className="comparison">
      <h3>
        What goes from {sideName(diff.data.from)} to {sideName(diff.data.to)}
      </h3>
      {against === 'current' && (
        <p>
          Restoring version {version} brings back its title, excerpt, body, tags, cover image and search and sharing (SEO) fields; the slug
          and status stay as they are.
        </p>
      )}
      <RevisionDiffView diff={diff.data} />
      <RestoreRevision key={version} post={post} version={version} />
    </div>
  );
}
