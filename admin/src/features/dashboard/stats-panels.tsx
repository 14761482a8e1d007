import { useState, type ReactNode } from 'react';
import { Link } from 'react-router';
import { ProblemAlert } from '../../components/problem-alert';
import { ApiProblem, unreachable } from '../../lib/problem';
import { useTagCounts } from '../../lib/tag-counts';
import { useStats } from './queries';

const number = new Intl.NumberFormat('en');
const asProblem = (error: Error | null) => (error === null ? null : error instanceof ApiProblem ? error : unreachable());

/** Tags shown before "Show all". */
const FEW_TAGS = 10;

/** How many posts each tab of the posts list has (each a link to it), the words published and the month's edits. */
export function StatusCounts() {
  const stats = useStats();
  const error = asProblem(stats.error);
  const data = stats.data;
  const rows = data
    ? [
        // As the posts list's tabs: the scheduled drafts apart from the others, each post once.
        { status: 'draft', label: 'Drafts', count: data.posts.draft - data.posts.scheduled },
        { status: 'scheduled', label: 'Scheduled', count: data.posts.scheduled },
        { status: 'published', label: 'Published', count: data.posts.published },
        { status: 'archived', label: 'Archived', count: data.posts.archived },
      ]
    : [];
  return (
    <section aria-labelledby="stats-status" className="panel">
      <h2 id="stats-status">Posts by status</h2>
      {error && <ProblemAlert error={error} />}
      {stats.isPending && <p>Loading the counts…</p>}
      {data && (
        <>
          <CountTable
            label="Status"
            rows={[
              ...rows.map((row) => ({
                key: row.status,
                label: <Link to={`/posts?status=${row.status}`}>{row.label}</Link>,
                count: row.count,
              })),
              { key: 'total', label: 'Total', count: data.posts.total },
            ]}
          />
          <p>
            {number.format(data.wordsPublished)} words published; {number.format(data.editsPerDay.reduce((sum, day) => sum + day.edits, 0))}{' '}
            edits in the last 30 days.
          </p>
        </>
      )}
    </section>
  );
}

/** How many posts carry each tag, most used first; the first ten, then all on demand. */
export function TagCounts() {
  const tags = useTagCounts();
  const [all, setAll] = useState(false);
  const error = asProblem(tags.error);
  const items = tags.data ?? [];
  const shown = all ? items : items.slice(0, FEW_TAGS);
  return (
    <section aria-labelledby="stats-tags" className="panel">
      <h2 id="stats-tags">Posts by tag</h2>
      {error && <ProblemAlert error={error} />}
      {tags.isPending && <p>Loading the tags…</p>}
      {tags.data && items.length === 0 && <p>No post has a tag yet.</p>}
      {shown.length > 0 && <CountTable label="Tag" rows={shown.map((tag) => ({ key: tag.name, label: tag.name, count: tag.count }))} />}
      {!all && items.length > FEW_TAGS && (
        <button type="button" className="secondary" onClick={() => setAll(true)}>
          Show all {items.length} tags
        </button>
      )}
    </section>
  );
}

/** A two-column table: what is counted (a row header each) and how many posts. */
function CountTable({ label, rows }: { label: string; rows: { key: string; label: ReactNode; count: number }[] }) {
  return (
    <table>
      <thead>
        <tr>
          <th scope="col">{label}</th>
          <th scope="col" className="number">
            Posts
          </th>
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={row.key}>
            <th scope="row">{row.label}</th>
            <td className="number">{number.format(row.count)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
