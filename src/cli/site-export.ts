/**
 * `margin export`: the site's archive (`GET /export`) written to `<file>.part` as it arrives, then
 * checked from the file before it gets its name: the zip must end with its central directory (a
 * cut stream does not) and pass the manifest's check (site-files/manifest.ts): exactly the files
 * it lists, each with the listed size and SHA-256, in a MarginCMS export of a version this CLI knows. The check reads the
 * finished file rather than the stream because fflate's streaming reader finds the end of an entry
 * written with a data descriptor (as the server's are) by searching for a signature, which
 * compressed bytes may contain by chance; the central directory says where each entry ends.
 */
import { link, open, readFile, rm } from 'node:fs/promises';
import { unzipSync } from 'fflate';
import { checkExport, type CheckedExport } from '../site-files/manifest.js';

/** What the check of a downloaded export found: its size, the posts' files and the manifest's counts. */
export interface CheckedDownload extends CheckedExport {
  bytes: number;
}

/** Checks a whole downloaded export (a zip with its central directory, then its manifest); throws an Error saying what is wrong with it. */
export function checkDownload(bytes: Uint8Array): CheckedDownload {
  let entries: Record<string, Uint8Array>;
  try {
    entries = unzipSync(bytes);
  } catch {
    throw new Error('the archive is not a whole zip (its directory is missing): the export was cut short');
  }
  return { bytes: bytes.byteLength, ...checkExport(entries) };
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
): Promise<CheckedDownload> {
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
    const checked = checkDownload(await readFile(part));
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
