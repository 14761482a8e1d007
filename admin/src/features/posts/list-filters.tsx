import { useId, type FormEvent } from 'react';
import type { PostListFilters } from '../../lib/query-keys';
import { useTagCounts } from '../../lib/tag-counts';
import type { PostSort, PostStatus } from './queries';

export const STATUSES: { status: PostStatus; label: string }[] = [
  { status: 'draft', label: 'Drafts' },
  { status: 'published', label: 'Published' },
  { status: 'archived', label: 'Archived' },
];

/** Every order the API sorts by (PostSort), as the sort menu names it. */
const SORTS = {
  '-updatedAt': 'Updated, newest first',
  updatedAt: 'Updated, oldest first',
  '-createdAt': 'Created, newest first',
  createdAt: 'Created, oldest first',
  '-publishedAt': 'Published, newest first',
  publishedAt: 'Published, oldest first',
  title: 'Title, A to Z',
  '-title': 'Title, Z to A',
} satisfies Record<PostSort, string>;

const DEFAULT_SORT: PostSort = '-updatedAt';

const isStatus = (value: string | null): value is PostStatus => STATUSES.some((s) => s.status === value);
const isSort = (value: string | null): value is PostSort => value !== null && Object.hasOwn(SORTS, value);

/** The list's filters as the URL's search params say them; anything unknown is the default. */
export function filtersFrom(params: URLSearchParams): PostListFilters {
  const status = params.get('status');
  const sort = params.get('sort');
  return {
    status: isStatus(status) ? status : 'draft',
    q: params.get('q') ?? '',
    tag: params.get('tag') ?? '',
    sort: isSort(sort) ? sort : DEFAULT_SORT,
  };
}

/** The search a list has, as the URL says it (so a list can be linked to, reloaded, gone back to). */
export function listSearch(filters: PostListFilters): string {
  const params = new URLSearchParams({ status: filters.status });
  if (filters.q) params.set('q', filters.q);
  if (filters.tag) params.set('tag', filters.tag);
  if (filters.sort !== DEFAULT_SORT) params.set('sort', filters.sort);
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
    onChange({
      status: filters.status,
      q: String(data.get('q') ?? '').trim(),
      tag: String(data.get('tag') ?? ''),
      sort: isSort(sort) ? sort : DEFAULT_SORT,
    });
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
          {Object.entries(SORTS).map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
      </div>
    </form>
  );
}
