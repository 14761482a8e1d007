import { useId } from 'react';
import { Link, useSearchParams } from 'react-router';
import { ProblemAlert } from '../../components/problem-alert';
import { ApiProblem, unreachable } from '../../lib/problem';
import { useActivity, type ActivityEvent, type ActivityType } from './queries';

/** Every type of event (ActivityType), as a sentence says it. */
const VERBS = {
  created: 'created',
  updated: 'updated',
  published: 'published',
  unpublished: 'unpublished',
  archived: 'archived',
  deleted: 'deleted',
  restored: 'restored a revision of',
  scheduled: 'scheduled',
  unscheduled: 'unscheduled',
} satisfies Record<ActivityType, string>;

const isType = (value: string | null): value is ActivityType => value !== null && Object.hasOwn(VERBS, value);
const dateFormat = new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeStyle: 'short' });

/** The activity log, newest first, of one type (in the URL's `type`) or all, paged with "Load more". */
export function RecentActivity() {
  const [params, setParams] = useSearchParams();
  const given = params.get('type');
  const type = isType(given) ? given : '';
  const activity = useActivity(type);
  const typeId = useId();
  const events = activity.data?.pages.flatMap((page) => page.items) ?? [];
  const error = activity.error === null ? null : activity.error instanceof ApiProblem ? activity.error : unreachable();

  return (
    <section aria-labelledby="activity-heading" className="panel panel-wide">
      <h2 id="activity-heading">Recent activity</h2>
      <div className="search">
        <div className="search-field">
          <label htmlFor={typeId}>Type</label>
          <select
            id={typeId}
            value={type}
            onChange={(event) => setParams(event.currentTarget.value ? { type: event.currentTarget.value } : {})}
          >
            <option value="">Every change</option>
            {Object.keys(VERBS).map((t) => (
              <option key={t} value={t}>
                {t[0]!.toUpperCase() + t.slice(1)}
              </option>
            ))}
          </select>
        </div>
      </div>
      {error && <ProblemAlert error={error} />}
      <p aria-live="polite" className="count">
        {activity.isPending ? 'Loading the activity…' : events.length === 0 ? 'No activity yet.' : ''}
      </p>
      {events.length > 0 && (
        <ol className="activity">
          {events.map((event) => (
            <Entry key={event.id} event={event} />
          ))}
        </ol>
      )}
      {activity.hasNextPage && (
        <button type="button" onClick={() => void activity.fetchNextPage()} disabled={activity.isFetchingNextPage}>
          {activity.isFetchingNextPage ? 'Loading…' : 'Load more'}
        </button>
      )}
    </section>
  );
}

/** One event: when, who, what, to which post (a link, unless the event deleted it). */
function Entry({ event }: { event: ActivityEvent }) {
  const title = `“${event.postTitle}”`;
  return (
    <li>
      <time dateTime={event.occurredAt}>{dateFormat.format(new Date(event.occurredAt))}</time>{' '}
      <span>
        {event.actor.name} {VERBS[event.type]} {event.type === 'deleted' ? title : <Link to={`/posts/${event.postId}`}>{title}</Link>}{' '}
        (version {event.postVersion})
      </span>
    </li>
  );
}
