/**
 * The zip archive an import reads, checked as a whole before any of it is used. yauzl reads the
 * central directory (not the local headers, which a streamed zip may leave incomplete) and
 * inflates one entry at a time, each stream failing when an entry inflates to other than the
 * size it declares; the names, kinds and sizes are checked here, and every inflated entry's
 * CRC-32 is compared with its declared one.
 */
import { crc32 } from 'node:zlib';
import yauzl, { type Entry, type ZipFile } from 'yauzl';

export interface ArchiveLimits {
  /** Entries (folders included) an archive may hold. */
  maxEntries: number;
  /** Bytes the entries that are read may inflate to, together. */
  maxInflatedBytes: number;
  /** A file declaring more than this is skipped without being inflated. */
  maxFileBytes: number;
  /**
   * The per-file limit of a path when it is not `maxFileBytes` (an import's images have the
   * media upload's); such a file counts against `maxInflatedBytes` like any other.
   */
  maxFileBytesOf?: (path: string) => number;
  /**
   * Paths with a size limit of their own instead of `maxFileBytes` (the manifest of an export,
   * which lists every post and so grows with the site). Such an entry declaring more than its
   * limit refuses the archive, since it cannot be skipped like a post; one within it is inflated
   * once, while the archive is checked, and kept for `read`.
   */
  ownLimits?: ReadonlyMap<string, number>;
}

export type RefusalReason =
  | 'not_a_zip'
  | 'too_many_entries'
  | 'too_large'
  | 'unsafe_path'
  | 'symlink'
  | 'encrypted'
  | 'unsupported_compression'
  | 'size_mismatch'
  | 'damaged'
  | 'unsupported_manifest';

/**
 * Why a whole archive is refused (its message says why, naming the entry if one is at fault);
 * thrown before any of it is used. A format error: the HTTP adapter answers it with its 422.
 */
export class ArchiveRefused extends Error {
  constructor(
    readonly reason: RefusalReason,
    readonly entry: string | null,
    why: string,
  ) {
    super(why);
    this.name = 'ArchiveRefused';
  }
}

/** One file of a checked archive, in the archive's order. */
export interface ArchiveFile {
  path: string;
  /** The size the entry declares (inflated). */
  size: number;
  /** Whether `size` is over the per-file limit: such a file is never inflated. */
  tooLarge: boolean;
}

export interface CheckedZip {
  files: ArchiveFile[];
  /** The inflated bytes of a file that is not too large (inflated again, or as kept by the check for a path of `ownLimits`). */
  read(file: ArchiveFile): Promise<Uint8Array>;
  close(): void;
}

const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;
// eslint-disable-next-line no-control-regex -- refusing control characters in entry names is the point
const CONTROL = /[\u0000-\u001f\u007f]/;

/** Why an entry's name is unsafe to act on, or null: absolute, a drive letter, a backslash, `..`, control characters. */
function unsafePath(name: string): string | null {
  if (name.startsWith('/') || /^[a-zA-Z]:/.test(name)) return 'is an absolute path';
  if (name.includes('\\')) return 'has a backslash';
  if (CONTROL.test(name)) return 'has a control character';
  if (name.split('/').some((segment) => segment === '..')) return 'climbs out of the archive with ".."';
  return null;
}

const quoted = (name: string) => JSON.stringify(name);

async function entriesOf(zip: ZipFile): Promise<Entry[]> {
  return new Promise((resolve, reject) => {
    const entries: Entry[] = [];
    zip.on('entry', (entry: Entry) => {
      entries.push(entry);
      zip.readEntry();
    });
    zip.once('end', () => resolve(entries));
    zip.once('error', reject);
    zip.readEntry();
  });
}

/**
 * Inflates an entry, checking its CRC-32 on the way, and returns its bytes, or null when they are
 * not to be kept. Inflating stops as soon as the entry passes the size it declares (yauzl's
 * `validateEntrySizes`, and the count here), so no entry inflates to more than its declared size.
 */
async function inflate(zip: ZipFile, entry: Entry, name: string, keep: boolean): Promise<Uint8Array | null> {
  let stream;
  try {
    stream = await zip.openReadStreamPromise(entry);
  } catch (error) {
    throw new ArchiveRefused('damaged', name, `the entry ${quoted(name)} cannot be read (${(error as Error).message})`);
  }
  const sizeMismatch = () =>
    new ArchiveRefused(
      'size_mismatch',
      name,
      `the entry ${quoted(name)} inflates to other than the ${entry.uncompressedSize} bytes it declares`,
    );
  const chunks: Buffer[] = [];
  let inflated = 0;
  let crc = 0;
  try {
    for await (const chunk of stream) {
      const bytes = chunk as Buffer;
      inflated += bytes.byteLength;
      if (inflated > entry.uncompressedSize) throw sizeMismatch(); // leaving the loop destroys the stream
      crc = crc32(bytes, crc);
      if (keep) chunks.push(bytes);
    }
  } catch (error) {
    if (error instanceof ArchiveRefused) throw error;
    const message = (error as Error).message;
    if (/too many bytes|not enough bytes|expected/i.test(message)) throw sizeMismatch();
    throw new ArchiveRefused('damaged', name, `the entry ${quoted(name)} does not inflate (${message})`);
  }
  if (crc !== entry.crc32) throw new ArchiveRefused('damaged', name, `the entry ${quoted(name)} fails its CRC-32 check`);
  if (!keep) return null;
  const bytes = Buffer.concat(chunks, inflated);
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/**
 * Opens and checks the archive: every entry's name, kind and declared size, then every file under
 * the per-file limit inflated once (and dropped) so that a zip bomb or a damaged entry is found
 * before anything is imported. Throws `ArchiveRefused` on the first fault.
 */
export async function checkZip(bytes: Uint8Array, limits: ArchiveLimits): Promise<CheckedZip> {
  let zip: ZipFile;
  try {
    zip = await yauzl.fromBufferPromise(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), {
      lazyEntries: true,
      decodeStrings: false,
      validateEntrySizes: true,
      autoClose: false,
    });
  } catch (error) {
    throw new ArchiveRefused('not_a_zip', null, `the body is not a zip archive (${(error as Error).message})`);
  }
  try {
    if (zip.entryCount > limits.maxEntries) {
      throw new ArchiveRefused(
        'too_many_entries',
        null,
        `it holds ${zip.entryCount} entries, more than the ${limits.maxEntries} an import may read`,
      );
    }
    let entries: Entry[];
    try {
      entries = await entriesOf(zip);
    } catch (error) {
      throw new ArchiveRefused('not_a_zip', null, `its central directory cannot be read (${(error as Error).message})`);
    }
    const files: { file: ArchiveFile; entry: Entry }[] = [];
    let declared = 0;
    for (const entry of entries) {
      const name = yauzl.getFileNameLowLevel(entry.generalPurposeBitFlag, entry.fileNameRaw, entry.extraFields, true);
      const unsafe = unsafePath(name);
      if (unsafe !== null) throw new ArchiveRefused('unsafe_path', name, `the entry ${quoted(name)} ${unsafe}`);
      if (((entry.externalFileAttributes >>> 16) & S_IFMT) === S_IFLNK) {
        throw new ArchiveRefused('symlink', name, `the entry ${quoted(name)} is a symbolic link`);
      }
      if (entry.isEncrypted()) throw new ArchiveRefused('encrypted', name, `the entry ${quoted(name)} is encrypted`);
      if (name.endsWith('/')) continue; // a folder
      if (entry.compressionMethod !== 0 && entry.compressionMethod !== 8) {
        throw new ArchiveRefused(
          'unsupported_compression',
          name,
          `the entry ${quoted(name)} uses compression method ${entry.compressionMethod} (only stored and deflated are read)`,
        );
      }
      const ownLimit = limits.ownLimits?.get(name);
      if (ownLimit !== undefined && entry.uncompressedSize > ownLimit) {
        throw new ArchiveRefused(
          'too_large',
          name,
          `the entry ${quoted(name)} declares ${entry.uncompressedSize} bytes, more than the ${ownLimit} it may have`,
        );
      }
      const maxFileBytes = limits.maxFileBytesOf?.(name) ?? limits.maxFileBytes;
      const tooLarge = ownLimit === undefined && entry.uncompressedSize > maxFileBytes;
      if (!tooLarge) declared += entry.uncompressedSize;
      files.push({ file: { path: name, size: entry.uncompressedSize, tooLarge }, entry });
    }
    if (declared > limits.maxInflatedBytes) {
      throw new ArchiveRefused(
        'too_large',
        null,
        `its entries declare ${declared} bytes, more than the ${limits.maxInflatedBytes} an import may inflate`,
      );
    }
    // Every file inflated once, its bytes dropped, but for the paths with limits of their own.
    const kept = new Map<ArchiveFile, Uint8Array>();
    for (const { file, entry } of files) {
      if (file.tooLarge) continue;
      const bytes = await inflate(zip, entry, file.path, limits.ownLimits?.has(file.path) ?? false);
      if (bytes !== null) kept.set(file, bytes);
    }
    const byFile = new Map(files.map(({ file, entry }) => [file, entry]));
    return {
      files: files.map(({ file }) => file),
      async read(file) {
        const entry = byFile.get(file);
        if (entry === undefined || file.tooLarge) throw new Error(`not a readable file of this archive: ${file.path}`);
        const bytes = kept.get(file);
        if (bytes !== undefined) return bytes;
        return (await inflate(zip, entry, file.path, true))!;
      },
      close: () => zip.close(),
    };
  } catch (error) {
    zip.close();
    throw error;
  }
}
