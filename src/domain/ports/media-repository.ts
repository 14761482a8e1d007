import type { Media, MediaFile } from '../media.js';

/** A media as first stored (its files' bytes are in the `BlobStore`, under `mediaBlobKey`). */
export type NewMedia = Media;

/** Fields an edit may change; absent fields keep their value. */
export interface MediaChanges {
  alt?: string;
  caption?: string;
}

/** A post that shows a media: as its cover, or in its body (a link to one of its files). */
export interface MediaUse {
  postId: string;
  title: string;
  slug: string;
}

/**
 * The media library's records (not their bytes: those are in a `BlobStore`). Rules:
 * - `create(media)` stores it and answers `{ media, created: true }`; when a media with the same
 *   `sourceSha256` or `sha256` exists already, it stores nothing and answers that media with
 *   `created: false`. One atomic step across every process sharing the store: N concurrent creates
 *   of identical uploads store one media and all answer it. Another id that is taken throws
 *   `DuplicateIdError`.
 * - `findByHash(sha256)` answers the media whose `sha256` or `sourceSha256` is that hash, or null.
 * - `get(id)` answers the media or null. Ids compare exactly.
 * - `list({ limit, cursor })`: newest first (`createdAt` descending, then `id` descending), cursor
 *   pages as every list port (`limit` 1 to 100, an invalid cursor throws `InvalidCursorError`);
 *   an empty library is an empty page with a null cursor.
 * - `update(id, changes)` changes alt and caption only and answers the media, or null when absent.
 * - `delete(id)` removes the record and answers whether it existed.
 * - `uses(id, limit)` answers at most `limit` posts showing the media, by post id ascending: those
 *   whose cover it is, and those whose body holds the path `/media/<id>/` of one of its files.
 * - `files` are answered in the order stored; `createdAt` keeps millisecond precision.
 */
export interface MediaRepository {
  create(media: NewMedia): Promise<{ media: Media; created: boolean }>;
  findByHash(sha256: string): Promise<Media | null>;
  get(id: string): Promise<Media | null>;
  list(query: { limit: number; cursor?: string | null }): Promise<{ items: Media[]; nextCursor: string | null }>;
  update(id: string, changes: MediaChanges): Promise<Media | null>;
  delete(id: string): Promise<boolean>;
  uses(id: string, limit: number): Promise<MediaUse[]>;
}

/** The key of a media file's bytes in a `BlobStore`. */
export function mediaBlobKey(mediaId: string, file: Pick<MediaFile, 'name'>): string {
  return `media/${mediaId}/${file.name}`;
}

/**
 * Bytes by key, shaped as an object store (S3 and its kin) so that one can be an adapter. Rules:
 * - `put(key, bytes, contentType)` stores the bytes under the key, replacing what it held; after
 *   it resolves, every process sharing the store reads them. Keys are `[a-z0-9./_-]`, at most 200
 *   characters.
 * - `get(key)` answers the bytes and their type exactly as put, or null when absent.
 * - `delete(keys)` removes those keys (absent ones are no error) and answers how many existed.
 * - `purgeOrphans(isOrphan…)` is not here: the media housekeeping lists keys by prefix with
 *   `keys(prefix, limit)`, answered in ascending byte order, at most `limit` (a positive integer).
 */
export interface BlobStore {
  put(key: string, bytes: Uint8Array, contentType: string): Promise<void>;
  get(key: string): Promise<{ bytes: Uint8Array; contentType: string } | null>;
  delete(keys: readonly string[]): Promise<number>;
  keys(prefix: string, limit: number): Promise<string[]>;
}
