/**
 * `margin export`: the site's archive (`GET /export`) written to `<file>.part` as it arrives, then
 * checked from the file before it gets its name: the zip must end with its central directory (a
 * cut stream does not), hold exactly the files its `manifest.json` lists, each with the listed
 * size and SHA-256, and be a MarginCMS export of a version this CLI knows. The check reads the
 * finished file rather than the stream because fflate's streaming reader finds the end of an entry
 * written with a data descriptor (as the server's are) by searching for a signature, which
 * compressed bytes may contain by chance; the central directory says where each entry ends.
 */
import { createHash } from 'node:crypto';
import { link, open, readFile, rm } from 'node:fs/promises';
import { unzipSync } from 'fflate';

const FORMAT = 'margincms-export';
const VERSION = 1;

interface ArchiveFileSeen {
  path: string;
  bytes: number;
  sha256: string;
}

/** What the check found: the posts' files and the manifest's counts. */
export interface CheckedArchive {
  bytes: number;
  files: ArchiveFileSeen[];
  counts: Record<string, number>;
}

interface ManifestShape {
  format?: unknown;
  version?: unknown;
  counts?: unknown;
  files?: unknown;
}

/** Checks a whole archive; throws an Error saying what is wrong with it. */
export function checkArchive(bytes: Uint8Array): CheckedArchive {
  let entries: Record<string, Uint8Array>;
  try {
    entries = unzipSync(bytes);
  } catch {
    throw new Error('the archive is not a whole zip (its directory is missing): the export was cut short');
  }
  const manifestBytes = entries['manifest.json'];
  if (manifestBytes === undefined) throw new Error('the archive has no manifest.json');
  let manifest: ManifestShape;
  try {
    manifest = JSON.parse(Buffer.from(manifestBytes).toString('utf8')) as ManifestShape;
  } catch {
    throw new Error('the manifest is not JSON');
  }
  if (manifest.format !== FORMAT || manifest.version !== VERSION) {
    throw new Error(`the manifest is not a ${FORMAT} version ${VERSION} manifest`);
  }
  const files: ArchiveFileSeen[] = Object.entries(entries)
    .filter(([path]) => path !== 'manifest.json')
    .map(([path, data]) => ({ path, bytes: data.byteLength, sha256: createHash('sha256').update(data).digest('hex') }));
  const listed = Array.isArray(manifest.files) ? (manifest.files as Partial<ArchiveFileSeen>[]) : [];
  const listedPaths = new Set(listed.map((entry) => entry.path));
  if (listedPaths.size !== listed.length) throw new Error('the manifest lists a file twice');
  const seen = new Map(files.map((file) => [file.path, file]));
  for (const path of seen.keys()) {
    if (!listedPaths.has(path)) throw new Error(`${path} is in the archive but not in the manifest`);
  }
  for (const entry of listed) {
    const file = seen.get(String(entry.path));
    if (!file) throw new Error(`${String(entry.path)} is in the manifest but not in the archive`);
    if (file.bytes !== entry.bytes || file.sha256 !== entry.sha256) {
      throw new Error(`${file.path} does not match the manifest (size or SHA-256)`);
    }
  }
  const counts = typeof manifest.counts === 'object' && manifest.counts !== null ? (manifest.counts as Record<string, number>) : {};
  return { bytes: bytes.byteLength, files, counts };
}

/**
 * Writes `stream` to `<path>.part` (opened exclusively: another export's `.part` is left alone),
 * telling `onProgress` the bytes so far; checks the file; then links it to `path`, which fails
 * rather than replace a file that appeared meanwhile. On any failure the stream is cancelled and
 * nothing is kept.
 */
export async function saveCheckedArchive(
  stream: ReadableStream<Uint8Array>,
  path: string,
  onProgress: (bytes: number) => void,
): Promise<CheckedArchive> {
  const part = `${path}.part`;
  let file;
  try {
    file = await open(part, 'wx', 0o644);
  } catch (error) {
    await stream.cancel().catch(() => undefined);
    throw error;
  }
  let written = 0;
  try {
    const reader = stream.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      await file.write(value);
      written += value.byteLength;
      onProgress(written);
    }
    await file.sync();
    await file.close();
    const checked = checkArchive(await readFile(part));
    await link(part, path);
    await rm(part);
    return checked;
  } catch (error) {
    await file.close().catch(() => undefined);
    await stream.cancel().catch(() => undefined);
    await rm(part, { force: true });
    throw error;
  }
}
