import { InvalidCursorError } from './errors.js';
import { compareUtf8, isStorableText } from './text.js';
import type { ActivityQuery } from './ports/activity-log.js';
import type { PostQuery, PostSortKey } from './ports/post-repository.js';

/**
 * Keyset pagination cursors, one format for every adapter.
 *
 * A cursor is the base64url (no padding) of the UTF-8 JSON `[1, scopeHash, position]`:
 * - `1` is the format version;
 * - `scopeHash` is a 64-bit FNV-1a hash (16 hex digits) of the canonical scope string, so a cursor
 *   used with another list, sort or filter is refused without carrying the filters themselves;
 * - `position` is the keyset of the last item returned: `[sortValue, id]` for posts (an ISO
 *   instant or null, the title, or the rank), `[version]` for revisions, `[occurredAtIso, id]` for activity.
 *
 * Cursors are opaque to clients but not secret: they are not signed.
 */

const FORMAT_VERSION = 1;

/** One field of a keyset position, checked by `decodeCursor` when a shape is given. */
export type CursorField = 'string' | 'string|null' | 'instant' | 'instant|null' | 'integer' | 'number';

/** The position of a post list sorted by `key`: `[title, id]`, `[iso, id]`, `[iso | null, id]` or `[rank, id]`. */
export function postPositionShape(key: PostSortKey): readonly CursorField[] {
  switch (key) {
    case 'relevance':
      return ['number', 'string'];
    case 'title':
      return ['string', 'string'];
    case 'publishedAt':
    case 'publishAt':
      return ['instant|null', 'string'];
    case 'createdAt':
    case 'updatedAt':
      return ['instant', 'string'];
  }
}
/** The position of a revision list: `[version]`. */
export const REVISION_POSITION: readonly CursorField[] = ['integer'];
/** The position of an activity list: `[occurredAtIso, id]`. */
export const ACTIVITY_POSITION: readonly CursorField[] = ['instant', 'string'];

const utf8 = new TextEncoder();
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

// ---------------------------------------------------------------------------------------------
// Scope

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) {
    const items = value.map(canonical);
    // Arrays of strings are sets (statuses): order and repeats do not make another scope.
    if (items.every((item) => typeof item === 'string')) {
      return [...new Set(items as string[])].sort(compareUtf8);
    }
    return items;
  }
  if (value instanceof Date) return value.toISOString();
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort(compareUtf8)) {
      const v = (value as Record<string, unknown>)[key];
      if (v !== undefined) out[key] = canonical(v);
    }
    return out;
  }
  return value;
}

/**
 * A stable canonical JSON string of the parts that make a list: keys sorted, `undefined` values
 * dropped, arrays of strings sorted and deduplicated, Dates as ISO strings.
 */
export function cursorScope(parts: Record<string, unknown>): string {
  return JSON.stringify(canonical(parts));
}

/**
 * The scope of `PostRepository.list`: the sort and every filter (an empty status list means all).
 * `order: 'newest'`: the pages of a relevance list that match more posts than it ranks, newest
 * published first (the port's Relevance rule), a scope of their own.
 */
export function postCursorScope(query: Pick<PostQuery, 'status' | 'scheduled' | 'tag' | 'q' | 'sort'>, order?: 'newest'): string {
  return cursorScope({
    list: 'posts',
    sort: `${query.sort.key}:${query.sort.direction}`,
    order,
    status: query.status !== undefined && query.status.length > 0 ? [...query.status] : undefined,
    scheduled: query.scheduled,
    tag: query.tag,
    q: query.q !== undefined && query.q !== '' ? query.q : undefined,
  });
}

/** The scope of `RevisionRepository.list`: one post's history. */
export function revisionCursorScope(postId: string): string {
  return cursorScope({ list: 'revisions', postId });
}

/** The scope of `ActivityLog.list`: the post and type filters. */
export function activityCursorScope(query: Pick<ActivityQuery, 'postId' | 'type'>): string {
  return cursorScope({ list: 'activity', postId: query.postId, type: query.type });
}

// ---------------------------------------------------------------------------------------------
// Encoding

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const LOOKUP = new Map<string, number>([...ALPHABET].map((ch, i) => [ch, i]));

/** base64url without padding. */
export function base64UrlEncode(bytes: Uint8Array): string {
  let out = '';
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    out += ALPHABET[n >> 18]! + ALPHABET[(n >> 12) & 63]! + ALPHABET[(n >> 6) & 63]! + ALPHABET[n & 63]!;
  }
  const rest = bytes.length - i;
  if (rest === 1) {
    const n = bytes[i]! << 16;
    out += ALPHABET[n >> 18]! + ALPHABET[(n >> 12) & 63]!;
  } else if (rest === 2) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8);
    out += ALPHABET[n >> 18]! + ALPHABET[(n >> 12) & 63]! + ALPHABET[(n >> 6) & 63]!;
  }
  return out;
}

/** Strict base64url decoding (no padding, no stray bits); null for anything else. */
export function base64UrlDecode(text: string): Uint8Array | null {
  if (text.length % 4 === 1) return null;
  const sextets: number[] = [];
  for (const ch of text) {
    const v = LOOKUP.get(ch);
    if (v === undefined) return null;
    sextets.push(v);
  }
  const out = new Uint8Array(Math.floor((sextets.length * 6) / 8));
  let o = 0;
  let i = 0;
  for (; i + 3 < sextets.length; i += 4) {
    const n = (sextets[i]! << 18) | (sextets[i + 1]! << 12) | (sextets[i + 2]! << 6) | sextets[i + 3]!;
    out[o++] = n >> 16;
    out[o++] = (n >> 8) & 255;
    out[o++] = n & 255;
  }
  const rest = sextets.length - i;
  if (rest === 2) {
    const n = (sextets[i]! << 18) | (sextets[i + 1]! << 12);
    if ((n & 0xffff) !== 0) return null;
    out[o++] = n >> 16;
  } else if (rest === 3) {
    const n = (sextets[i]! << 18) | (sextets[i + 1]! << 12) | (sextets[i + 2]! << 6);
    if ((n & 0xff) !== 0) return null;
    out[o++] = n >> 16;
    out[o++] = (n >> 8) & 255;
  }
  return out;
}

const FNV_OFFSET = 0xcbf29ce484222325n;
const FNV_PRIME = 0x100000001b3n;
const MASK_64 = (1n << 64n) - 1n;

/** Hashes of recent scopes: a list's scope repeats from page to page, and BigInt arithmetic is slow. */
const recentScopeHashes = new Map<string, string>();
const RECENT_SCOPES = 512;

function scopeHash(scope: string): string {
  let hash = recentScopeHashes.get(scope);
  if (hash === undefined) {
    if (recentScopeHashes.size >= RECENT_SCOPES) recentScopeHashes.clear();
    hash = fnv1a64(scope);
    recentScopeHashes.set(scope, hash);
  }
  return hash;
}

function fnv1a64(scope: string): string {
  let h = FNV_OFFSET;
  for (const byte of utf8.encode(scope)) {
    h = ((h ^ BigInt(byte)) * FNV_PRIME) & MASK_64;
  }
  return h.toString(16).padStart(16, '0');
}

/** An opaque cursor for `position` within the list described by `scope` (see `cursorScope`). */
export function encodeCursor(scope: string, position: unknown[]): string {
  return base64UrlEncode(utf8.encode(JSON.stringify([FORMAT_VERSION, scopeHash(scope), position])));
}

function fieldMatches(field: CursorField, value: unknown): boolean {
  switch (field) {
    case 'string':
      return typeof value === 'string' && isStorableText(value);
    case 'string|null':
      return value === null || (typeof value === 'string' && isStorableText(value));
    case 'integer':
      // Versions and other keys are 32-bit integers in storage.
      return typeof value === 'number' && Number.isInteger(value) && value >= -2147483648 && value <= 2147483647;
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'instant':
      return typeof value === 'string' && isIsoInstant(value);
    case 'instant|null':
      return value === null || (typeof value === 'string' && isIsoInstant(value));
  }
}

/** An instant as `Date.toISOString` writes it, within years 0001–9999 (what every store can hold). */
function isIsoInstant(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(value) || value.startsWith('0000')) return false;
  const d = new Date(value);
  return !Number.isNaN(d.getTime()) && d.toISOString() === value;
}

/**
 * The position carried by `cursor`.
 * @param shape when given, the position must have exactly these fields (instants are ISO strings
 *   as `Date.toISOString` writes them).
 * @throws InvalidCursorError when `cursor` is not a cursor, was issued for another scope, or its
 *   position does not have `shape`.
 */
export function decodeCursor(cursor: string, scope: string, shape?: readonly CursorField[]): unknown[] {
  return decodeCursorAmong(cursor, [{ scope, shape }]).position;
}

/**
 * The position carried by `cursor`, issued for one of `lists` (each a scope and, optionally, the
 * shape of its positions), and the index of that list: for a list whose pages may come in one of
 * two orders, each with a scope of its own.
 * @throws InvalidCursorError as `decodeCursor`, when the cursor was issued for none of them.
 */
function decodeCursorAmong(
  cursor: string,
  lists: readonly { scope: string; shape?: readonly CursorField[] | undefined }[],
): { index: number; position: unknown[] } {
  const bytes = typeof cursor === 'string' && cursor.length > 0 ? base64UrlDecode(cursor) : null;
  if (bytes === null) throw new InvalidCursorError('not a cursor');
  let envelope: unknown;
  try {
    envelope = JSON.parse(strictUtf8.decode(bytes));
  } catch {
    throw new InvalidCursorError('not a cursor');
  }
  if (
    !Array.isArray(envelope) ||
    envelope.length !== 3 ||
    envelope[0] !== FORMAT_VERSION ||
    typeof envelope[1] !== 'string' ||
    !Array.isArray(envelope[2])
  ) {
    throw new InvalidCursorError('not a cursor');
  }
  const issuedFor = envelope[1];
  const index = lists.findIndex((list) => issuedFor === scopeHash(list.scope));
  if (index < 0) throw new InvalidCursorError('it was issued for another sort or other filters');
  const position = envelope[2] as unknown[];
  const shape = lists[index]!.shape;
  if (shape !== undefined && (position.length !== shape.length || !shape.every((field, i) => fieldMatches(field, position[i])))) {
    throw new InvalidCursorError('not a cursor');
  }
  return { index, position };
}

/** Where a relevance list resumes: after a rank, or after a `publishedAt` when it lists newest first. */
export type RelevancePosition = { order: 'rank'; value: number; id: string } | { order: 'newest'; value: string | null; id: string };

/**
 * The position of a relevance list's cursor (`PostQuery.sort` 'relevance') and the order its pages
 * come in: ranked (`[rank, id]`, the list's scope) or newest published first (`[iso | null, id]`,
 * `postCursorScope(query, 'newest')`).
 */
export function decodeRelevanceCursor(
  cursor: string,
  query: Pick<PostQuery, 'status' | 'scheduled' | 'tag' | 'q' | 'sort'>,
): RelevancePosition {
  const { index, position } = decodeCursorAmong(cursor, [
    { scope: postCursorScope(query), shape: postPositionShape('relevance') },
    { scope: postCursorScope(query, 'newest'), shape: postPositionShape('publishedAt') },
  ]);
  const [value, id] = position as [number | string | null, string];
  return index === 0 ? { order: 'rank', value: value as number, id } : { order: 'newest', value: value as string | null, id };
}
