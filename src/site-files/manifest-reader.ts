/**
 * A MarginCMS export's manifest read off the event loop. A large export's manifest comes near its
 * 32 MiB limit, and `JSON.parse` of that holds a thread for a long while (bench/NOTES.md): on the
 * server's thread that would stall every request. The bytes are parsed in a worker thread
 * of their own, which answers the manifest's few fields and the entries of the files the archive
 * holds (an import looks up no other), in three flat arrays, and is gone after one manifest: the
 * server's thread never sees more entries than the archive has files.
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

/** A parse that needs more than this (a manifest of 16 million numbers, say) fails as unreadable. */
const WORKER_HEAP_MB = 512;

// CommonJS, evaluated by the worker: no file to find in the build or beside the sources.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
let reply = null;
try {
  const wanted = new Set(workerData.paths);
  const manifest = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(workerData.bytes));
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
} catch {
  reply = null;
}
parentPort.postMessage(reply);
`;

/**
 * The manifest's fields with the entries of `paths`, or null when the bytes are not a JSON object
 * (not UTF-8, not JSON, an array, too large to parse within the worker's heap): then it is a file
 * of the site like any other.
 */
export function readManifest(bytes: Uint8Array, paths: readonly string[]): Promise<ManifestFields | null> {
  return new Promise((resolve) => {
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { bytes, paths },
      resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
    });
    let settled = false;
    const settle = (fields: ManifestFields | null) => {
      if (settled) return;
      settled = true;
      resolve(fields);
      void worker.terminate();
    };
    worker.once('message', (fields: ManifestFields | null) => settle(fields));
    worker.once('error', () => settle(null));
    worker.once('exit', () => settle(null));
  });
}
