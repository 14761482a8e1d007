import { useEffect, useRef } from 'react';
import { Link } from 'react-router';
import { SCHEDULE_TIME } from '../../lib/schedule-time';
import type { PostSummary } from './queries';

const dateFormat = new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeStyle: 'short' });
/** A publishing time, in the author's time zone, named. */
const scheduleFormat = new Intl.DateTimeFormat('en', SCHEDULE_TIME);

interface Props {
  posts: PostSummary[];
  caption: string;
  selected: ReadonlySet<string>;
  onSelect: (ids: string[], checked: boolean) => void;
  /** The time the last column shows: the last edit, or when a scheduled post publishes itself. */
  when?: 'updatedAt' | 'publishAt';
}

/** The posts shown, one row each, with a checkbox naming its post and one for every row shown. */
export function PostsTable({ posts, caption, selected, onSelect, when = 'updatedAt' }: Props) {
  const count = posts.filter((post) => selected.has(post.id)).length;
  const all = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (all.current) all.current.indeterminate = count > 0 && count < posts.length;
  }, [count, posts.length]);
  return (
    <div className="table-scroll">
      <table className="posts-table">
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            <th scope="col" className="select-cell">
              <input
                ref={all}
                type="checkbox"
                aria-label={`Select all ${posts.length} posts shown`}
                checked={count === posts.length}
                onChange={(event) =>
                  onSelect(
                    posts.map((post) => post.id),
                    event.currentTarget.checked,
                  )
                }
              />
            </th>
            <th scope="col">Title</th>
            <th scope="col" className="wide-only">
              Slug
            </th>
            <th scope="col" className="wide-only">
              Tags
            </th>
            <th scope="col">{when === 'publishAt' ? 'Publishes' : 'Updated'}</th>
          </tr>
        </thead>
        <tbody>
          {posts.map((post) => (
            <tr key={post.id}>
              <td className="select-cell">
                <input
                  type="checkbox"
                  aria-label={`Select “${post.title}”`}
                  checked={selected.has(post.id)}
                  onChange={(event) => onSelect([post.id], event.currentTarget.checked)}
                />
              </td>
              <td>
                <Link to={`/posts/${post.id}`}>{post.title}</Link>
              </td>
              <td className="wide-only">
                <code>{post.slug}</code>
              </td>
              <td className="wide-only">{post.tags.join(', ')}</td>
              <td>
                <When post={post} when={when} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The row's time: a scheduled post's publishing time in local time, or its last edit. */
function When({ post, when }: { post: PostSummary; when: 'updatedAt' | 'publishAt' }) {
  const instant = when === 'publishAt' ? post.publishAt : post.updatedAt;
  if (instant === null) return null;
  return <time dateTime={instant}>{(when === 'publishAt' ? scheduleFormat : dateFormat).format(new Date(instant))}</time>;
}
