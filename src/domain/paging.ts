import type { PostSummary } from './post.js';
import { POST_TOTAL_CAP, type PostQuery, type PostSortKey } from './ports/post-repository.js';

/** The largest page any list port returns. */
const PAGE_LIMIT_MAX = 100;

/**
 * A page size as every list port takes it: an integer from 1 to `PAGE_LIMIT_MAX`.
 * @throws RangeError otherwise (a caller's bug: the transport validates what clients send)
 */
export function checkedPageLimit(limit: number): number {
  if (!Number.isInteger(limit) || limit < 1 || limit > PAGE_LIMIT_MAX) {
    throw new RangeError(`limit must be an integer from 1 to ${PAGE_LIMIT_MAX}, got ${limit}`);
  }
  return limit;
}

/**
 * `ids` without repeats, in the order first named, as a port's `getMany` takes them.
 * @throws RangeError with more than `PAGE_LIMIT_MAX` distinct ids (a caller's bug: it reads in pages)
 */
export function checkedIds(ids: readonly string[]): string[] {
  const unique = [...new Set(ids)];
  if (unique.length > PAGE_LIMIT_MAX) throw new RangeError(`at most ${PAGE_LIMIT_MAX} ids are read at once, got ${unique.length}`);
  return unique;
}

/**
 * A batch size of a purge: a positive integer.
 * @throws RangeError otherwise
 */
export function checkedBatchLimit(limit: number): number {
  if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`limit must be a positive integer, got ${limit}`);
  return limit;
}

/** A cursor argument: null or undefined starts at the first page; anything else is decoded. */
export function hasCursor(cursor: string | null | undefined): cursor is string {
  return cursor !== null && cursor !== undefined;
}

/**
 * A page from the rows of a list read in its order, `limit + 1` of them at most: the first
 * `limit`, and, when there were more, the cursor after the last of those (else null).
 */
export function pageOf<T>(rows: readonly T[], limit: number, cursorAfter: (last: T) => string): { items: T[]; nextCursor: string | null } {
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return { items, nextCursor: rows.length > limit && last !== undefined ? cursorAfter(last) : null };
}

/**
 * Where a post stands in a list sorted by `key`, as a cursor carries it (see `postPositionShape`):
 * `[title, id]`, or `[iso instant | null, id]`.
 */
export function postPosition(post: PostSummary, key: Exclude<PostSortKey, 'relevance'>): [string | null, string] {
  if (key === 'title') return [post.title, post.id];
  const instant = post[key];
  return [instant === null ? null : instant.toISOString(), post.id];
}

/** How many matches a post list counts at most: `countUpTo` (a positive integer) or `POST_TOTAL_CAP`. */
export function countLimitOf(query: Pick<PostQuery, 'countUpTo'>): number {
  const limit = query.countUpTo ?? POST_TOTAL_CAP;
  if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`countUpTo must be a positive integer, got ${limit}`);
  return limit;
}

/**
 * `total` and `totalExact` of a post page, from the number of matches counted (exactly, or up to
 * one more than the count limit, which is all a store needs to count).
 */
export function countedTotal(counted: number, query: Pick<PostQuery, 'countUpTo'>): { total: number; totalExact: boolean } {
  const limit = countLimitOf(query);
  return counted > limit ? { total: limit, totalExact: false } : { total: counted, totalExact: true };
}
