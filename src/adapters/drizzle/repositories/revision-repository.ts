import { checkedPageLimit, hasCursor, pageOf } from '../../../domain/paging.js';
import { and, desc, eq, lt, sql, type SQL } from 'drizzle-orm';
import { decodeCursor, encodeCursor, REVISION_POSITION, revisionCursorScope } from '../../../domain/cursor.js';
import type { PostStatus } from '../../../domain/post.js';
import type { Revision, RevisionPage, RevisionRepository, RevisionSummary } from '../../../domain/ports/revision-repository.js';
import { type Database, type DbSession } from '../driver/database.js';
import { revisions } from '../schema/schema.js';

const summaryColumns = {
  postId: revisions.postId,
  version: revisions.version,
  title: revisions.title,
  slug: revisions.slug,
  excerpt: revisions.excerpt,
  tags: revisions.tags,
  status: revisions.status,
  wordCount: revisions.wordCount,
  createdAt: revisions.createdAt,
  actorId: revisions.actorId,
  actorName: revisions.actorName,
};
const revisionColumns = { ...summaryColumns, body: revisions.body };

interface SummaryRow {
  postId: string;
  version: number;
  title: string;
  slug: string;
  excerpt: string;
  tags: string[];
  status: string;
  wordCount: number;
  createdAt: Date;
  actorId: string;
  actorName: string;
}

function toSummary(row: SummaryRow): RevisionSummary {
  return {
    postId: row.postId,
    version: row.version,
    title: row.title,
    slug: row.slug,
    excerpt: row.excerpt,
    tags: [...row.tags],
    status: row.status as PostStatus,
    wordCount: row.wordCount,
    createdAt: row.createdAt,
    actor: { id: row.actorId, name: row.actorName },
  };
}

function prepareStatements(db: Database) {
  return {
    get: db
      .select(revisionColumns)
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
            createdAt: revision.createdAt,
            actorId: revision.actor.id,
            actorName: revision.actor.name,
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
    const rows = await this.session.run((db) =>
      db
        .select(summaryColumns)
        .from(revisions)
        .where(and(...where))
        .orderBy(desc(revisions.version))
        .limit(limit + 1),
    );
    return pageOf(rows.map(toSummary), limit, (last) => encodeCursor(scope, [last.version]));
  }

  async get(postId: string, version: number): Promise<Revision | null> {
    // An out-of-range version (not an int4) cannot be stored; the database would refuse the query.
    if (!Number.isSafeInteger(version) || Math.abs(version) > 2 ** 31 - 1) return null;
    const rows = await this.session.run(() => this.#stmt.get.execute({ postId, version }));
    const row = rows[0];
    return row === undefined ? null : { ...toSummary(row), body: row.body };
  }

  async deleteForPost(postId: string): Promise<void> {
    await this.session.run((db) => db.delete(revisions).where(eq(revisions.postId, postId)));
  }
}
