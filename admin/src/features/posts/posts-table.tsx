import { useEffect, useRef } from 'react';
import { Link } from 'react-router';
import type { PostSummary } from './queries';

const dateFormat = new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeStyle: 'short' });

interface Props {
  posts: PostSummary[];
  caption: string;
  selected: ReadonlySet<string>;
  onSelect: (ids: string[], checked: boolean) => void;
}

/** The posts shown, one row each, with a checkbox naming its post and one for every row shown. */
export function PostsTable({ posts, caption, selected, onSelect }: Props) {
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
            <th scope="col">Updated</th>
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
                <time dateTime={post.updatedAt}>{dateFormat.format(new Date(post.updatedAt))}</time>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
