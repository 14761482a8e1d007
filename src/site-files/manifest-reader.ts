/**
 * A MarginCMS export's manifest read off the event loop. A large export's manifest comes near its
 * 32 MiB limit, and `JSON.parse` of that holds a thread for a long while (bench/NOTES.md): on the
 * server's thread that would stall every request. The bytes are parsed in a worker thread
 * of their own, which answers the manifest's few fields and the entries of the files the archive
 * holds (an import looks up no other), in three flat arrays, and is gone after one manifest: the
 * server's thread never sees more entries than the archive has files.
 *
 * A worker that runs out of heap aborts the whole process, not only itself (nodejs/node#47224):
 * 32 MiB of `{},` parse to some 600 MB. So the worker first counts the manifest's tokens and its
 * depth in one pass over the bytes (`{`, `[`, `,` and `:` outside strings, nothing allocated) and
 * parses only a manifest within the bounds it is given, which keep the parse's heap far below the
 * worker's limit (manifest.ts: MAX_MANIFEST_TOKENS).
 */
import { Worker } from 'node:worker_threads';

/** What a manifest says, as far as the import reads it. */
export interface ManifestFields {
  format: unknown;
  version: unknown;
  /**
   * The entries of `files` for the paths asked for that have a string path, a number of bytes
   * and a string SHA-256; null when `files` is no array.
   */
  files: { paths: string[]; bytes: number[]; sha256: string[] } | null;
}

/** What a manifest over its bounds is over: checked before it is parsed, so never parsed. */
export interface ManifestOver {
  over: 'tokens' | 'depth';
}

/**
 * The worker's heap. Not a guard (reaching it aborts the process): the bounds checked before the
 * parse keep a manifest's parse under half of it.
 */
const WORKER_HEAP_MB = 512;

// CommonJS, evaluated by the worker: no file to find in the build or beside the sources.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { bytes, maxTokens, maxDepth } = workerData;
// Tokens and depth counted on the bytes (UTF-8 keeps every byte of a multi-byte character over 0x7f).
function over() {
  let tokens = 0, depth = 0, inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i];
    if (inString) {
      if (c === 0x5c) i++; // the escaped character, whatever it is
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > maxDepth) return 'depth';
      if (++tokens > maxTokens) return 'tokens';
    } else if (c === 0x7d || c === 0x5d) depth--;
    else if ((c === 0x2c || c === 0x3a) && ++tokens > maxTokens) return 'tokens';
  }
  return null;
}
let reply = null;
try {
  const wanted = new Set(workerData.paths);
  const exceeded = over();
  if (exceeded !== null) throw { over: exceeded };
  const manifest = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  if (typeof manifest === 'object' && manifest !== null && !Array.isArray(manifest)) {
    let files = null;
    if (Array.isArray(manifest.files)) {
      files = { paths: [], bytes: [], sha256: [] };
      for (const entry of manifest.files) {
        if (entry !== null && typeof entry === 'object' && typeof entry.path === 'string' && wanted.has(entry.path) &&
            typeof entry.bytes === 'number' && typeof entry.sha256 === 'string') {
          files.paths.push(entry.path);
          files.bytes.push(entry.bytes);
          files.sha256.push(entry.sha256);
        }
      }
    }
    reply = { format: manifest.format, version: manifest.version, files };
  }
} catch (error) {
  reply = error !== null && typeof error === 'object' && 'over' in error ? error : null;
}
parentPort.postMessage(reply);
`;

/**
 * The manifest's fields with the entries of `paths`; what it is over when it has more tokens, or
 * nests deeper, than `limits` allow (then it is not parsed); or null when the bytes are not a JSON
 * object (not UTF-8, not JSON, an array): then it is a file of the site like any other.
 */
export function readManifest(
  bytes: Uint8Array,
  paths: readonly string[],
  limits: { maxTokens: number; maxDepth: number },
): Promise<ManifestFields | ManifestOver | null> {
  return new Promise((resolve) => {
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { bytes, paths, ...limits },
      resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
    });
    let settled = false;
    const settle = (fields: ManifestFields | ManifestOver | null) => {
      if (settled) return;
      settled = true;
      resolve(fields);
      void worker.terminate();
    };
    worker.once('message', (fields: ManifestFields | ManifestOver | null) => settle(fields));
    worker.once('error', () => settle(null));
    worker.once('exit', () => settle(null));
  });
}
