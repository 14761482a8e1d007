import type { CoverImage, PostSeo } from '../media.js';
import type { Post, PostStatus, PostSummary, UpdateActivityType } from '../post.js';
import type { Actor } from './revision-repository.js';

/** A post as first stored: version 1, `updatedAt` equal to `createdAt` unless given. */
export interface NewPost {
  id: string;
  title: string;
  slug: string;
  excerpt: string;
  body: string;
  tags: string[];
  status: PostStatus;
  wordCount: number;
  createdAt: Date;
  /**
   * The last edit, when the post had a life before this store (an import keeps it); absent for a
   * post written here, whose `updatedAt` is its `createdAt`.
   */
  updatedAt?: Date;
  publishedAt: Date | null;
  publishAt: Date | null;
  /** Absent: no cover. */
  coverImage?: CoverImage | null;
  /** Absent: `NO_SEO`. */
  seo?: PostSeo;
}

/** Who made a change, and its activity event: what a recorded write stores beside the post. */
export interface ChangeRecord {
  /** Who made the change: the actor of its revision (if it leaves one) and of its event. */
  actor: Actor;
  /** The id of the activity event. */
  eventId: string;
  /** When the event occurred, and the time of the revision. */
  occurredAt: Date;
}

/** The start of a new post's history, stored with it by `createRecorded` (a `created` event). */
export type CreationRecord = ChangeRecord;

/** An update's history, stored with it by `updateRecorded`: its activity is of this type. */
export interface UpdateRecord extends ChangeRecord {
  type: UpdateActivityType;
  /** The write is an autosave: its revision is an autosave burst's, and may replace the post's newest (see `updateRecorded`). */
  autosave?: boolean;
}

/** Fields a write may change; absent fields keep their value. */
export interface PostChanges {
  title?: string;
  slug?: string;
  excerpt?: string;
  body?: string;
  tags?: string[];
  status?: PostStatus;
  wordCount?: number;
  publishedAt?: Date | null;
  publishAt?: Date | null;
  /** null removes the cover. */
  coverImage?: CoverImage | null;
  /** The SEO fields, all three (a partial edit is merged by `changesFor` first). */
  seo?: PostSeo;
}

/** `relevance` needs `q` (see the Listing rules); its direction is always 'desc', best first. */
export type PostSortKey = 'updatedAt' | 'createdAt' | 'publishedAt' | 'publishAt' | 'title' | 'relevance';
export interface PostSort {
  key: PostSortKey;
  direction: 'asc' | 'desc';
}

export interface PostQuery {
  /** Only these statuses; absent or empty means every status. */
  status?: readonly PostStatus[];
  /** true: only posts with a `publishAt` (scheduled drafts); false: only posts without one; absent: both. */
  scheduled?: boolean;
  /** Only posts carrying this (already normalised) tag. */
  tag?: string;
  /** A web-search query over title, excerpt, tags and body (`parseSearchQuery`, see the Listing rules). */
  q?: string;
  /**
   * Only what readers may see at this instant: published posts whose `publishedAt` is at or
   * before it. Not part of a cursor's scope, so the pages of one walk may pass different instants.
   */
  visibleAt?: Date;
  sort: PostSort;
  /** 1 to 100. */
  limit: number;
  /** A `nextCursor` returned by an earlier call with the same sort and filters. */
  cursor?: string | null;
  /** Count matches up to this many (a positive integer); defaults to `POST_TOTAL_CAP`. */
  countUpTo?: number;
}

/** How many matches a post page counts at most by default (the contract's `PostPage.total`). */
export const POST_TOTAL_CAP = 1000;

/** What `walk` selects: the status and tag filters of `PostQuery`. */
export type PostFilter = Pick<PostQuery, 'status' | 'tag'>;

export interface PostPage {
  items: PostSummary[];
  nextCursor: string | null;
  /** The number of matches, or `countUpTo` when more match. */
  total: number;
  /** False when more than `countUpTo` posts match. */
  totalExact: boolean;
}

/** Posts per status, zeros included, and `scheduled`: the drafts with a `publishAt` (a subset of `draft`). */
export type PostCounts = Record<PostStatus, number> & { scheduled: number };

export interface TagCount {
  name: string;
  count: number;
}

/**
 * Where posts live. Every adapter passes `describePostRepositoryContract`; each rule below has a
 * test there whose name echoes it.
 *
 * Storage
 * - `create` stores a post at version 1 with `updatedAt = createdAt` (or the `updatedAt` it is
 *   given) and returns it as stored.
 * - `createRecorded(post, record)` is `create` with the start of the post's history in the same
 *   atomic write: its first revision (`revisionOf` the stored post, by `record.actor`, made at
 *   `record.occurredAt` whatever the post's own dates) and a `created` activity event
 *   (`record.eventId` at `record.occurredAt`, the post's title, version 1). All three are stored or none is: a taken slug throws `SlugTakenError`, a duplicate id
 *   `DuplicateIdError`, and neither leaves a revision or an event behind. It is atomic by itself,
 *   outside a unit of work as inside one.
 * - `updateRecorded(before, changes, record)` is `update(before.id, before.version, changes,
 *   record.occurredAt)` with the change's history in the same atomic write: a revision of the
 *   updated post (`revisionOf` it, by `record.actor`, made at `record.occurredAt`) and an event of
 *   `record.type` (`record.eventId` at `record.occurredAt`, the new title and version). `before` is
 *   the post as the caller read it: the store may take from it the fields `changes` keeps instead
 *   of reading them again, so it must be the post as stored at `before.version`. The errors of
 *   `update` (`NotFoundError`, `VersionConflictError` with the actual version, `SlugTakenError`),
 *   and `DuplicateIdError` for an event id already in the log, leave the post, its revisions and
 *   the log as they were. Of N concurrent calls with the same `before` exactly one succeeds. It is
 *   atomic by itself, outside a unit of work as inside one.
 * - Autosave bursts: with `record.autosave`, the revision is an autosave's (`autosaveSince` its
 *   `record.occurredAt`), unless the write continues a burst: when the post's revision at
 *   `before.version` (so no write has recorded another since) is an autosave by the same user
 *   (`actor.id`) whose burst began at most `AUTOSAVE_BURST_MS` before `record.occurredAt`
 *   (`continuesBurst`), that revision is replaced by the write's (it is no longer listed nor got at
 *   its version; the new one keeps its `autosaveSince`), and no event is appended (the burst's
 *   first stands for it; `record.eventId` is unused). A write without `autosave` always appends
 *   its own revision and event. The older revisions read as before, bodies included.
 * - `deleteRecorded(id, expectedVersion, record)` is `delete` with the post's history in the same
 *   atomic write: every revision of the post removed and a `deleted` event appended
 *   (`record.eventId` at `record.occurredAt`, the title and version the post had). The errors of
 *   `delete`, and `DuplicateIdError` for an event id already in the log, change nothing. It is
 *   atomic by itself, outside a unit of work as inside one.
 * - Slugs are unique across every post whatever its status: `create` or `update` with a slug that
 *   another post holds throws `SlugTakenError` and stores nothing. A duplicate id throws
 *   `DuplicateIdError`, a different error.
 * - Timestamps are kept at millisecond precision in UTC: a `Date` goes in and the same instant
 *   comes out, on every adapter. The repository never reads a clock; instants come from callers.
 * - Tags come back in the order they were stored.
 * - The cover image and the SEO fields come back as stored, by every read (`get`, `list`'s
 *   summaries, `walk`, the recorded writes); a post created without them has no cover
 *   (`coverImage` null) and `NO_SEO`. An update changes them only when `changes` names them, and
 *   a recorded write's revision records them.
 * - `get` and `getBySlug` return null, never throw, for a missing post.
 * - `getMany(ids)` returns the posts of `ids` that exist, whole as `get` returns them, in the order
 *   of `ids`, each once however often it is named; a missing id is left out, and no ids give [].
 *   It takes at most `PAGE_LIMIT_MAX` (100) distinct ids (a RangeError beyond), read together.
 *
 * Writes guarded by a version (optimistic concurrency, decided by the store, never by a read before
 * the write)
 * - `update(id, expectedVersion, changes, at)` applies the changes, sets `updatedAt = at` and bumps
 *   the version by exactly one. A missing post throws `NotFoundError`; a version other than
 *   `expectedVersion` throws `VersionConflictError` with the actual version and changes nothing.
 *   Of N concurrent updates with the same expected version exactly one succeeds.
 * - `delete(id, expectedVersion)` removes the post and returns it as it was; same errors.
 *
 * Listing
 * - Filters: `status` (any of), `scheduled` (true: a `publishAt` is set, which only a draft can
 *   have; false: none is), `tag` (exact), `q` (full text, the rule of `domain/search.ts`: the post
 *   is `searchDocument` of its title, excerpt, tags and body, the query `parseSearchQuery(q)`, and
 *   it matches when `matchesDocument` says so: words in any order anywhere, all required;
 *   "quoted words" adjacent and in order, never across two fields; `-word` excluded; `or` for
 *   either, binding tighter than the implicit AND; the last word a prefix when it has at least
 *   `MIN_PREFIX_LENGTH` (3) characters, unless `q` ends with a space or a closing quote; case and accents folded, a word a run of letters and digits, so
 *   punctuation such as `%` and `_` only separates words; a query with no required word matches
 *   nothing). Every filter given must hold.
 * - Search covers the first `MAX_DOCUMENT_WORDS` (50,000) distinct words of a post (title,
 *   excerpt, tags, then body, in that order), up to `MAX_DOCUMENT_WORD_BYTES` (512 KiB) of them:
 *   a word first met after those is not searchable, and any post, however long its body, is
 *   stored (the document never outgrows what the store can index).
 * - Order: by the sort key in the sort direction, ties broken by `id` in byte order in the same
 *   direction. Titles compare by their UTF-8 bytes (no collation). Posts with a null `publishedAt`
 *   (or `publishAt`, sorting by it) come last in both directions.
 * - Relevance (`sort.key` 'relevance', direction 'desc', only with `q`; the caller checks that):
 *   best first by `matchClass`: a post the query matches in its title alone, then one it
 *   matches in title, excerpt and tags, then one that needs the body. Within a class a store
 *   may put closer or more frequent matches first (a number it computes per post, the same on
 *   every page); equal ranks by `id` descending. Its cursor carries that rank and the id.
 *   It ranks only while at most `countUpTo` posts match (the first page's `totalExact`): with
 *   more, the list comes newest published first (the order of `publishedAt` descending, posts
 *   never published last), so that a broad query costs what a plain list does. Each page's cursor
 *   carries the order it continues, so a walk keeps the order of its first page even when the
 *   number of matches crosses `countUpTo` meanwhile.
 * - `total` counts every match across all pages, up to `countUpTo` (default `POST_TOTAL_CAP`):
 *   with at most that many matches it is exact and `totalExact` is true; with more, `total` is
 *   `countUpTo` and `totalExact` is false, and the cost of the count does not grow with the
 *   matches. No match is `{ items: [], nextCursor: null, total: 0, totalExact: true }`, never null
 *   or undefined.
 * - Pages: `nextCursor` is null on the last page and otherwise resumes strictly after the last
 *   item (keyset), so walking every page returns each match exactly once, even when posts are
 *   created between fetches. A cursor used with another sort or other filters, or one that is not
 *   a cursor at all, throws `InvalidCursorError`.
 * - `listWithLastChange(query)` is `list(query)` with `lastChange`: the `occurredAt` of the newest
 *   activity event (the first of `ActivityLog.list({ limit: 1 })`), null before the first; read
 *   together, so that a readers' list and its Last-Modified cost one round trip where the store
 *   can (PostgreSQL: one statement).
 *
 * Walking (whole posts, for an export)
 * - `walk(filter, afterId, limit)` returns up to `limit` (1 to 100) whole posts, bodies included,
 *   whose id is greater than `afterId` in byte order (every post when null), in id byte order, with
 *   the `status` and `tag` filters of the list. Past the last match it returns []. Walking with the
 *   last id of each batch returns each match once, and a post created meanwhile with a greater id
 *   is included.
 *
 * Read models
 * - `tagCounts` counts, for every tag on any post of any status, the posts carrying it, most used
 *   first, ties by name in byte order. With `visibleAt` it counts only the posts readers may see
 *   then (as the list filter), and leaves out tags with none.
 * - `countByStatus` counts posts per status (zeros included), and as `scheduled` the drafts with a
 *   `publishAt`; `wordsPublished` sums `wordCount` over published posts.
 * - `slugsLike(base)` returns every stored slug that is `base` or `base-<n>`, to pick a free one.
 *
 * Webhook outbox
 * - Every write that changes posts (`create`, `update`, `delete`, the recorded writes,
 *   `publishDue`) writes, for each post whose change `webhookEventOf(before, after)` names an
 *   event, that event to the outbox in the same atomic write: a `WebhookEvent` (a new `msg_` id,
 *   the post as stored after the change, or as it was for a deletion; `occurredAt` the post's new
 *   `updatedAt`, or the moment of a deletion) and one pending delivery of it, due at once, per
 *   subscription that is enabled and lists the event's type at that moment. When none listens,
 *   nothing is written. A write that fails leaves no event and no delivery behind. Deliveries of
 *   one subscription are ordered as the writes that made them.
 *
 * Scheduling
 * - `publishDue(now, limit)` publishes drafts whose `publishAt` is at or before `now`, earliest
 *   `publishAt` first (ties by id), at most `limit` of them: status `published`, `publishedAt`
 *   kept when set and otherwise the `publishAt`, `publishAt` null, `updatedAt = now`, version + 1.
 *   It returns them as stored. A draft whose `publishAt` is after `now` and every other post is
 *   left alone. Of concurrent calls (in one process or several sharing the database), each due
 *   post is published by exactly one.
 */
export interface PostRepository {
  create(post: NewPost): Promise<Post>;
  createRecorded(post: NewPost, record: CreationRecord): Promise<Post>;
  get(id: string): Promise<Post | null>;
  getMany(ids: readonly string[]): Promise<Post[]>;
  getBySlug(slug: string): Promise<Post | null>;
  list(query: PostQuery): Promise<PostPage>;
  listWithLastChange(query: PostQuery): Promise<PostPage & { lastChange: Date | null }>;
  walk(filter: PostFilter, afterId: string | null, limit: number): Promise<Post[]>;
  update(id: string, expectedVersion: number, changes: PostChanges, at: Date): Promise<Post>;
  updateRecorded(before: Post, changes: PostChanges, record: UpdateRecord): Promise<Post>;
  delete(id: string, expectedVersion: number): Promise<Post>;
  deleteRecorded(id: string, expectedVersion: number, record: ChangeRecord): Promise<Post>;
  slugsLike(base: string): Promise<string[]>;
  tagCounts(visibleAt?: Date): Promise<TagCount[]>;
  publishDue(now: Date, limit: number): Promise<Post[]>;
  countByStatus(): Promise<PostCounts>;
  wordsPublished(): Promise<number>;
}
