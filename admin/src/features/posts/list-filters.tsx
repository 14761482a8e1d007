import { useId, type FormEvent } from 'react';
import type { PostListFilters, PostTab } from '../../lib/query-keys';
import { useTagCounts } from '../../lib/tag-counts';
import type { PostSort } from './queries';

/** The tabs of the list, in order, and what a count calls their posts; `draft` holds the drafts not scheduled. */
export const STATUSES: { status: PostTab; label: string; noun: string }[] = [
  { status: 'draft', label: 'Drafts', noun: 'drafts' },
  { status: 'scheduled', label: 'Scheduled', noun: 'scheduled posts' },
  { status: 'published', label: 'Published', noun: 'published' },
  { status: 'archived', label: 'Archived', noun: 'archived' },
];

/** Every order the API sorts by (PostSort), as the sort menu names it. */
const SORTS = {
  relevance: 'Best match',
  '-updatedAt': 'Updated, newest first',
  updatedAt: 'Updated, oldest first',
  '-createdAt': 'Created, newest first',
  createdAt: 'Created, oldest first',
  '-publishedAt': 'Published, newest first',
  publishedAt: 'Published, oldest first',
  publishAt: 'Publishing, soonest first',
  '-publishAt': 'Publishing, latest first',
  title: 'Title, A to Z',
  '-title': 'Title, Z to A',
} satisfies Record<PostSort, string>;

/** Orders by the scheduled time: offered on the Scheduled tab only (no other post has one). */
const SCHEDULE_SORTS: ReadonlySet<PostSort> = new Set(['publishAt', '-publishAt']);

/**
 * The order a list opens in: with a search, the best matches first (`relevance`, which the API
 * takes only with `q`); else the scheduled posts soonest first, the others last updated first.
 */
function defaultSort(tab: PostTab, q: string): PostSort {
  if (q !== '') return 'relevance';
  return tab === 'scheduled' ? 'publishAt' : '-updatedAt';
}

/** Whether the menu offers `sort` on `tab` with search `q`. */
function offered(sort: PostSort, tab: PostTab, q: string): boolean {
  if (sort === 'relevance') return q !== '';
  return tab === 'scheduled' || !SCHEDULE_SORTS.has(sort);
}

/** The filters of `tab`, keeping the search, the tag and a chosen order (a default order becomes the tab's). */
export function tabFilters(filters: PostListFilters, tab: PostTab): PostListFilters {
  const chosen = filters.sort !== defaultSort(filters.status, filters.q) && offered(filters.sort, tab, filters.q);
  return { ...filters, status: tab, sort: chosen ? filters.sort : defaultSort(tab, filters.q) };
}

const isStatus = (value: string | null): value is PostTab => STATUSES.some((s) => s.status === value);
const isSort = (value: string | null): value is PostSort => value !== null && Object.hasOwn(SORTS, value);

/** The list's filters as the URL's search params say them; anything unknown is the default. */
export function filtersFrom(params: URLSearchParams): PostListFilters {
  const param = params.get('status');
  const status = isStatus(param) ? param : 'draft';
  const sort = params.get('sort');
  const q = params.get('q') ?? '';
  return {
    status,
    q,
    tag: params.get('tag') ?? '',
    sort: isSort(sort) && offered(sort, status, q) ? sort : defaultSort(status, q),
  };
}

/** The search a list has, as the URL says it (so a list can be linked to, reloaded, gone back to). */
export function listSearch(filters: PostListFilters): string {
  const params = new URLSearchParams({ status: filters.status });
  if (filters.q) params.set('q', filters.q);
  if (filters.tag) params.set('tag', filters.tag);
  if (filters.sort !== defaultSort(filters.status, filters.q)) params.set('sort', filters.sort);
  return `?${params.toString()}`;
}

interface Props {
  filters: PostListFilters;
  /** Whether the tags may be asked for: not before the list's page, which the reader waits for. */
  loadTags: boolean;
  onChange: (filters: PostListFilters) => void;
}

/**
 * The search, the tag and the order of the list: a search applies on Enter or "Search", a tag or
 * an order as soon as it is chosen; each is a new URL, so back and forward walk through them.
 */
export function ListFilters({ filters, loadTags, onChange }: Props) {
  const ids = { q: useId(), tag: useId(), sort: useId() };
  const tags = useTagCounts({ enabled: loadTags });
  const options = tags.data?.map((tag) => ({ name: tag.name, label: `${tag.name} (${tag.count})` })) ?? [];
  if (filters.tag && !options.some((option) => option.name === filters.tag)) options.unshift({ name: filters.tag, label: filters.tag });

  function apply(form: HTMLFormElement) {
    const data = new FormData(form);
    const sort = String(data.get('sort'));
    const q = String(data.get('q') ?? '').trim();
    // An order left at the default follows the search: best match first once there is one.
    const chosen = isSort(sort) && sort !== defaultSort(filters.status, filters.q) && offered(sort, filters.status, q);
    onChange({ status: filters.status, q, tag: String(data.get('tag') ?? ''), sort: chosen ? sort : defaultSort(filters.status, q) });
  }
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    apply(event.currentTarget);
  };
  const choose = (event: { currentTarget: HTMLSelectElement }) => apply(event.currentTarget.form!);

  return (
    <form role="search" className="search" onSubmit={submit}>
      <div className="search-field">
        <label htmlFor={ids.q}>Search posts</label>
        <input id={ids.q} name="q" type="search" defaultValue={filters.q} key={filters.q} />
        <button type="submit">Search</button>
      </div>
      <div className="search-field">
        <label htmlFor={ids.tag}>Tag</label>
        <select id={ids.tag} name="tag" value={filters.tag} onChange={choose}>
          <option value="">Any tag</option>
          {options.map((option) => (
            <option key={option.name} value={option.name}>
              {option.label}
            </option>
          ))}
        </select>
      </div>
      <div className="search-field">
        <label htmlFor={ids.sort}>Sort</label>
        <select id={ids.sort} name="sort" value={filters.sort} onChange={choose}>
          {Object.entries(SORTS)
            .filter(([value]) => offered(value as PostSort, filters.status, filters.q))
            .map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
        </select>
      </div>
    </form>
  );
}
