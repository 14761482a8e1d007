import { mediaBlobKey, type MediaFile } from '../domain/index.js';

/** A file last served: its record and its bytes. */
export interface CachedFile {
  file: MediaFile;
  bytes: Uint8Array;
}

/**
 * The media files last served, least recently used first out, at most `maxBytes` of bytes in all.
 * A media's files never change once stored (a new upload is a new id), so a file once read stays
 * true while the media exists. Whether it still exists is the record's to say: read on every
 * request (`readMediaFile`), so that a delete by any process is honoured at once — unless
 * `soleProcess`: when no other process can use the store (embedded PGlite, whose data folder one
 * process holds; memory), every delete passes through this process and forgets the media here,
 * so a cached file is answered without asking the store. Keys are `mediaBlobKey`s. Reading a
 * ~100 KB file from the database cost more than the rest of the request (bench/NOTES.md, "Images").
 */
export class MediaFileCache {
  readonly #files = new Map<string, CachedFile>();
  #bytes = 0;

  constructor(
    readonly maxBytes: number,
    readonly soleProcess = false,
  ) {}

  /** The file under `key`, now the most recently used, or undefined. */
  get(key: string): CachedFile | undefined {
    const bytes = this.#files.get(key);
    if (bytes === undefined) return undefined;
    this.#files.delete(key);
    this.#files.set(key, bytes);
    return bytes;
  }

  /** Keeps `cached` under `key`, dropping the least recently used beyond `maxBytes`; a larger file is not kept. */
  set(key: string, cached: CachedFile): void {
    this.#drop(key);
    if (cached.bytes.byteLength > this.maxBytes) return;
    this.#files.set(key, cached);
    this.#bytes += cached.bytes.byteLength;
    for (const oldest of this.#files.keys()) {
      if (this.#bytes <= this.maxBytes) break;
      this.#drop(oldest);
    }
  }

  /** Forgets every file of the media `id` (its keys start with `media/<id>/`). */
  forgetMedia(id: string): void {
    const prefix = mediaBlobKey(id, { name: '' });
    for (const key of [...this.#files.keys()]) if (key.startsWith(prefix)) this.#drop(key);
  }

  /** The bytes held. */
  get size(): number {
    return this.#bytes;
  }

  #drop(key: string): void {
    const cached = this.#files.get(key);
    if (cached === undefined) return;
    this.#files.delete(key);
    this.#bytes -= cached.bytes.byteLength;
  }
}
