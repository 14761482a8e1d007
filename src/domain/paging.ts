import { POST_TOTAL_CAP, type PostQuery } from './ports/post-repository.js';

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
