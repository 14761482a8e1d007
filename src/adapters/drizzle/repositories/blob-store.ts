import { Buffer } from 'node:buffer';
import { and, asc, gte, inArray, lt, sql } from 'drizzle-orm';
import { checkedBatchLimit } from '../../../domain/paging.js';
import { isBlobKey, type BlobStore } from '../../../domain/ports/media-repository.js';
import { type DbSession } from '../driver/database.js';
import { blobs } from '../schema/schema.js';

/** Above every character a key may hold (`isBlobKey`: ASCII below it), so `prefix + KEY_CEILING` bounds a prefix's keys. */
const KEY_CEILING = '\x7f';

/**
 * The bytes travel as base64 text, encoded and decoded by Node and by PostgreSQL, not as a bytea
 * parameter: PGlite writes and reads a bytea's hex one byte at a time in JavaScript (about ten times
 * slower for a 5 MiB blob), and postgres.js sends hex, twice the size of the bytes.
 */
function toBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

/** A plain `Uint8Array` (as the port answers), a view of the decoded buffer, no copy. */
function fromBase64(text: string): Uint8Array {
  const buffer = Buffer.from(text, 'base64');
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
}

export class DrizzleBlobStore implements BlobStore {
  constructor(private readonly session: DbSession) {}

  /** An upsert: one statement, so a reader sees the old bytes or the new ones, whole. */
  async put(key: string, bytes: Uint8Array, contentType: string): Promise<void> {
    if (!isBlobKey(key)) throw new RangeError(`not a blob key: ${JSON.stringify(key.slice(0, 250))}`);
    await this.session.run((db) =>
      db
        .insert(blobs)
        .values({ key, contentType, bytes: sql`decode(${toBase64(bytes)}, 'base64')`, createdAt: sql`now()` })
        .onConflictDoUpdate({
          target: blobs.key,
          set: { contentType: sql`excluded.content_type`, bytes: sql`excluded.bytes`, createdAt: sql`excluded.created_at` },
        }),
    );
  }

  async get(key: string): Promise<{ bytes: Uint8Array; contentType: string } | null> {
    const rows = await this.session.run((db) =>
      db
        .select({ base64: sql<string>`encode(${blobs.bytes}, 'base64')`, contentType: blobs.contentType })
        .from(blobs)
        .where(sql`${blobs.key} = ${key}`),
    );
    const row = rows[0];
    return row === undefined ? null : { bytes: fromBase64(row.base64), contentType: row.contentType };
  }

  async delete(keys: readonly string[]): Promise<number> {
    const distinct = [...new Set(keys)];
    if (distinct.length === 0) return 0;
    const rows = await this.session.run((db) => db.delete(blobs).where(inArray(blobs.key, distinct)).returning({ key: blobs.key }));
    return rows.length;
  }

  /** A range scan of the primary key (`COLLATE "C"`: byte order) from the prefix to its ceiling. */
  async keys(prefix: string, limit: number): Promise<string[]> {
    const most = checkedBatchLimit(limit);
    // No key starts with what no key may hold.
    if (prefix !== '' && !isBlobKey(prefix)) return [];
    const rows = await this.session.run((db) =>
      db
        .select({ key: blobs.key })
        .from(blobs)
        .where(and(gte(blobs.key, prefix), lt(blobs.key, prefix + KEY_CEILING)))
        .orderBy(asc(blobs.key))
        .limit(most),
    );
    return rows.map((r) => r.key);
  }
}
