import { and, asc, count as count_, eq, gt, gte, inArray, isNotNull, isNull, lte, sql, type Placeholder, type SQL } from 'drizzle-orm';
import { decodeCursor, decodeRelevanceCursor, encodeCursor, postCursorScope, postPositionShape } from '../../../domain/cursor.js';
import { NotFoundError, SlugTakenError, VersionConflictError } from '../../../domain/errors.js';
import {
  checkedBatchLimit,
  checkedIds,
  checkedPageLimit,
  countedTotal,
  countLimitOf,
  hasCursor,
  pageOf,
  postPosition,
} from '../../../domain/paging.js';
import type { CoverImage, PostSeo } from '../../../domain/media.js';
import { POST_STATUSES, type Post, type PostStatus, type PostSummary } from '../../../domain/post.js';
import { documentVectorText, parseSearchQuery, queryText, searchDocument, type SearchFields } from '../../../domain/search.js';
import { AUTOSAVE_BURST_MS } from '../../../domain/ports/revision-repository.js';
import type { WithSubqueryWithSelection } from 'drizzle-orm/pg-core';
import type {
  ChangeRecord,
  CreationRecord,
  NewPost,
  PostChanges,
  PostCounts,
  PostFilter,
  PostPage,
  PostQuery,
  PostRepository,
  PostSortKey,
  TagCount,
  UpdateRecord,
} from '../../../domain/ports/post-repository.js';
import { type Database, type DbSession } from '../driver/database.js';
import { activityEvents, posts, postTags, revisions } from '../schema/schema.js';

const summaryColumns = {
  id: posts.id,
  title: posts.title,
  slug: posts.slug,
  excerpt: posts.excerpt,
  tags: posts.tags,
  status: posts.status,
  version: posts.version,
  wordCount: posts.wordCount,
  createdAt: posts.createdAt,
  updatedAt: posts.updatedAt,
  publishedAt: posts.publishedAt,
  publishAt: posts.publishAt,
  coverMediaId: posts.coverMediaId,
  coverAlt: posts.coverAlt,
  seoTitle: posts.seoTitle,
  seoDescription: posts.seoDescription,
  seoCanonicalUrl: posts.seoCanonicalUrl,
};
const postColumns = { ...summaryColumns, body: posts.body };

interface SummaryRow {
  id: string;
  title: string;
  slug: string;
  excerpt: string;
  tags: string[];
  status: string;
  version: number;
  wordCount: number;
  createdAt: Date;
  updatedAt: Date;
  publishedAt: Date | null;
  publishAt: Date | null;
  coverMediaId: string | null;
  coverAlt: string | null;
  seoTitle: string | null;
  seoDescription: string | null;
  seoCanonicalUrl: string | null;
}
interface PostRow extends SummaryRow {
  body: string;
}

const SORT_COLUMNS = {
  updatedAt: posts.updatedAt,
  createdAt: posts.createdAt,
  publishedAt: posts.publishedAt,
  publishAt: posts.publishAt,
  title: posts.title,
} as const;

/**
 * The `search` column of a post: its `searchDocument` as tsvector input, made here so that
 * PostgreSQL never tokenises (its parser depends on the locale) and every store searches alike.
 */
export function searchVectorOf(p: SearchFields): string {
  return documentVectorText(searchDocument(p));
}

/** `s` as a LIKE pattern matching itself literally (`\` is LIKE's default escape). */
function escapeLike(s: string): string {
  return s.replace(/[\\%_]/g, (ch) => `\\${ch}`);
}

/** The cover of a row: none when its media id is null (a row written before covers existed too). */
export function coverOf(row: { coverMediaId: string | null; coverAlt: string | null }): CoverImage | null {
  return row.coverMediaId === null ? null : { mediaId: row.coverMediaId, alt: row.coverAlt ?? '' };
}

export function seoOf(row: { seoTitle: string | null; seoDescription: string | null; seoCanonicalUrl: string | null }): PostSeo {
  return { title: row.seoTitle, description: row.seoDescription, canonicalUrl: row.seoCanonicalUrl };
}

function toSummary(row: SummaryRow): PostSummary {
  return {
    id: row.id,
    title: row.title,
    slug: row.slug,
    excerpt: row.excerpt,
    tags: [...row.tags],
    status: row.status as PostStatus,
    version: row.version,
    wordCount: row.wordCount,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    publishedAt: row.publishedAt,
    publishAt: row.publishAt,
    coverImage: coverOf(row),
    seo: seoOf(row),
  };
}

function toPost(row: PostRow): Post {
  return {
    id: row.id,
    title: row.title,
    slug: row.slug,
    excerpt: row.excerpt,
    body: row.body,
    tags: [...row.tags],
    status: row.status as PostStatus,
    version: row.version,
    wordCount: row.wordCount,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    publishedAt: row.publishedAt,
    publishAt: row.publishAt,
    coverImage: coverOf(row),
    seo: seoOf(row),
  };
}

/** A named placeholder of the create statement (`createRecorded`). */
const slot = (name: string) => sql.placeholder(name);

/**
 * The INSERT of a new post (version 1, `updatedAt = createdAt`) with placeholders for its values
 * (`newPostParams`). ON CONFLICT on the slug rather than a savepoint: a taken slug stores nothing
 * and returns no row, leaving a transaction usable; any other violation (a duplicate id) is an error.
 */
function insertNewPost(db: Database) {
  return db
    .insert(posts)
    .values({
      id: slot('id'),
      title: slot('title'),
      slug: slot('slug'),
      excerpt: slot('excerpt'),
      body: slot('body'),
      search: sql`${slot('search')}::tsvector`,
      tags: slot('tags'),
      status: slot('status'),
      version: 1,
      wordCount: slot('wordCount'),
      createdAt: slot('createdAt'),
      updatedAt: slot('updatedAt'),
      // Cast in SQL: the column's encoder would not pass a null through.
      publishedAt: sql`${slot('publishedAt')}::timestamptz`,
      publishAt: sql`${slot('publishAt')}::timestamptz`,
      coverMediaId: sql`${slot('coverMediaId')}::text`,
      coverAlt: sql`${slot('coverAlt')}::text`,
      seoTitle: sql`${slot('seoTitle')}::text`,
      seoDescription: sql`${slot('seoDescription')}::text`,
      seoCanonicalUrl: sql`${slot('seoCanonicalUrl')}::text`,
    })
    .onConflictDoNothing({ target: posts.slug })
    .returning(postColumns);
}

/** The values of `insertNewPost`'s placeholders for `post`. */
function newPostParams(post: NewPost) {
  return {
    id: post.id,
    title: post.title,
    slug: post.slug,
    excerpt: post.excerpt,
    body: post.body,
    search: searchVectorOf(post),
    tags: [...post.tags],
    status: post.status,
    wordCount: post.wordCount,
    createdAt: post.createdAt,
    updatedAt: post.updatedAt ?? post.createdAt,
    publishedAt: post.publishedAt?.toISOString() ?? null,
    publishAt: post.publishAt?.toISOString() ?? null,
    coverMediaId: post.coverImage?.mediaId ?? null,
    coverAlt: post.coverImage?.alt ?? null,
    seoTitle: post.seo?.title ?? null,
    seoDescription: post.seo?.description ?? null,
    seoCanonicalUrl: post.seo?.canonicalUrl ?? null,
  };
}

/** A CTE `p` holding the row a recorded write wrote (or, for a delete, removed), as `postColumns`. */
type WrittenPost = WithSubqueryWithSelection<typeof postColumns, 'p'>;

/** The placeholders of a recorded write's history (`recordParams`). */
const actorId = () => sql<string>`${slot('actorId')}::text`.as('actor_id');
const actorName = () => sql<string>`${slot('actorName')}::text`.as('actor_name');
const occurredAt = (column: string) => sql<Date>`${slot('occurredAt')}::timestamptz`.as(column);

/**
 * The revision of the row in `p`, made at the event's time whatever the post's own dates (an import
 * keeps them), without its body: the newest revision's body is the post's (the rule of
 * `revisions.body`, schema.ts); the trigger of migration 0017 stores it in the revision once the
 * post's body changes.
 */
function revisionOfWritten(db: Database, p: WrittenPost, burst?: Burst) {
  return db.$with('r').as(
    db
      .insert(revisions)
      .select(
        db
          .select({
            postId: p.id,
            version: p.version,
            title: p.title,
            slug: p.slug,
            excerpt: p.excerpt,
            body: sql<string | null>`null::text`.as('body'),
            tags: p.tags,
            status: p.status,
            wordCount: p.wordCount,
            createdAt: occurredAt('created_at'),
            actorId: actorId(),
            actorName: actorName(),
            // In the table's column order, as an INSERT … SELECT needs.
            coverMediaId: p.coverMediaId,
            coverAlt: p.coverAlt,
            seoTitle: p.seoTitle,
            seoDescription: p.seoDescription,
            seoCanonicalUrl: p.seoCanonicalUrl,
            autosaveSince: sql<Date | null>`${slot('autosaveSince')}::timestamptz`.as('autosave_since'),
          })
          .from(p)
          .where(unlessContinued(db, burst)),
      )
      .returning({ version: revisions.version }),
  );
}

/** The CTE `b` of an update: the autosave burst's revision it moved to the new version, if any. */
type Burst = ReturnType<typeof burstOfWritten>;

/** A condition that holds unless `burst` moved a revision (always, without one). */
function unlessContinued(db: Database, burst: Burst | undefined): SQL | undefined {
  return burst === undefined ? undefined : sql`not exists ${db.select({ version: burst.version }).from(burst)}`;
}

/**
 * The rule of autosave bursts (`PostRepository.updateRecorded`, `continuesBurst`) on the row in `p`:
 * when the write is an autosave (placeholder `autosave`) and the revision at the version it updated
 * (`p`'s less one) is an autosave by the same actor whose burst began at or after `burstFrom`, that
 * row becomes the revision of the new version, without its body (the post's, as the newest), its
 * `autosave_since` kept. The body trigger of migration 0017 runs after the statement and sees the
 * row moved: it keeps the old body, if it changed, in the revision before the burst.
 */
function burstOfWritten(db: Database, p: WrittenPost) {
  return db.$with('b').as(
    db
      .update(revisions)
      .set({
        version: sql`${p.version}`,
        title: sql`${p.title}`,
        slug: sql`${p.slug}`,
        excerpt: sql`${p.excerpt}`,
        body: null,
        tags: sql`${p.tags}`,
        status: sql`${p.status}`,
        wordCount: sql`${p.wordCount}`,
        createdAt: sql`${slot('occurredAt')}::timestamptz`,
        actorName: sql`${slot('actorName')}::text`,
        coverMediaId: sql`${p.coverMediaId}`,
        coverAlt: sql`${p.coverAlt}`,
        seoTitle: sql`${p.seoTitle}`,
        seoDescription: sql`${p.seoDescription}`,
        seoCanonicalUrl: sql`${p.seoCanonicalUrl}`,
      })
      .from(p)
      .where(
        and(
          sql`${slot('autosave')}::boolean`,
          eq(revisions.postId, p.id),
          eq(revisions.version, sql`${p.version} - 1`),
          eq(revisions.actorId, sql`${slot('actorId')}::text`),
          gte(revisions.autosaveSince, sql`${slot('burstFrom')}::timestamptz`),
        ),
      )
      .returning({ version: revisions.version }),
  );
}

/** The activity event (of the placeholder `type`) about the row in `p`, unless `burst` moved a revision. */
function eventOfWritten(db: Database, p: WrittenPost, burst?: Burst) {
  return db.$with('a').as(
    db
      .insert(activityEvents)
      .select(
        db
          .select({
            id: sql<string>`${slot('eventId')}::text`.as('id'),
            type: sql<string>`${slot('type')}::text`.as('type'),
            postId: p.id,
            postTitle: p.title,
            postVersion: p.version,
            actorId: actorId(),
            actorName: actorName(),
            occurredAt: occurredAt('occurred_at'),
          })
          .from(p)
          .where(unlessContinued(db, burst)),
      )
      .returning({ id: activityEvents.id }),
  );
}

/** The values of the history placeholders of a recorded write (an update's `autosave` too). */
function recordParams(record: ChangeRecord & { autosave?: boolean }, type: string) {
  const autosave = record.autosave === true;
  return {
    actorId: record.actor.id,
    actorName: record.actor.name,
    eventId: record.eventId,
    type,
    occurredAt: record.occurredAt.toISOString(),
    autosave,
    autosaveSince: autosave ? record.occurredAt.toISOString() : null,
    burstFrom: new Date(record.occurredAt.getTime() - AUTOSAVE_BURST_MS).toISOString(),
  };
}

/**
 * `createRecorded` as one statement: the post, then (writable CTEs reading its RETURNING row) its
 * first revision and its `created` event. A taken slug makes `p` empty, so neither CTE inserts
 * anything; any other violation fails the whole statement. Values are placeholders, so the query is
 * built once per session and PostgreSQL parses it once per connection.
 */
function createRecordedStatement(db: Database) {
  const p = db.$with('p').as(insertNewPost(db));
  return db.with(p, revisionOfWritten(db, p), eventOfWritten(db, p)).select().from(p);
}

/**
 * `updateRecorded` as one statement: the UPDATE guarded by id and version, then its revision and
 * event reading the RETURNING row, or the autosave burst's revision moved to it (`burstOfWritten`)
 * and neither. A post missing or at another version makes `p` empty, so no CTE writes anything.
 */
function updateRecordedStatement(db: Database, id: string, expectedVersion: number, set: PostSet) {
  const p = db.$with('p').as(
    db
      .update(posts)
      .set({ ...set, version: sql`${posts.version} + 1` })
      .where(and(eq(posts.id, id), eq(posts.version, expectedVersion)))
      .returning(postColumns),
  );
  const burst = burstOfWritten(db, p);
  return db
    .with(p, burst, revisionOfWritten(db, p, burst), eventOfWritten(db, p, burst))
    .select()
    .from(p);
}

/**
 * `deleteRecorded` as one statement: the DELETE guarded by id and version, the post's revisions
 * and the `deleted` event, the last two reading the DELETE's RETURNING row (none when it missed).
 * Placeholders `id` and `version`, and those of the history.
 */
function deleteRecordedStatement(db: Database) {
  const p = db.$with('p').as(
    db
      .delete(posts)
      .where(and(eq(posts.id, slot('id')), eq(posts.version, slot('version'))))
      .returning(postColumns),
  );
  const history = db.$with('h').as(
    db
      .delete(revisions)
      .where(inArray(revisions.postId, db.select({ id: p.id }).from(p)))
      .returning({ version: revisions.version }),
  );
  return db.with(p, history, eventOfWritten(db, p)).select().from(p);
}

/** The columns an update sets, with their values. */
type PostSet = Partial<typeof posts.$inferInsert>;

/** The SET of an update making `changes` at `at`, but for the search column (`searchAfter`). */
function setOf(changes: PostChanges, at: Date): PostSet {
  const set: PostSet = {};
  if (changes.title !== undefined) set.title = changes.title;
  if (changes.slug !== undefined) set.slug = changes.slug;
  if (changes.excerpt !== undefined) set.excerpt = changes.excerpt;
  if (changes.body !== undefined) set.body = changes.body;
  if (changes.tags !== undefined) set.tags = [...changes.tags];
  if (changes.status !== undefined) set.status = changes.status;
  if (changes.wordCount !== undefined) set.wordCount = changes.wordCount;
  if (changes.publishedAt !== undefined) set.publishedAt = changes.publishedAt;
  if (changes.publishAt !== undefined) set.publishAt = changes.publishAt;
  if (changes.coverImage !== undefined) {
    set.coverMediaId = changes.coverImage?.mediaId ?? null;
    set.coverAlt = changes.coverImage?.alt ?? null;
  }
  if (changes.seo !== undefined) {
    set.seoTitle = changes.seo.title;
    set.seoDescription = changes.seo.description;
    set.seoCanonicalUrl = changes.seo.canonicalUrl;
  }
  set.updatedAt = at;
  return set;
}

/** Whether `changes` touch what is searched (title, excerpt, tags or body). */
function changesContent(changes: PostChanges): boolean {
  return changes.title !== undefined || changes.excerpt !== undefined || changes.body !== undefined || changes.tags !== undefined;
}

/** The search column after `changes`, the fields they keep taken from `kept`. */
function searchAfter(changes: PostChanges, kept: SearchFields): string {
  return searchVectorOf({
    title: changes.title ?? kept.title,
    excerpt: changes.excerpt ?? kept.excerpt,
    tags: changes.tags ?? kept.tags,
    body: changes.body ?? kept.body,
  });
}

function prepareStatements(db: Database) {
  return {
    byId: db
      .select(postColumns)
      .from(posts)
      .where(eq(posts.id, sql.placeholder('id')))
      .prepare('posts_by_id'),
    // One statement for any number of ids (an array parameter), not one per count as `IN (…)` would be.
    byIds: db
      .select(postColumns)
      .from(posts)
      .where(sql`${posts.id} = any(${sql.placeholder('ids')})`)
      .prepare('posts_by_ids'),
    bySlug: db
      .select(postColumns)
      .from(posts)
      .where(eq(posts.slug, sql.placeholder('slug')))
      .prepare('posts_by_slug'),
    versionOf: db
      .select({ version: posts.version })
      .from(posts)
      .where(eq(posts.id, sql.placeholder('id')))
      .prepare('posts_version_of'),
    lastChange: db
      .select({ at: sql<Date | null>`max(${activityEvents.occurredAt})`.mapWith(activityEvents.occurredAt) })
      .from(activityEvents)
      .prepare('posts_last_change'),
  };
}

/**
 * The `occurredAt` of the newest activity event, null before the first (a scalar subquery), as the
 * driver gives it: every row of a page carries it, and only the first row's is decoded
 * (`instantOf`), rather than one `Date` per row.
 */
const newestActivity = () => sql<unknown>`(select max(${activityEvents.occurredAt}) from ${activityEvents})`;

/** An `occurredAt` as the driver gives it, decoded as the column decodes it. */
const instantOf = (raw: unknown): Date | null =>
  raw === null || raw === undefined ? null : (activityEvents.occurredAt.mapFromDriverValue(raw) as Date);

/** A keyset position: the sort value of the last item (ISO instant, title, rank or null) and its id. */
type Position = [value: string | number | null, id: string];

export class DrizzlePostRepository implements PostRepository {
  #statements: ReturnType<typeof prepareStatements> | undefined;

  constructor(private readonly session: DbSession) {}

  get #stmt() {
    return (this.#statements ??= prepareStatements(this.session.db));
  }

  /** Prepared list statements by shape, for the auto-commit session (its `db` never changes). */
  readonly #listCache = new Map<string, ListStatements>();

  /**
   * The statements of a list of this shape, with placeholders for its values. Outside a
   * transaction, shapes without `tag` or `q` are prepared once and kept (PostgreSQL plans them
   * once per connection); a tag or a search pattern changes the best plan from one value to the
   * next, so those, like every list inside a transaction, are planned afresh each time.
   */
  #listStatements(db: Database, shape: ListShape): ListStatements {
    if (this.session.inTransaction || shape.tag || shape.q) return listStatements(db, shape);
    const key = JSON.stringify(shape);
    let statements = this.#listCache.get(key);
    if (statements === undefined) {
      const built = listStatements(db, shape);
      const name = `posts_list_${this.#listCache.size}`;
      statements = {
        page: built.page.prepare(`${name}_page`),
        count: built.count.prepare(`${name}_count`),
        ...(built.nulls === undefined ? {} : { nulls: built.nulls.prepare(`${name}_nulls`) }),
      };
      this.#listCache.set(key, statements);
    }
    return statements;
  }

  #createStatement: ReturnType<ReturnType<typeof insertNewPost>['prepare']> | undefined;
  #createRecordedStatement: ReturnType<ReturnType<typeof createRecordedStatement>['prepare']> | undefined;

  async create(post: NewPost): Promise<Post> {
    const rows = await this.session.run(
      () => (this.#createStatement ??= insertNewPost(this.session.db).prepare('posts_create')).execute(newPostParams(post)),
      { id: post.id, slug: post.slug },
    );
    if (rows[0] === undefined) throw new SlugTakenError(post.slug);
    return toPost(rows[0]);
  }

  async createRecorded(post: NewPost, record: CreationRecord): Promise<Post> {
    const rows = await this.session.run(
      () =>
        (this.#createRecordedStatement ??= createRecordedStatement(this.session.db).prepare('posts_create_recorded')).execute({
          ...newPostParams(post),
          ...recordParams(record, 'created'),
        }),
      { id: post.id, slug: post.slug, version: 1, eventId: record.eventId },
    );
    if (rows[0] === undefined) throw new SlugTakenError(post.slug);
    return toPost(rows[0]);
  }

  async get(id: string): Promise<Post | null> {
    const rows = await this.session.run(() => this.#stmt.byId.execute({ id }));
    return rows[0] ? toPost(rows[0]) : null;
  }

  async getMany(ids: readonly string[]): Promise<Post[]> {
    const wanted = checkedIds(ids);
    if (wanted.length === 0) return [];
    const rows = await this.session.run(() => this.#stmt.byIds.execute({ ids: wanted }));
    const byId = new Map(rows.map((row) => [row.id, toPost(row)]));
    return wanted.flatMap((id) => byId.get(id) ?? []);
  }

  async getBySlug(slug: string): Promise<Post | null> {
    const rows = await this.session.run(() => this.#stmt.bySlug.execute({ slug }));
    return rows[0] ? toPost(rows[0]) : null;
  }

  list(query: PostQuery): Promise<PostPage> {
    return this.#list(query, false);
  }

  /** One statement for the page, its count and the newest event while the page has a row. */
  async listWithLastChange(query: PostQuery): Promise<PostPage & { lastChange: Date | null }> {
    const { lastChange, ...page } = await this.#list(query, true);
    return { ...page, lastChange: lastChange ?? (await this.session.run(() => this.#stmt.lastChange.execute()))[0]?.at ?? null };
  }

  /** `lastChange` undefined when not asked for or when the page came back empty. */
  async #list(query: PostQuery, withLastChange: boolean): Promise<PostPage & { lastChange?: Date | null }> {
    const limit = checkedPageLimit(query.limit);
    const search = query.q !== undefined && query.q !== '' ? parseSearchQuery(query.q) : null;
    // A query without a required word matches nothing (the domain's rule).
    if (search !== null && search.clauses.length === 0) return { items: [], nextCursor: null, ...countedTotal(0, query) };
    const resumed = hasCursor(query.cursor) ? resumeOf(query, query.cursor) : null;
    const statuses = query.status !== undefined && query.status.length > 0 ? [...new Set(query.status)] : [];
    // Counting stops one past the limit: that is enough to know the total is not exact, and
    // keeps a broad search on a large site from counting every match.
    const countLimit = countLimitOf(query);
    const values: Record<string, unknown> = {
      ...Object.fromEntries(statuses.map((status, i) => [`status${i}`, status])),
      ...(query.tag !== undefined ? { tag: query.tag } : {}),
      ...(search === null ? {} : { query: queryText(search) }),
      ...(search !== null && query.sort.key === 'relevance' ? { queryA: queryText(search, 'A'), queryAB: queryText(search, 'AB') } : {}),
      ...(query.visibleAt !== undefined ? { visibleAt: query.visibleAt.toISOString() } : {}),
      ...(resumed === null ? {} : { value: resumed.position[0], id: resumed.position[1] }),
    };
    // Limits go into the text only beside another parameter: postgres.js sends a statement without
    // any in the simple protocol, parsed and planned on every execution (bench/NOTES.md).
    const inline = Object.keys(values).length > 0;
    if (!inline) Object.assign(values, { fetch: limit + 1, countFetch: countLimit + 1 });
    const sizes = { statuses: statuses.length, fetch: limit + 1, countFetch: countLimit + 1, inline };
    const shapeOf = (order: ListOrder) => listShapeOf(query, sizes, order, resumed?.position ?? null, withLastChange);

    // One after the other: the call holds one permit of the gate, one statement in flight.
    const [rows, counted, order] = await this.session.run(async (db) => {
      let order = resumed?.order ?? (query.sort.key === 'relevance' ? undefined : 'plain');
      let known: number | undefined;
      if (order === undefined) {
        // Relevance ranks only up to the count limit (the port's rule): count first, then order.
        known = ((await listFilters(db, shapeOf('rank')).count.execute(values)) as { n: number }[])[0]?.n ?? 0;
        order = known > countLimit ? 'newest' : 'rank';
      }
      const shape: ListShape = known === undefined ? shapeOf(order) : { ...shapeOf(order), counted: false };
      const statements = this.#listStatements(db, shape);
      const page: RankedRow[] = await statements.page.execute(values);
      // Every row of the page carries the count (one statement, one round trip); an empty page
      // from the start means no match, an empty page further on needs the count on its own.
      const carried = known ?? page[0]?.counted ?? (shape.after === 'start' ? 0 : undefined);
      if (statements.nulls !== undefined && page.length < limit + 1) {
        // The non-null run is exhausted: the posts never published follow.
        page.push(...(await statements.nulls.execute({ ...values, nullsFetch: limit + 1 - page.length })));
      }
      const count = carried ?? ((await statements.count.execute(values)) as { n: number }[])[0]?.n ?? 0;
      return [page, count, order] as const;
    });
    const lastChange = withLastChange && rows.length > 0 ? { lastChange: instantOf(rows[0]!.lastChange) } : {};

    const scope = postCursorScope(query, order === 'newest' ? 'newest' : undefined);
    const key = order === 'newest' ? 'publishedAt' : query.sort.key;
    const page = pageOf(rows, limit, (last) =>
      encodeCursor(scope, key === 'relevance' ? [last.rank!, last.id] : postPosition(toSummary(last), key)),
    );
    return { items: page.items.map(toSummary), nextCursor: page.nextCursor, ...countedTotal(counted, query), ...lastChange };
  }

  async walk(filter: PostFilter, afterId: string | null, limit: number): Promise<Post[]> {
    checkedPageLimit(limit);
    const statuses = filter.status !== undefined && filter.status.length > 0 ? [...new Set(filter.status)] : [];
    const conditions: SQL[] = [];
    if (afterId !== null) conditions.push(gt(posts.id, afterId));
    if (statuses.length > 0) conditions.push(inArray(posts.status, statuses));
    if (filter.tag !== undefined) conditions.push(sql`${posts.tags} @> ARRAY[${filter.tag}]::text[]`);
    const rows = await this.session.run((db) =>
      db
        .select(postColumns)
        .from(posts)
        .where(and(...conditions))
        .orderBy(asc(posts.id))
        .limit(limit),
    );
    return rows.map(toPost);
  }

  async update(id: string, expectedVersion: number, changes: PostChanges, at: Date): Promise<Post> {
    const set = setOf(changes, at);
    const allContent = [changes.title, changes.excerpt, changes.body, changes.tags].every((v) => v !== undefined);
    const write = async (db: Database): Promise<PostRow> => {
      if (allContent) {
        set.search = searchVectorOf(changes as SearchFields);
      } else if (changesContent(changes)) {
        // The search column needs the fields this change keeps: read them at the expected version.
        // The guarded UPDATE below still decides: had the post moved on, it matches no row.
        const current = await db
          .select({ title: posts.title, excerpt: posts.excerpt, body: posts.body, tags: posts.tags, version: posts.version })
          .from(posts)
          .where(eq(posts.id, id));
        const row = current[0];
        if (row === undefined) throw new NotFoundError('post', id);
        if (row.version !== expectedVersion) throw new VersionConflictError(expectedVersion, row.version);
        set.search = searchAfter(changes, row);
      }
      const updated = await db
        .update(posts)
        .set({ ...set, version: sql`${posts.version} + 1` })
        .where(and(eq(posts.id, id), eq(posts.version, expectedVersion)))
        .returning(postColumns);
      return updated[0] ?? this.#throwMissingOrConflict(db, id, expectedVersion);
    };
    const ctx = { id, ...(changes.slug !== undefined ? { slug: changes.slug } : {}) };
    return toPost(changes.slug !== undefined ? await this.session.inSavepoint(write, ctx) : await this.session.run(write, ctx));
  }

  /**
   * One statement (`updateRecordedStatement`); the search column from `before` and the changes, so
   * the row is not read first. A miss reads the version once to tell which error it was.
   */
  async updateRecorded(before: Post, changes: PostChanges, record: UpdateRecord): Promise<Post> {
    const set = setOf(changes, record.occurredAt);
    if (changesContent(changes)) set.search = searchAfter(changes, before);
    const write = async (db: Database): Promise<PostRow> => {
      const rows = await updateRecordedStatement(db, before.id, before.version, set)
        .prepare('posts_update_recorded')
        .execute(recordParams(record, record.type));
      return rows[0] ?? this.#throwMissingOrConflict(db, before.id, before.version);
    };
    const ctx = {
      id: before.id,
      version: before.version,
      eventId: record.eventId,
      ...(changes.slug !== undefined ? { slug: changes.slug } : {}),
    };
    return toPost(changes.slug !== undefined ? await this.session.inSavepoint(write, ctx) : await this.session.run(write, ctx));
  }

  async delete(id: string, expectedVersion: number): Promise<Post> {
    const row = await this.session.run(async (db) => {
      const deleted = await db
        .delete(posts)
        .where(and(eq(posts.id, id), eq(posts.version, expectedVersion)))
        .returning(postColumns);
      return deleted[0] ?? this.#throwMissingOrConflict(db, id, expectedVersion);
    });
    return toPost(row);
  }

  #deleteRecordedStatement: ReturnType<ReturnType<typeof deleteRecordedStatement>['prepare']> | undefined;

  /** One statement (`deleteRecordedStatement`); a miss reads the version once to tell which error it was. */
  async deleteRecorded(id: string, expectedVersion: number, record: ChangeRecord): Promise<Post> {
    const row = await this.session.run(
      async (db) => {
        const statement = (this.#deleteRecordedStatement ??= deleteRecordedStatement(this.session.db).prepare('posts_delete_recorded'));
        const rows = await statement.execute({ id, version: expectedVersion, ...recordParams(record, 'deleted') });
        return rows[0] ?? this.#throwMissingOrConflict(db, id, expectedVersion);
      },
      { id, eventId: record.eventId },
    );
    return toPost(row);
  }

  /** After a guarded write matched no row: one read decides which error it was. */
  async #throwMissingOrConflict(db: Database, id: string, expectedVersion: number): Promise<never> {
    const rows =
      db === this.session.db
        ? await this.#stmt.versionOf.execute({ id })
        : await db.select({ version: posts.version }).from(posts).where(eq(posts.id, id));
    const actual = rows[0]?.version;
    if (actual === undefined) throw new NotFoundError('post', id);
    throw new VersionConflictError(expectedVersion, actual);
  }

  async slugsLike(base: string): Promise<string[]> {
    const rows = await this.session.run((db) =>
      db
        .select({ slug: posts.slug })
        .from(posts)
        .where(
          sql`(${posts.slug} = ${base} OR (${posts.slug} LIKE ${`${escapeLike(base)}-%`} AND substr(${posts.slug}, ${base.length + 2}) ~ '^[0-9]+$'))`,
        )
        .orderBy(posts.slug),
    );
    return rows.map((r) => r.slug);
  }

  async tagCounts(visibleAt?: Date): Promise<TagCount[]> {
    // post_tags holds one row per tag of each post (one status per post): a row is a post.
    const rows = await this.session.run((db) =>
      visibleAt === undefined
        ? db
            .select({ name: postTags.tag, count: count_() })
            .from(postTags)
            .groupBy(postTags.tag)
            .orderBy(sql`2 DESC`, sql`${postTags.tag} COLLATE "C" ASC`)
        : db
            .select({ name: postTags.tag, count: count_() })
            .from(postTags)
            .innerJoin(posts, eq(posts.id, postTags.postId))
            .where(and(eq(postTags.status, 'published'), lte(posts.publishedAt, visibleAt)))
            .groupBy(postTags.tag)
            .orderBy(sql`2 DESC`, sql`${postTags.tag} COLLATE "C" ASC`),
    );
    return rows.map((r) => ({ name: r.name, count: r.count }));
  }

  async publishDue(now: Date, limit: number): Promise<Post[]> {
    checkedBatchLimit(limit);
    return this.session.run(async (db) => {
      // The queue in order, skipping rows another caller holds; then the guarded UPDATE decides:
      // a post another caller published meanwhile is no longer a due draft and matches no row.
      const due = await db
        .select({ id: posts.id })
        .from(posts)
        .where(and(eq(posts.status, 'draft'), lte(posts.publishAt, now)))
        .orderBy(asc(posts.publishAt), asc(posts.id))
        .limit(limit)
        .for('update', { skipLocked: true });
      if (due.length === 0) return [];
      const order = due.map((row) => row.id);
      const rows = await db
        .update(posts)
        .set({
          status: 'published',
          publishedAt: sql`coalesce(${posts.publishedAt}, ${posts.publishAt})`,
          publishAt: null,
          updatedAt: now,
          version: sql`${posts.version} + 1`,
        })
        .where(and(inArray(posts.id, order), eq(posts.status, 'draft'), lte(posts.publishAt, now)))
        .returning(postColumns);
      const byId = new Map(rows.map((row) => [row.id, toPost(row)]));
      return order.flatMap((id) => byId.get(id) ?? []);
    });
  }

  async countByStatus(): Promise<PostCounts> {
    const rows = await this.session.run((db) =>
      db
        .select({ status: posts.status, n: count_(), scheduled: count_(posts.publishAt) })
        .from(posts)
        .groupBy(posts.status),
    );
    const counts: PostCounts = { ...(Object.fromEntries(POST_STATUSES.map((s) => [s, 0])) as Record<PostStatus, number>), scheduled: 0 };
    for (const r of rows) {
      counts[r.status as PostStatus] = r.n;
      counts.scheduled += r.scheduled;
    }
    return counts;
  }

  async wordsPublished(): Promise<number> {
    const rows = await this.session.run((db) =>
      db
        .select({ n: sql<number>`coalesce(sum(${posts.wordCount}), 0)`.mapWith(Number) })
        .from(posts)
        .where(eq(posts.status, 'published')),
    );
    return rows[0]?.n ?? 0;
  }
}

/**
 * The order of a list's pages: by its sort key (`plain`), or, sorting by relevance, ranked
 * (`rank`) or, past the count limit, newest published first (`newest`, the order of
 * `publishedAt` descending).
 */
type ListOrder = 'plain' | 'rank' | 'newest';

/** Where a list resumes after `cursor`, in which order (a relevance cursor carries it). */
function resumeOf(query: PostQuery, cursor: string): { order: ListOrder; position: Position } {
  if (query.sort.key !== 'relevance') {
    const [value, id] = decodeCursor(cursor, postCursorScope(query), postPositionShape(query.sort.key)) as Position;
    return { order: 'plain', position: [value, id] };
  }
  const { order, value, id } = decodeRelevanceCursor(cursor, query);
  return { order, position: [value, id] };
}

/** The shape of a list's statements in `order`. */
function listShapeOf(
  query: PostQuery,
  sizes: Pick<ListShape, 'statuses' | 'fetch' | 'countFetch' | 'inline'>,
  order: ListOrder,
  position: Position | null,
  lastChange: boolean,
): ListShape {
  return {
    ...sizes,
    key: order === 'newest' ? 'publishedAt' : query.sort.key,
    // Relevance is best first, whatever the direction says (the port's rule), and so is newest first.
    direction: order === 'plain' ? query.sort.direction : 'desc',
    ...(query.scheduled === undefined ? {} : { scheduled: query.scheduled }),
    tag: query.tag !== undefined,
    q: query.q !== undefined && query.q !== '',
    visible: query.visibleAt !== undefined,
    after: position === null ? 'start' : position[0] === null ? 'nulls' : 'value',
    lastChange,
  };
}

/** A row of a list page, with the count of matches (up to `countFetch`); sorted by relevance, with its rank (the keyset's value). */
interface RankedRow extends SummaryRow {
  counted?: number;
  /** With `ListShape.lastChange`: the newest activity event's instant, as the driver gives it (see `newestActivity`). */
  lastChange?: unknown;
  rank?: number;
}

/** What decides the text of a list's statements (the values go in placeholders). */
interface ListShape {
  key: PostSortKey;
  direction: 'asc' | 'desc';
  /** How many distinct statuses the filter names (0: no status filter). */
  statuses: number;
  /** The rows a page reads (its limit and one more) and the matches counted at most (see `inlineLimit`). */
  fetch: number;
  countFetch: number;
  /** true: the limits are in the text (`limitOf`); false: placeholders `fetch` and `countFetch`. */
  inline: boolean;
  /** true: only posts with a publishAt; false: only those without; absent: both. */
  scheduled?: boolean;
  tag: boolean;
  q: boolean;
  /** Only what readers may see at `visibleAt`: published, `publishedAt` at or before it. */
  visible: boolean;
  /** From the first post, after a position with a sort value, or inside the trailing run of nulls. */
  after: 'start' | 'value' | 'nulls';
  /** Every row also carries the newest activity event's instant (`listWithLastChange`). */
  lastChange: boolean;
  /** false: the rows do not carry the count (a relevance list counted first). */
  counted?: false;
}

interface Executable<T> {
  execute(values: Record<string, unknown>): Promise<T>;
}

interface ListStatements {
  page: Executable<RankedRow[]>;
  /** For `publishedAt` after a value: the posts never published, which follow the dated ones. */
  nulls?: Executable<SummaryRow[]>;
  count: Executable<{ n: number }[]>;
}

/**
 * A LIMIT written into the statement's text rather than sent as a parameter. PostgreSQL plans a
 * LIMIT parameter as a tenth of the rows it may read, so a prepared list with one never wins its
 * generic plan and is planned afresh on every execution; with the number in the text, it plans
 * a shape once per connection (bench/NOTES.md). Drizzle writes an SQL limit as it is, as it does
 * a placeholder; its type only names those two.
 */
function inlineLimit(rows: number): Placeholder {
  return sql.raw(String(checkedBatchLimit(rows))) as unknown as Placeholder;
}

/**
 * A list's LIMIT of `rows`: in the text (`inlineLimit`) when the shape says so, else its
 * placeholder. A statement with no parameter at all would otherwise go by postgres.js's simple
 * protocol (its rule for a query without arguments): parsed and planned on every execution, which
 * costs more than planning a prepared one anew (the admin's unfiltered list, bench/NOTES.md).
 */
function limitOf(shape: Pick<ListShape, 'inline' | 'fetch' | 'countFetch'>, rows: 'fetch' | 'countFetch'): Placeholder {
  return shape.inline ? inlineLimit(shape[rows]) : sql.placeholder(rows);
}

/**
 * The filters of a list shape (placeholders `status0…`, `tag`, `query`, `visibleAt`), its count
 * statement, and the same count as a column (`counted`, a scalar subquery PostgreSQL runs once per
 * statement) so that a page brings its count along.
 */
function listFilters(db: Database, shape: ListShape) {
  const placeholder = sql.placeholder;
  const filters: SQL[] = [];
  const statusIn = (column: typeof posts.status | typeof postTags.status) =>
    shape.statuses > 0
      ? [
          inArray(
            column,
            Array.from({ length: shape.statuses }, (_, i) => placeholder(`status${i}`)),
          ),
        ]
      : [];
  filters.push(...statusIn(posts.status));
  if (shape.scheduled !== undefined) filters.push(shape.scheduled ? isNotNull(posts.publishAt) : isNull(posts.publishAt));
  if (shape.tag) filters.push(sql`${posts.tags} @> ARRAY[${placeholder('tag')}]::text[]`);
  if (shape.q) filters.push(sql`${posts.search} @@ ${placeholder('query')}::tsquery`);
  const visible = sql`${posts.status} = 'published' AND ${posts.publishedAt} <= ${placeholder('visibleAt')}::timestamptz`;
  if (shape.visible) filters.push(visible);

  // A tag filter without `q` or `scheduled` counts in post_tags (an index-only scan of one tag's
  // entries; for readers, joined to the posts for their publishedAt); the others count the posts
  // themselves (post_tags has no publish_at).
  const matches = (
    shape.tag && !shape.q && shape.scheduled === undefined
      ? shape.visible
        ? db
            .select({ one: sql`1` })
            .from(postTags)
            .innerJoin(posts, eq(posts.id, postTags.postId))
            .where(and(eq(postTags.tag, placeholder('tag')), eq(postTags.status, 'published'), ...statusIn(postTags.status), visible))
        : db
            .select({ one: sql`1` })
            .from(postTags)
            .where(and(eq(postTags.tag, placeholder('tag')), ...statusIn(postTags.status)))
      : db
          .select({ one: sql`1` })
          .from(posts)
          .where(and(...filters))
  )
    .limit(limitOf(shape, 'countFetch'))
    .as('matches');
  const count = db.select({ n: count_() }).from(matches);
  const counted = sql<number>`(${count})`.mapWith(Number);
  // Typed as the count alone: `RankedRow.lastChange` is what a row has of the other, when asked for.
  const carried: { counted?: SQL<number> } = {
    ...(shape.counted === false ? {} : { counted }),
    ...(shape.lastChange ? { lastChange: newestActivity() } : {}),
  };
  return { filters, count, carried };
}

/**
 * By relevance: the class of the match (3 when the query matches in the title alone, `queryA`; 2
 * in title, excerpt and tags, `queryAB`; else 1) plus half of `ts_rank` (from 0 to 1) within it,
 * as a float4 that the cursor carries exactly; best first, equal ranks by id descending.
 */
function relevanceStatements<C>(
  db: Database,
  filters: SQL[],
  { count, carried }: { count: C; carried: { counted?: SQL<number> } },
  shape: Pick<ListShape, 'after' | 'fetch' | 'countFetch' | 'inline'>,
) {
  const placeholder = sql.placeholder;
  const rank = sql<number>`(CASE WHEN ${posts.search} @@ ${placeholder('queryA')}::tsquery THEN 3
    WHEN ${posts.search} @@ ${placeholder('queryAB')}::tsquery THEN 2 ELSE 1 END
    + ts_rank(${posts.search}, ${placeholder('query')}::tsquery) / 2)::float4`.mapWith(Number);
  const where =
    shape.after === 'start' ? filters : [...filters, sql`(${rank}, ${posts.id}) < (${placeholder('value')}::float4, ${placeholder('id')})`];
  const page = db
    .select({ ...summaryColumns, rank, ...carried })
    .from(posts)
    .where(and(...where))
    .orderBy(sql`${rank} DESC`, sql`${posts.id} DESC`)
    .limit(limitOf(shape, 'fetch'));
  return { page, count };
}

/**
 * A page in `key direction, id direction` order (nulls last in both directions), resuming strictly
 * after the position (`value`, `id`), and the count of matches up to `countFetch`. Placeholders:
 * `status0…`, `tag`, `query` (and, by relevance, `queryA`, `queryAB`), `value`, `id`, and
 * `nullsFetch` for the posts never published; the limits are in the text (`inlineLimit`). Every
 * page but a search's is a range scan of one of the sort indexes.
 */
function listStatements(db: Database, shape: ListShape) {
  const { key, direction } = shape;
  const placeholder = sql.placeholder;
  const { filters, count, carried } = listFilters(db, shape);
  if (key === 'relevance') return relevanceStatements(db, filters, { count, carried }, shape);

  const col = SORT_COLUMNS[key];
  const dir = sql.raw(direction === 'asc' ? 'ASC' : 'DESC');
  const after = sql.raw(direction === 'asc' ? '>' : '<');
  // Only scheduled posts sorted by publishAt have no null to place: the plain order is the one of
  // the partial index on (publish_at, id), read forwards or backwards.
  const nullable = key === 'publishedAt' || (key === 'publishAt' && shape.scheduled !== true);
  // The publishedAt indexes are `published_at <dir> NULLS LAST, id <dir> NULLS LAST`; ids are never
  // null, so saying NULLS LAST for the id changes no order and lets the index give it whole (DESC
  // alone means NULLS FIRST, which the planner would finish with an incremental sort).
  const orderBy = nullable
    ? [sql`${col} ${dir} NULLS LAST`, sql`${posts.id} ${dir} NULLS LAST`]
    : [sql`${col} ${dir}`, sql`${posts.id} ${dir}`];
  const select = (where: SQL[], limit: number | Placeholder = limitOf(shape, 'fetch')) =>
    db
      .select({ ...summaryColumns, ...carried })
      .from(posts)
      .where(and(...filters, ...where))
      .orderBy(...orderBy)
      .limit(limit);

  if (shape.after === 'start') return { page: select([]), count };
  if (shape.after === 'nulls') {
    // Inside the trailing run of posts never published.
    return { page: select([sql`${col} IS NULL`, sql`${posts.id} ${after} ${placeholder('id')}`]), count };
  }
  const typed = key === 'title' ? sql`${placeholder('value')}` : sql`${placeholder('value')}::timestamptz`;
  const page = select([sql`(${col}, ${posts.id}) ${after} (${typed}, ${placeholder('id')})`]);
  // The rows left to read after the dated ones vary from page to page: a placeholder.
  return nullable ? { page, nulls: select([sql`${col} IS NULL`], placeholder('nullsFetch')), count } : { page, count };
}
