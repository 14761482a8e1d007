/**
 * `margin export`: the site's archive (`GET /export`) written to a file as it arrives, checked
 * while it streams: every file is inflated and hashed, and the archive counts as whole only when
 * it ends with a manifest that names each file with the same size and SHA-256. The bytes go to
 * `<file>.part`, renamed to `<file>` once checked, so an interrupted export never leaves a file that
 * looks complete.
 */
import { createHash, type Hash } from 'node:crypto';
import { open, rename, rm } from 'node:fs/promises';
import { Unzip, UnzipInflate } from 'fflate';

export interface ArchiveFileSeen {
  path: string;
  bytes: number;
  sha256: string;
}

/** What the check found: the posts' files and the manifest's own list. */
export interface CheckedArchive {
  bytes: number;
  files: ArchiveFileSeen[];
  manifest: { format?: unknown; version?: unknown; counts?: Record<string, unknown>; files?: unknown };
}

/** Reads a zip as a stream of chunks, inflating and hashing every entry. */
export class ArchiveChecker {
  readonly #unzip = new Unzip();
  readonly #files: ArchiveFileSeen[] = [];
  readonly #pending = new Set<string>();
  #manifest: Uint8Array[] | null = null;
  #error: Error | null = null;
  bytes = 0;

  constructor() {
    this.#unzip.register(UnzipInflate);
    this.#unzip.onfile = (file) => {
      const path = file.name;
      const isManifest = path === 'manifest.json';
      const chunks: Uint8Array[] = [];
      const hash: Hash = createHash('sha256');
      let size = 0;
      this.#pending.add(path);
      file.ondata = (error, data, final) => {
        if (error) {
          this.#error ??= new Error(`${path}: ${error.message}`);
          return;
        }
        size += data.byteLength;
        if (isManifest) chunks.push(data);
        else hash.update(data);
        if (final) {
          this.#pending.delete(path);
          if (isManifest) this.#manifest = chunks;
          else this.#files.push({ path, bytes: size, sha256: hash.digest('hex') });
        }
      };
      file.start();
    };
  }

  /** The number of post files inflated so far. */
  get files(): number {
    return this.#files.length;
  }

  push(chunk: Uint8Array): void {
    this.bytes += chunk.byteLength;
    this.#unzip.push(chunk);
    if (this.#error) throw this.#error;
  }

  /** Ends the stream; throws when the archive is cut short or its manifest disagrees with its files. */
  finish(): CheckedArchive {
    const cutShort = new Error('the archive ended before its manifest: the export was cut short');
    try {
      this.#unzip.push(new Uint8Array(0), true);
    } catch {
      throw cutShort; // fflate: an entry's data ended before its end
    }
    if (this.#error) throw this.#error;
    if (this.#pending.size > 0 || this.#manifest === null) throw cutShort;
    const manifest = JSON.parse(Buffer.concat(this.#manifest).toString('utf8')) as CheckedArchive['manifest'];
    const listed = Array.isArray(manifest.files) ? (manifest.files as ArchiveFileSeen[]) : [];
    const seen = new Map(this.#files.map((f) => [f.path, f]));
    if (listed.length !== this.#files.length) {
      throw new Error(`the manifest lists ${listed.length} files but the archive holds ${this.#files.length}`);
    }
    for (const entry of listed) {
      const file = seen.get(entry.path);
      if (!file || file.bytes !== entry.bytes || file.sha256 !== entry.sha256) {
        throw new Error(`${entry.path} does not match the manifest (size or SHA-256)`);
      }
    }
    return { bytes: this.bytes, files: this.#files, manifest };
  }
}

/**
 * Writes `stream` to `path` through `<path>.part`, checking it on the way; `onProgress` hears of
 * each chunk. Refuses to replace an existing file (the `.part` is opened exclusively as well).
 */
export async function saveCheckedArchive(
  stream: ReadableStream<Uint8Array>,
  path: string,
  onProgress: (checker: ArchiveChecker) => void,
): Promise<CheckedArchive> {
  const part = `${path}.part`;
  const checker = new ArchiveChecker();
  const file = await open(part, 'wx', 0o644);
  try {
    for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) {
      checker.push(chunk);
      await file.write(chunk);
      onProgress(checker);
    }
    const checked = checker.finish();
    await file.sync();
    await file.close();
    await rename(part, path);
    return checked;
  } catch (error) {
    await file.close().catch(() => undefined);
    await rm(part, { force: true });
    throw error;
  }
}
