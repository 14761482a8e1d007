import { checkedPageLimit, hasCursor, pageOf } from '../../../domain/paging.js';
import { and, desc, eq, lt, sql, type AnyColumn, type SQL } from 'drizzle-orm';
import { decodeCursor, encodeCursor, REVISION_POSITION, revisionCursorScope } from '../../../domain/cursor.js';
import type { PostStatus } from '../../../domain/post.js';
import { COMPARED_FIELDS, type ComparedField } from '../../../domain/revision-diff.js';
import type { Revision, RevisionPage, RevisionRepository, RevisionSummary } from '../../../domain/ports/revision-repository.js';
import { type Database, type DbSession } from '../driver/database.js';
import { coverOf, seoOf } from './post-repository.js';
import { posts, revisions } from '../schema/schema.js';

const summaryColumns = {
  postId: revisions.postId,
  version: revisions.version,
  title: revisions.title,
  slug: revisions.slug,
  excerpt: revisions.excerpt,
  tags: revisions.tags,
  status: revisions.status,
  wordCount: revisions.wordCount,
  coverMediaId: revisions.coverMediaId,
  coverAlt: revisions.coverAlt,
  seoTitle: revisions.seoTitle,
  seoDescription: revisions.seoDescription,
  seoCanonicalUrl: revisions.seoCanonicalUrl,
  createdAt: revisions.createdAt,
  actorId: revisions.actorId,
  actorName: revisions.actorName,
  autosaveSince: revisions.autosaveSince,
};
const revisionColumns = { ...summaryColumns, body: revisions.body };

/**
 * The body of the revision in `row`, resolved by the rule of `revisions.body` (schema.ts): its own
 * when stored, else the first stored one among the newer revisions of the post (a walk up
 * `revisions_pkey` from the row), else the post's. Each part is read only when the one before is
 * null.
 */
function resolvedBody(relation: 'revisions' | 'recent'): SQL<string> {
  // Qualified by hand: drizzle leaves a column of a one-table select unqualified, which inside the
  // subqueries would name their own rows.
  const row = (column: string) => sql`${sql.identifier(relation)}.${sql.identifier(column)}`;
  return sql<string>`coalesce(${row('body')}, (select n.body from ${revisions} n where n.post_id = ${row('post_id')} and n.version > ${row('version')} and n.body is not null order by n.version limit 1), (select p.body from ${posts} p where p.id = ${row('post_id')}))`;
}

interface SummaryRow {
  postId: string;
  version: number;
  title: string;
  slug: string;
  excerpt: string;
  tags: string[];
  status: string;
  wordCount: number;
  coverMediaId: string | null;
  coverAlt: string | null;
  seoTitle: string | null;
  seoDescription: string | null;
  seoCanonicalUrl: string | null;
  createdAt: Date;
  actorId: string;
  actorName: string;
  autosaveSince: Date | null;
}

function toFields(row: SummaryRow): Omit<RevisionSummary, 'changed'> {
  return {
    postId: row.postId,
    version: row.version,
    title: row.title,
    slug: row.slug,
    excerpt: row.excerpt,
    tags: [...row.tags],
    status: row.status as PostStatus,
    wordCount: row.wordCount,
    coverImage: coverOf(row),
    seo: seoOf(row),
    createdAt: row.createdAt,
    actor: { id: row.actorId, name: row.actorName },
    autosaveSince: row.autosaveSince,
  };
}

/**
 * A page of a post's revisions, newest first, each with the fields it records differently from the
 * row after it (the next lower version). Only the page's rows are read, and the bodies are compared
 * in the database, not sent: the row after the page's last item is the extra row `pageOf` reads.
 *
 * The bodies compared are the resolved ones. The lower row's resolves to its own or, when null, to
 * this row's: so a null there is no change, and only a stored one is compared with this row's
 * resolved body, which is read (`resolvedBody`) for those rows alone.
 */
function listQuery(db: Database, where: SQL, limit: number) {
  const recent = db.select(revisionColumns).from(revisions).where(where).orderBy(desc(revisions.version)).limit(limit).as('recent');
  const previous = (column: AnyColumn): SQL => sql`lag(${column}) over (order by ${recent.version})`;
  // No row before (the oldest revision): null, hence no change.
  const differs = (column: AnyColumn): SQL<boolean> => sql<boolean>`coalesce(${column} <> ${previous(column)}, false)`;
  // Nullable columns compare null-safely (no cover is null in both); the oldest row has no previous one to differ from.
  const distinct = (columns: AnyColumn[]): SQL<boolean> =>
    sql<boolean>`(${previous(recent.version)} IS NOT NULL AND (${sql.join(columns, sql`, `)}) IS DISTINCT FROM (${sql.join(columns.map(previous), sql`, `)}))`;
  const tagsDiffer = sql<boolean>`coalesce(not (${recent.tags} @> ${previous(recent.tags)} and ${recent.tags} <@ ${previous(recent.tags)}), false)`;
  return db
    .select({
      postId: recent.postId,
      version: recent.version,
      title: recent.title,
      slug: recent.slug,
      excerpt: recent.excerpt,
      tags: recent.tags,
      status: recent.status,
      wordCount: recent.wordCount,
      coverMediaId: recent.coverMediaId,
      coverAlt: recent.coverAlt,
      seoTitle: recent.seoTitle,
      seoDescription: recent.seoDescription,
      seoCanonicalUrl: recent.seoCanonicalUrl,
      createdAt: recent.createdAt,
      actorId: recent.actorId,
      actorName: recent.actorName,
      autosaveSince: recent.autosaveSince,
      changed: {
        title: differs(recent.title),
        slug: differs(recent.slug),
        excerpt: differs(recent.excerpt),
        status: differs(recent.status),
        tags: tagsDiffer,
        coverImage: distinct([recent.coverMediaId, recent.coverAlt]),
        seo: distinct([recent.seoTitle, recent.seoDescription, recent.seoCanonicalUrl]),
        body: sql<boolean>`case when ${previous(recent.body)} is null then false else ${previous(recent.body)} <> ${resolvedBody('recent')} end`,
      },
    })
    .from(recent)
    .orderBy(desc(recent.version));
}

function prepareStatements(db: Database) {
  return {
    get: db
      .select({ ...summaryColumns, body: resolvedBody('revisions') })
      .from(revisions)
      .where(and(eq(revisions.postId, sql.placeholder('postId')), eq(revisions.version, sql.placeholder('version'))))
      .prepare('revisions_get'),
  };
}

export class DrizzleRevisionRepository implements RevisionRepository {
  #statements: ReturnType<typeof prepareStatements> | undefined;

  constructor(private readonly session: DbSession) {}

  get #stmt() {
    return (this.#statements ??= prepareStatements(this.session.db));
  }

  async append(revision: Revision): Promise<void> {
    // Not in a savepoint: a clash means a concurrent writer, and the transaction is lost anyway.
    await this.session.run(
      (db) =>
        db
          .insert(revisions)
          .values({
            postId: revision.postId,
            version: revision.version,
            title: revision.title,
            slug: revision.slug,
            excerpt: revision.excerpt,
            body: revision.body,
            tags: [...revision.tags],
            status: revision.status,
            wordCount: revision.wordCount,
            coverMediaId: revision.coverImage?.mediaId ?? null,
            coverAlt: revision.coverImage?.alt ?? null,
            seoTitle: revision.seo.title,
            seoDescription: revision.seo.description,
            seoCanonicalUrl: revision.seo.canonicalUrl,
            createdAt: revision.createdAt,
            actorId: revision.actor.id,
            actorName: revision.actor.name,
            autosaveSince: revision.autosaveSince,
          })
          .prepare('revisions_append')
          .execute(),
      { id: revision.postId, version: revision.version },
    );
  }

  async list(postId: string, page: { limit: number; cursor?: string | null }): Promise<RevisionPage> {
    const limit = checkedPageLimit(page.limit);
    const scope = revisionCursorScope(postId);
    const where: SQL[] = [eq(revisions.postId, postId)];
    if (hasCursor(page.cursor)) {
      const [version] = decodeCursor(page.cursor, scope, REVISION_POSITION) as [number];
      where.push(lt(revisions.version, version));
    }
    const rows = await this.session.run((db) => listQuery(db, and(...where) as SQL, limit + 1));
    const summaries = rows.map((row): RevisionSummary => ({
      ...toFields(row),
      changed: COMPARED_FIELDS.filter((field: ComparedField) => row.changed[field]),
    }));
    return pageOf(summaries, limit, (last) => encodeCursor(scope, [last.version]));
  }

  async get(postId: string, version: number): Promise<Revision | null> {
    // An out-of-range version (not an int4) cannot be stored; the database would refuse the query.
    if (!Number.isSafeInteger(version) || Math.abs(version) > 2 ** 31 - 1) return null;
    const rows = await this.session.run(() => this.#stmt.get.execute({ postId, version }));
    const row = rows[0];
    return row === undefined ? null : { ...toFields(row), body: row.body };
  }

  async deleteForPost(postId: string): Promise<void> {
    await this.session.run((db) => db.delete(revisions).where(eq(revisions.postId, postId)));
  }
}
