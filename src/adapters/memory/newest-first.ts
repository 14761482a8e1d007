import { decodeCursor, encodeCursor, type CursorField } from '../../domain/cursor.js';
import { checkedPageLimit, hasCursor, pageOf } from '../../domain/paging.js';
import { compareUtf8 } from '../../domain/text.js';

/** The position of a newest-first list: `[iso instant, id]`. */
const POSITION: readonly CursorField[] = ['instant', 'string'];

interface Keyed<T> {
  row: T;
  at: number;
  id: string;
}

/** Newest first: the instant descending, ties by id descending (byte order). */
function newestFirst(a: { at: number; id: string }, b: { at: number; id: string }): number {
  return b.at - a.at || compareUtf8(b.id, a.id);
}

/**
 * A page of `rows` newest first (by `at(row)`, ties by id, both descending) after the position
 * `query.cursor` carries, as the store's keyset lists page: a cursor is `[iso instant, id]` of
 * the last row of its page, issued for `scope`.
 * @throws InvalidCursorError for a cursor of another scope, or no cursor at all
 * @throws RangeError for a limit out of 1 to 100
 */
export function newestFirstPage<T extends { id: string }>(
  rows: Iterable<T>,
  at: (row: T) => Date,
  scope: string,
  query: { limit: number; cursor?: string | null | undefined },
): { items: T[]; nextCursor: string | null } {
  const limit = checkedPageLimit(query.limit);
  let after: { at: number; id: string } | null = null;
  if (hasCursor(query.cursor)) {
    const [iso, id] = decodeCursor(query.cursor, scope, POSITION) as [string, string];
    after = { at: Date.parse(iso), id };
  }
  const keyed: Keyed<T>[] = [];
  for (const row of rows) {
    const k = { row, at: at(row).getTime(), id: row.id };
    if (after === null || newestFirst(k, after) > 0) keyed.push(k);
  }
  const page = pageOf(keyed.sort(newestFirst), limit, (last) => encodeCursor(scope, [new Date(last.at).toISOString(), last.id]));
  return { items: page.items.map((k) => k.row), nextCursor: page.nextCursor };
}
