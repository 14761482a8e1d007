import { Buffer } from 'node:buffer';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { and, asc, eq, gt, gte, inArray, lt, sql } from 'drizzle-orm';
import { checkedBatchLimit } from '../../../domain/paging.js';
import { isBlobKey, type BlobListing, type BlobStore } from '../../../domain/ports/media-repository.js';
import { type Database, type DbSession } from '../driver/database.js';
import { blobs } from '../schema/schema.js';

/** Above every character a key may hold (`isBlobKey`: ASCII below it), so `prefix + KEY_CEILING` bounds a prefix's keys. */
const KEY_CEILING = '\x7f';

/**
 * The most bytes of one row of `blobs`. One statement writes or reads one part: a 20 MiB blob in
 * one row took seconds per statement, so that four at once passed the statement timeout
 * (bench/NOTES.md).
 */
const BLOB_PART_BYTES = 1024 * 1024;

/**
 * The bytes travel as base64 text, encoded and decoded by Node and by PostgreSQL, not as a bytea
 * parameter: PGlite writes and reads a bytea's hex one byte at a time in JavaScript (about ten times
 * slower for a 5 MiB blob), and postgres.js sends hex, twice the size of the bytes.
 */
function toBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

/** The bytes in parts of at most `BLOB_PART_BYTES` (views, no copy); an empty blob is one empty part. */
function partsOf(bytes: Uint8Array): Uint8Array[] {
  const parts: Uint8Array[] = [];
  for (let start = 0; start < bytes.byteLength || parts.length === 0; start += BLOB_PART_BYTES) {
    parts.push(bytes.subarray(start, start + BLOB_PART_BYTES));
  }
  return parts;
}

function writePart(tx: Database, key: string, part: number, bytes: Uint8Array, contentType: string) {
  return tx
    .insert(blobs)
    .values({ key, part, contentType, bytes: sql`decode(${toBase64(bytes)}, 'base64')`, createdAt: sql`now()` })
    .onConflictDoUpdate({
      target: [blobs.key, blobs.part],
      set: { contentType: sql`excluded.content_type`, bytes: sql`excluded.bytes`, createdAt: sql`excluded.created_at` },
    });
}

/**
 * A blob is its rows `(key, 0..n)`. Part 0 is the blob's lock: a put upserts it first and a delete
 * deletes it first, so that writers of one key wait for each other and then see the parts the
 * other committed (READ COMMITTED: each statement reads what was committed when it began).
 */
export class DrizzleBlobStore implements BlobStore {
  constructor(private readonly session: DbSession) {}

  /** One transaction: a reader sees the old parts or the new ones, all of them. */
  async put(key: string, bytes: Uint8Array, contentType: string): Promise<void> {
    if (!isBlobKey(key)) throw new RangeError(`not a blob key: ${JSON.stringify(key.slice(0, 250))}`);
    const parts = partsOf(bytes);
    await this.session.transaction(async (tx) => {
      await nextTurn(); // see below
      await writePart(tx, key, 0, parts[0]!, contentType);
      // The parts of the bytes replaced, past part 0 (what another put committed while this one waited included).
      await tx.delete(blobs).where(and(eq(blobs.key, key), gt(blobs.part, 0)));
      for (let part = 1; part < parts.length; part += 1) {
        // A turn of the event loop before each part: embedded PGlite runs each statement on this
        // thread and settles it as a microtask, so without it a blob's parts (~40 ms each), and one
        // blob after another, ran back to back and held every other request (2.8 s of /healthz for
        // twenty parallel uploads; bench/NOTES.md).
        await nextTurn();
        await writePart(tx, key, part, parts[part]!, contentType);
      }
    });
  }

  /** One statement, so the parts are those of one put. */
  async get(key: string): Promise<{ bytes: Uint8Array; contentType: string } | null> {
    const rows = await this.session.run((db) =>
      db
        .select({ base64: sql<string>`encode(${blobs.bytes}, 'base64')`, contentType: blobs.contentType })
        .from(blobs)
        .where(eq(blobs.key, key))
        .orderBy(asc(blobs.part)),
    );
    const first = rows[0];
    if (first === undefined) return null;
    // One buffer for the whole blob (a plain Uint8Array, as the port answers), each part decoded into it.
    const chunks = rows.map((row) => Buffer.from(row.base64, 'base64'));
    const bytes = new Uint8Array(chunks.reduce((sum, chunk) => sum + chunk.byteLength, 0));
    let offset = 0;
    for (const chunk of chunks) {
      bytes.set(chunk, offset);
      offset += chunk.byteLength;
    }
    return { bytes, contentType: first.contentType };
  }

  async delete(keys: readonly string[]): Promise<number> {
    const distinct = [...new Set(keys)];
    if (distinct.length === 0) return 0;
    return this.session.transaction(async (tx) => {
      const heads = await tx
        .delete(blobs)
        .where(and(inArray(blobs.key, distinct), eq(blobs.part, 0)))
        .returning({ key: blobs.key });
      // Only the keys whose part 0 this deleted: a put of another key may be writing its parts.
      if (heads.length > 0) {
        await tx.delete(blobs).where(
          and(
            inArray(
              blobs.key,
              heads.map((h) => h.key),
            ),
            gt(blobs.part, 0),
          ),
        );
      }
      return heads.length;
    });
  }

  async keys(prefix: string, limit: number): Promise<string[]> {
    return (await this.list(prefix, { limit })).map((entry) => entry.key);
  }

  /** A range scan of the primary key (`COLLATE "C"`: byte order) from the prefix to its ceiling, part 0 of each blob. */
  async list(prefix: string, options: { limit: number; after?: string | null }): Promise<BlobListing[]> {
    const most = checkedBatchLimit(options.limit);
    // No key starts with what no key may hold.
    if (prefix !== '' && !isBlobKey(prefix)) return [];
    const after = options.after ?? null;
    const rows = await this.session.run((db) =>
      db
        .select({ key: blobs.key, createdAt: blobs.createdAt })
        .from(blobs)
        .where(
          and(
            gte(blobs.key, prefix),
            lt(blobs.key, prefix + KEY_CEILING),
            after === null ? undefined : gt(blobs.key, after),
            eq(blobs.part, 0),
          ),
        )
        .orderBy(asc(blobs.key))
        .limit(most),
    );
    return rows.map((r) => ({ key: r.key, createdAt: r.createdAt }));
  }
}
