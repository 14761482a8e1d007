import { mediaBlobKey } from '../domain/index.js';

/**
 * The bytes of media files last served, least recently used first out, at most `maxBytes` in all.
 * A media's files never change once stored (a new upload is a new id), so bytes once read stay
 * true while the media exists; whether it still exists is the record's to say, read on every
 * request (`readMediaFile`), so that a delete by any process is honoured at once. Keys are
 * `mediaBlobKey`s. Reading a ~100 KB file from the database cost more than the rest of the
 * request (bench/NOTES.md, "Images").
 */
export class MediaFileCache {
  readonly #files = new Map<string, Uint8Array>();
  #bytes = 0;

  constructor(readonly maxBytes: number) {}

  /** The bytes under `key`, now the most recently used, or undefined. */
  get(key: string): Uint8Array | undefined {
    const bytes = this.#files.get(key);
    if (bytes === undefined) return undefined;
    this.#files.delete(key);
    this.#files.set(key, bytes);
    return bytes;
  }

  /** Keeps `bytes` under `key`, dropping the least recently used beyond `maxBytes`; a larger file is not kept. */
  set(key: string, bytes: Uint8Array): void {
    this.#drop(key);
    if (bytes.byteLength > this.maxBytes) return;
    this.#files.set(key, bytes);
    this.#bytes += bytes.byteLength;
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
    const bytes = this.#files.get(key);
    if (bytes === undefined) return;
    this.#files.delete(key);
    this.#bytes -= bytes.byteLength;
  }
}
