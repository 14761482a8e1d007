import { cursorScope, type CursorField } from '../cursor.js';
import type { Media, MediaFile, MediaUse } from '../media.js';

/** A media as first stored (its files' bytes are in the `BlobStore`, under `mediaBlobKey`). */
export type NewMedia = Media;

/** Fields an edit may change; absent fields keep their value. */
export interface MediaChanges {
  alt?: string;
  caption?: string;
}

/** The position of a media list (newest first): `[createdAtIso, id]`. */
export const MEDIA_POSITION: readonly CursorField[] = ['instant', 'string'];

/** The scope of `MediaRepository.list`: one list, no filters. */
export function mediaCursorScope(): string {
  return cursorScope({ list: 'media' });
}

/**
 * The media library's records (not their bytes: those are in a `BlobStore`). Rules:
 * - `create(media)` stores it as given and answers `{ media, created: true }`. When a media with
 *   the same `sourceSha256` or the same `sha256` exists already (each hash compared with the same
 *   field), it stores nothing and answers that media, as stored, with `created: false` (when one
 *   media has the same `sourceSha256` and another the same `sha256`, the first). One atomic step
 *   across every process sharing the store: N concurrent creates of identical uploads store one
 *   media and all N answer it. An id that another media holds, with neither hash matching, throws
 *   `DuplicateIdError` and stores nothing.
 * - `findByHash(sha256)` answers the media whose `sourceSha256` is that hash, else the one whose
 *   `sha256` is, else null: an upload's bytes are found whether they are what was uploaded or what
 *   is served.
 * - `get(id)` answers the media or null. Ids compare exactly (byte for byte, case included).
 * - `getMany(ids)` answers the media of `ids` that exist, as `get` does, in the order of `ids`,
 *   each once however often it is named; an unknown id is left out, and no ids give []. It takes
 *   at most `PAGE_LIMIT_MAX` (100) distinct ids (a RangeError beyond), read together.
 * - `list({ limit, cursor })`: newest first (`createdAt` descending, then `id` descending in byte
 *   order), cursor pages as every list port (`limit` an integer from 1 to 100, else `RangeError`;
 *   a cursor that is not one of this list's throws `InvalidCursorError`); an empty library, or the
 *   last page, answers a null cursor.
 * - `update(id, changes)` changes alt and caption only (an absent field keeps its value) and
 *   answers the media as stored, or null when absent.
 * - `delete(id)` removes the record and answers whether it existed.
 * - `uses(id, limit)` answers at most `limit` (a positive integer, else `RangeError`) posts of any
 *   status showing the media, by post id ascending (byte order), each once: those whose cover it
 *   is, and those whose body holds the path `/media/<id>/` (exactly, case included) of one of its
 *   files. A media no post shows, or an unknown id, answers an empty list.
 * - Every answer is a copy: `files` in the order stored, `createdAt` at millisecond precision.
 */
export interface MediaRepository {
  create(media: NewMedia): Promise<{ media: Media; created: boolean }>;
  findByHash(sha256: string): Promise<Media | null>;
  get(id: string): Promise<Media | null>;
  getMany(ids: readonly string[]): Promise<Media[]>;
  list(query: { limit: number; cursor?: string | null }): Promise<{ items: Media[]; nextCursor: string | null }>;
  update(id: string, changes: MediaChanges): Promise<Media | null>;
  delete(id: string): Promise<boolean>;
  uses(id: string, limit: number): Promise<MediaUse[]>;
}

/** The key of a media file's bytes in a `BlobStore`. */
export function mediaBlobKey(mediaId: string, file: Pick<MediaFile, 'name'>): string {
  return `media/${mediaId}/${file.name}`;
}

/** The media file a blob key names (`mediaBlobKey`'s inverse), or null for a key of another shape. */
export function mediaFileOfBlobKey(key: string): { mediaId: string; name: string } | null {
  const match = /^media\/([^/]+)\/([^/]+)$/.exec(key);
  return match === null ? null : { mediaId: match[1]!, name: match[2]! };
}

/** At most this many characters in a blob key. */
export const BLOB_KEY_MAX = 200;

/** Whether `key` may name a blob: 1 to 200 characters of `[a-z0-9./_-]` (every store can hold it). */
export function isBlobKey(key: string): boolean {
  return key.length <= BLOB_KEY_MAX && /^[a-z0-9./_-]+$/.test(key);
}

/**
 * Bytes by key, shaped as an object store (S3 and its kin) so that one can be an adapter. Every
 * call stands alone (no transaction: a `UnitOfWork` does not hold it). Rules:
 * - `put(key, bytes, contentType)` stores a copy of the bytes under the key, replacing what it
 *   held; after it resolves, every process sharing the store reads them. A key that is not
 *   `isBlobKey` throws `RangeError` and stores nothing.
 * - `get(key)` answers the bytes (a plain `Uint8Array`, not a subclass such as Node's `Buffer`)
 *   and their type exactly as put, or null when absent.
 * - `delete(keys)` removes those keys (absent ones are no error, a key named twice counts once)
 *   and answers how many existed.
 * - `keys(prefix, limit)` answers the keys starting with `prefix` (the empty prefix: every key)
 *   in ascending byte order, at most `limit` (a positive integer, else `RangeError`).
 * - `list(prefix, { limit, after })` answers the same keys, each with `createdAt` (when the put
 *   that stored its bytes ran, by the store's clock, at millisecond precision: a put replacing
 *   the bytes renews it), only those after `after` in byte order when given: the pages the
 *   housekeeping reads to find bytes no media names.
 * - A blob of any size the caller holds (20 MiB, several put at once) goes whole through one
 *   call: an adapter splits it as its backend needs, so that no statement or request a timeout
 *   may cut carries all of it.
 */
export interface BlobStore {
  put(key: string, bytes: Uint8Array, contentType: string): Promise<void>;
  get(key: string): Promise<{ bytes: Uint8Array; contentType: string } | null>;
  delete(keys: readonly string[]): Promise<number>;
  keys(prefix: string, limit: number): Promise<string[]>;
  list(prefix: string, options: { limit: number; after?: string | null }): Promise<BlobListing[]>;
}

/** A key of a `BlobStore` and when its bytes were put. */
export interface BlobListing {
  key: string;
  createdAt: Date;
}
