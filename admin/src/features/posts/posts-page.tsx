import { useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { ProblemAlert } from '../../components/problem-alert';
import { useDocumentTitle } from '../../lib/page';
import { ApiProblem, unreachable } from '../../lib/problem';
import type { PostListFilters } from '../../lib/query-keys';
import { BulkActions } from './bulk-actions';
import { BulkResults, type BulkOutcome } from './bulk-results';
import { filtersFrom, ListFilters, listSearch, STATUSES, tabFilters } from './list-filters';
import { PostsTable } from './posts-table';
import { useBulkPosts, usePostList, type BulkRequest, type PostSummary } from './queries';

const asProblem = (error: Error | null) => (error === null ? null : error instanceof ApiProblem ? error : unreachable());

/**
 * The posts of a status (tabs as links: each list has its URL), searched, filtered by a tag,
 * sorted, paged with "Load more"; the rows shown can be selected and acted on at once.
 */
export function PostsPage() {
  const [params, setParams] = useSearchParams();
  const filters = filtersFrom(params);
  const tab = STATUSES.find((s) => s.status === filters.status)!;
  useDocumentTitle(`Posts: ${tab.label.toLowerCase()}`);
  const search = listSearch(filters);
  // The list's page first, the tag menu's counts after it: on the embedded store the two queries
  // run one after the other, and the rows are what the reader waits for.
  const list = usePostList(filters);

  return (
    <>
      <h1>Posts</h1>
      <nav aria-label="Post status" className="tabs">
        <ul>
          {STATUSES.map((s) => (
            <li key={s.status}>
              <Link
                to={{ search: listSearch(tabFilters(filters, s.status)) }}
                aria-current={s.status === filters.status ? 'page' : undefined}
              >
                {s.label}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <ListFilters filters={filters} loadTags={!list.isPending} onChange={(next) => setParams(listSearch(next))} />
      <p>
        <Link to="/posts/new" className="button-link">
          New post
        </Link>
      </p>
      {/* A new list starts with nothing selected and no results of a bulk action on another. */}
      <PostsList key={search} list={list} filters={filters} tab={tab} />
    </>
  );
}

interface ListProps {
  list: ReturnType<typeof usePostList>;
  filters: PostListFilters;
  tab: { label: string; noun: string };
}

function PostsList({ list, filters, tab }: ListProps) {
  const bulk = useBulkPosts();
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [outcome, setOutcome] = useState<BulkOutcome | null>(null);
  const posts: PostSummary[] = list.data?.pages.flatMap((page) => page.items) ?? [];
  const first = list.data?.pages[0];
  const chosen = posts.filter((post) => selected.has(post.id));
  const what = describe(tab, filters);

  function select(ids: string[], checked: boolean) {
    setSelected((current) => {
      const next = new Set(current);
      for (const id of ids) {
        if (checked) next.add(id);
        else next.delete(id);
      }
      return next;
    });
  }
  function run(request: BulkRequest) {
    const titles = new Map(chosen.map((post) => [post.id, post.title]));
    setOutcome(null);
    bulk.mutate(request, {
      onSuccess: (result) => {
        setOutcome({ result, titles, ...('tag' in request ? { tag: request.tag } : {}) });
        // What failed stays selected, to try again; what succeeded is done.
        select(
          result.succeeded.map((s) => s.id),
          false,
        );
      },
    });
  }

  const error = asProblem(list.error);
  const bulkError = asProblem(bulk.error);
  return (
    <>
      {error && <ProblemAlert error={error} />}
      <p aria-live="polite" className="count">
        {list.isPending ? 'Loading posts…' : first ? countText(first.total, first.totalExact, what) : ''}
      </p>
      {(posts.length > 0 || outcome !== null) && <BulkActions ids={chosen.map((post) => post.id)} pending={bulk.isPending} onRun={run} />}
      {bulkError && <ProblemAlert error={bulkError} />}
      <BulkResults outcome={outcome} />
      {posts.length > 0 && (
        <PostsTable
          posts={posts}
          caption={what.phrase}
          selected={selected}
          onSelect={select}
          when={filters.status === 'scheduled' ? 'publishAt' : 'updatedAt'}
        />
      )}
      {list.hasNextPage && (
        <button type="button" onClick={() => void list.fetchNextPage()} disabled={list.isFetchingNextPage}>
          {list.isFetchingNextPage ? 'Loading…' : 'Load more'}
        </button>
      )}
    </>
  );
}

/** What the list holds, in words: "drafts" and " tagged “x” matching “y”". */
function describe(tab: { label: string; noun: string }, filters: PostListFilters) {
  const rest = `${filters.tag ? ` tagged “${filters.tag}”` : ''}${filters.q ? ` matching “${filters.q}”` : ''}`;
  return { noun: tab.noun, rest, phrase: `${tab.label}${rest}` };
}

function countText(total: number, exact: boolean, what: { noun: string; rest: string }): string {
  if (total === 0) return `No ${what.noun}${what.rest}.`;
  return `${exact ? total : `${total}+`} ${total === 1 ? what.noun.replace(/s$/, '') : what.noun}${what.rest}.`;
}
