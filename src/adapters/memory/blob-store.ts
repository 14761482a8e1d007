import { checkedBatchLimit, compareUtf8 } from '../../domain/index.js';
import { isBlobKey, type BlobListing, type BlobStore } from '../../domain/ports/media-repository.js';
import type { MemoryDatabase, MemoryLibrary } from './state.js';

export class MemoryBlobStore implements BlobStore {
  readonly #db: MemoryDatabase;

  constructor(db: MemoryDatabase) {
    this.#db = db;
  }

  #exec<T>(fn: (blobs: MemoryLibrary['blobs']) => T): Promise<T> {
    return this.#db.autoCommit.exec(() => fn(this.#db.library.blobs));
  }

  put(key: string, bytes: Uint8Array, contentType: string): Promise<void> {
    return this.#exec((blobs) => {
      if (!isBlobKey(key)) throw new RangeError(`not a blob key: ${JSON.stringify(key.slice(0, 250))}`);
      // A copy of exactly the bytes the view shows: the caller may reuse its array.
      blobs.set(key, { bytes: new Uint8Array(bytes), contentType, createdAt: new Date() });
    });
  }

  get(key: string): Promise<{ bytes: Uint8Array; contentType: string } | null> {
    return this.#exec((blobs) => {
      const found = blobs.get(key);
      return found === undefined ? null : { bytes: found.bytes.slice(), contentType: found.contentType };
    });
  }

  delete(keys: readonly string[]): Promise<number> {
    return this.#exec((blobs) => {
      let existed = 0;
      for (const key of new Set(keys)) if (blobs.delete(key)) existed += 1;
      return existed;
    });
  }

  async keys(prefix: string, limit: number): Promise<string[]> {
    return (await this.list(prefix, { limit })).map((entry) => entry.key);
  }

  list(prefix: string, options: { limit: number; after?: string | null }): Promise<BlobListing[]> {
    return this.#exec((blobs) => {
      const most = checkedBatchLimit(options.limit);
      const after = options.after ?? null;
      return [...blobs.entries()]
        .filter(([key]) => key.startsWith(prefix) && (after === null || compareUtf8(key, after) > 0))
        .sort(([a], [b]) => compareUtf8(a, b))
        .slice(0, most)
        .map(([key, blob]) => ({ key, createdAt: new Date(blob.createdAt) }));
    });
  }
}
