import type { BulkAction, BulkResult } from './queries';

/** What each action did to one post, and what it would have done to one it failed on. */
const DONE: Record<BulkAction, { done: string; failed: string }> = {
  publish: { done: 'published', failed: 'not published' },
  unpublish: { done: 'unpublished', failed: 'not unpublished' },
  archive: { done: 'archived', failed: 'not archived' },
  delete: { done: 'deleted', failed: 'not deleted' },
  addTag: { done: 'tagged', failed: 'not tagged' },
  removeTag: { done: 'untagged', failed: 'not untagged' },
};

export interface BulkOutcome {
  result: BulkResult;
  /** The titles of the posts the action was asked for, by id, as the list showed them. */
  titles: ReadonlyMap<string, string>;
  tag?: string;
}

/**
 * The outcome of the last bulk action, post by post: which succeeded (with their new version) and
 * which failed and why. Inside a live region that is always there, so its arrival is announced.
 */
export function BulkResults({ outcome }: { outcome: BulkOutcome | null }) {
  return (
    <div aria-live="polite" className="bulk-results">
      {outcome && <Outcome {...outcome} />}
    </div>
  );
}

function Outcome({ result, titles, tag }: BulkOutcome) {
  const words = DONE[result.action];
  const name = (id: string) => `“${titles.get(id) ?? id}”`;
  const how = tag ? ` “${tag}”` : '';
  const total = result.succeeded.length + result.failed.length;
  return (
    <section aria-label="Results of the bulk action" className="notice">
      <p className="alert-title">
        {result.succeeded.length} of {total} {words.done}
        {how}
        {result.failed.length > 0 ? `, ${result.failed.length} failed.` : '.'}
      </p>
      <ul className="bulk-list">
        {result.succeeded.map(({ id, version }) => (
          <li key={id} className="bulk-ok">
            {name(id)}: {words.done}
            {how}
            {result.action === 'delete' ? '.' : ` (version ${version}).`}
          </li>
        ))}
        {result.failed.map(({ id, detail }) => (
          <li key={id} className="bulk-failed">
            {name(id)}: {words.failed}
            {how}. {detail}
          </li>
        ))}
      </ul>
    </section>
  );
}
