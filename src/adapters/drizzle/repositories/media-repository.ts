import { and, asc, desc, eq, or, sql, type SQL } from 'drizzle-orm';
import { checkedBatchLimit, checkedIds, checkedPageLimit, hasCursor, pageOf } from '../../../domain/paging.js';
import { decodeCursor, encodeCursor } from '../../../domain/cursor.js';
import { searchTokens } from '../../../domain/search.js';
import { DuplicateIdError } from '../../../domain/errors.js';
import type { Media, MediaFile, MediaType, MediaUse } from '../../../domain/media.js';
import {
  MEDIA_POSITION,
  mediaCursorScope,
  type MediaChanges,
  type MediaRepository,
  type NewMedia,
} from '../../../domain/ports/media-repository.js';
import { type DbSession } from '../driver/database.js';
import { media, posts } from '../schema/schema.js';

/**
 * How often `create` inserts again when its insert met a row that was gone by the time it was read
 * (deleted in between): each attempt needs another process to delete a media at that very moment.
 */
const CREATE_ATTEMPTS = 5;

type MediaRow = typeof media.$inferSelect;

function toMedia(row: MediaRow): Media {
  return {
    id: row.id,
    contentType: row.contentType as MediaType,
    width: row.width,
    height: row.height,
    bytes: row.bytes,
    sha256: row.sha256,
    sourceSha256: row.sourceSha256,
    alt: row.alt,
    caption: row.caption,
    createdAt: new Date(row.createdAt),
    // jsonb keeps array order; each file is rebuilt so that its keys do not depend on jsonb's.
    files: (row.files as MediaFile[]).map(fileOf),
  };
}

/** A file's fields and nothing else, in the port's order (what is stored, and what is read back). */
function fileOf(f: MediaFile): MediaFile {
  return { name: f.name, contentType: f.contentType, width: f.width, height: f.height, bytes: f.bytes, sha256: f.sha256 };
}

/** `s` matched literally by LIKE (with `ESCAPE '\'`). */
function likeLiteral(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`);
}

export class DrizzleMediaRepository implements MediaRepository {
  constructor(private readonly session: DbSession) {}

  /**
   * One `INSERT … ON CONFLICT DO NOTHING` (no target: any unique constraint, either hash or the
   * id). On PostgreSQL an insert that meets a row another transaction is inserting waits for it to
   * commit, then does nothing; the read that follows (a statement of its own, so it sees that
   * commit) answers the media that won. Only when neither hash is there is a taken id the cause.
   */
  async create(input: NewMedia): Promise<{ media: Media; created: boolean }> {
    for (let attempt = 1; ; attempt += 1) {
      const inserted = await this.session.run((db) => db.insert(media).values(rowOf(input)).onConflictDoNothing().returning());
      if (inserted[0] !== undefined) return { media: toMedia(inserted[0]), created: true };
      const existing = await this.#identical(input.sourceSha256, input.sha256);
      if (existing !== null) return { media: existing, created: false };
      if ((await this.get(input.id)) !== null) throw new DuplicateIdError(input.id);
      if (attempt === CREATE_ATTEMPTS) throw new Error(`media ${input.id}: the conflicting row kept disappearing`);
    }
  }

  findByHash(sha256: string): Promise<Media | null> {
    return this.#identical(sha256, sha256);
  }

  /** The media with this `sourceSha256`, else the one with this `sha256` (the port's order). */
  async #identical(sourceSha256: string, sha256: string): Promise<Media | null> {
    const rows = await this.session.run((db) =>
      db
        .select()
        .from(media)
        .where(or(eq(media.sourceSha256, sourceSha256), eq(media.sha256, sha256)))
        .orderBy(sql`${media.sourceSha256} = ${sourceSha256} DESC`)
        .limit(1),
    );
    return rows[0] === undefined ? null : toMedia(rows[0]);
  }

  async get(id: string): Promise<Media | null> {
    const rows = await this.session.run((db) => db.select().from(media).where(eq(media.id, id)));
    return rows[0] === undefined ? null : toMedia(rows[0]);
  }

  async getMany(ids: readonly string[]): Promise<Media[]> {
    const wanted = checkedIds(ids);
    if (wanted.length === 0) return [];
    // An array parameter: one statement for any number of ids, not one per count as `IN (…)` would be.
    const rows = await this.session.run((db) =>
      db
        .select()
        .from(media)
        .where(sql`${media.id} = any(${sql.param(wanted)})`),
    );
    const byId = new Map(rows.map((row) => [row.id, toMedia(row)]));
    return wanted.flatMap((id) => byId.get(id) ?? []);
  }

  async list(query: { limit: number; cursor?: string | null }): Promise<{ items: Media[]; nextCursor: string | null }> {
    const limit = checkedPageLimit(query.limit);
    const scope = mediaCursorScope();
    let after: SQL | undefined;
    if (hasCursor(query.cursor)) {
      const [iso, id] = decodeCursor(query.cursor, scope, MEDIA_POSITION) as [string, string];
      after = sql`(${media.createdAt}, ${media.id}) < (${iso}::timestamptz, ${id})`;
    }
    const rows = await this.session.run((db) =>
      db
        .select()
        .from(media)
        .where(after)
        .orderBy(desc(media.createdAt), desc(media.id))
        .limit(limit + 1),
    );
    const page = pageOf(rows.map(toMedia), limit, (last) => encodeCursor(scope, [last.createdAt.toISOString(), last.id]));
    return page;
  }

  async update(id: string, changes: MediaChanges): Promise<Media | null> {
    const set = {
      ...(changes.alt !== undefined ? { alt: changes.alt } : {}),
      ...(changes.caption !== undefined ? { caption: changes.caption } : {}),
    };
    if (Object.keys(set).length === 0) return this.get(id);
    const rows = await this.session.run((db) => db.update(media).set(set).where(eq(media.id, id)).returning());
    return rows[0] === undefined ? null : toMedia(rows[0]);
  }

  async delete(id: string): Promise<boolean> {
    const rows = await this.session.run((db) => db.delete(media).where(eq(media.id, id)).returning({ id: media.id }));
    return rows.length > 0;
  }

  /**
   * The cover by its partial index; the body by LIKE, behind the search index when the id is one
   * word of the search rule (letters and digits, as ids are): a body naming `/media/<id>/` holds
   * that word, so only the posts the index gives are read.
   */
  async uses(id: string, limit: number): Promise<MediaUse[]> {
    const most = checkedBatchLimit(limit);
    const pattern = `%/media/${likeLiteral(id)}/%`;
    const words = searchTokens(id);
    const inBody =
      words.length === 1 && words[0] === id
        ? and(sql`${posts.search} @@ ${`'${id}'`}::tsquery`, sql`${posts.body} LIKE ${pattern} ESCAPE '\\'`)
        : sql`${posts.body} LIKE ${pattern} ESCAPE '\\'`;
    const rows = await this.session.run((db) =>
      db
        .select({ postId: posts.id, title: posts.title, slug: posts.slug })
        .from(posts)
        .where(or(eq(posts.coverMediaId, id), inBody))
        .orderBy(asc(posts.id))
        .limit(most),
    );
    return rows;
  }
}

function rowOf(m: NewMedia): typeof media.$inferInsert {
  return {
    id: m.id,
    contentType: m.contentType,
    width: m.width,
    height: m.height,
    bytes: m.bytes,
    sha256: m.sha256,
    sourceSha256: m.sourceSha256,
    alt: m.alt,
    caption: m.caption,
    createdAt: m.createdAt,
    files: m.files.map(fileOf),
  };
}
