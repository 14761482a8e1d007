import { useId, type FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router';
import { ProblemAlert } from '../../components/problem-alert';
import { useDocumentTitle } from '../../lib/page';
import { ApiProblem, unreachable } from '../../lib/problem';
import { usePostList, type PostStatus, type PostSummary } from './queries';

const STATUSES: { status: PostStatus; label: string }[] = [
  { status: 'draft', label: 'Drafts' },
  { status: 'published', label: 'Published' },
  { status: 'archived', label: 'Archived' },
];

const isStatus = (value: string | null): value is PostStatus => STATUSES.some((s) => s.status === value);

const dateFormat = new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeStyle: 'short' });

/** The search a list has, as the URL says it (so a list can be linked to and reloaded). */
function listSearch(status: PostStatus, q: string): string {
  const params = new URLSearchParams({ status });
  if (q) params.set('q', q);
  return `?${params.toString()}`;
}

/** The posts of a status (tabs as links: each list has its URL), searched, paged with "Load more". */
export function PostsPage() {
  const [params, setParams] = useSearchParams();
  const given = params.get('status');
  const status: PostStatus = isStatus(given) ? given : 'draft';
  const q = params.get('q') ?? '';
  const list = usePostList({ status, q });
  const searchId = useId();
  const label = STATUSES.find((s) => s.status === status)!.label;
  useDocumentTitle(`Posts: ${label.toLowerCase()}`);

  function search(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const value = String(new FormData(event.currentTarget).get('q') ?? '').trim();
    setParams(listSearch(status, value));
  }

  const posts: PostSummary[] = list.data?.pages.flatMap((page) => page.items) ?? [];
  const first = list.data?.pages[0];
  const error = list.error === null ? null : list.error instanceof ApiProblem ? list.error : unreachable();

  return (
    <>
      <h1>Posts</h1>
      <nav aria-label="Post status" className="tabs">
        <ul>
          {STATUSES.map((s) => (
            <li key={s.status}>
              <Link to={{ search: listSearch(s.status, q) }} aria-current={s.status === status ? 'page' : undefined}>
                {s.label}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <form role="search" className="search" onSubmit={search}>
        <label htmlFor={searchId}>Search posts</label>
        <input id={searchId} name="q" type="search" defaultValue={q} key={q} />
        <button type="submit">Search</button>
      </form>
      <p>
        <Link to="/posts/new" className="button-link">
          New post
        </Link>
      </p>
      {error && <ProblemAlert error={error} />}
      <p aria-live="polite" className="count">
        {list.isPending ? 'Loading posts…' : first ? countText(first.total, first.totalExact, label, q) : ''}
      </p>
      {posts.length > 0 && (
        <div className="table-scroll">
          <table>
            <caption className="visually-hidden">
              {label}
              {q ? ` matching “${q}”` : ''}
            </caption>
            <thead>
              <tr>
                <th scope="col">Title</th>
                <th scope="col" className="wide-only">
                  Slug
                </th>
                <th scope="col">Updated</th>
              </tr>
            </thead>
            <tbody>
              {posts.map((post) => (
                <tr key={post.id}>
                  <td>
                    <Link to={`/posts/${post.id}`}>{post.title}</Link>
                  </td>
                  <td className="wide-only">
                    <code>{post.slug}</code>
                  </td>
                  <td>
                    <time dateTime={post.updatedAt}>{dateFormat.format(new Date(post.updatedAt))}</time>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {list.hasNextPage && (
        <button type="button" onClick={() => void list.fetchNextPage()} disabled={list.isFetchingNextPage}>
          {list.isFetchingNextPage ? 'Loading…' : 'Load more'}
        </button>
      )}
    </>
  );
}

function countText(total: number, exact: boolean, label: string, q: string): string {
  const what = label.toLowerCase();
  const matching = q ? ` matching “${q}”` : '';
  if (total === 0) return `No ${what}${matching}.`;
  return `${exact ? total : `${total}+`} ${total === 1 ? what.replace(/s$/, '') : what}${matching}.`;
}
