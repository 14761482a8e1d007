/**
 * The manifest of a MarginCMS export: the archive's last file, listing every post's file, and every
 * image written beside the posts (`kind: "image"`, with the id of the first post that shows it), with
 * its size and SHA-256. Images came after version 1 and left it as it was: a reader of version 1
 * that knows no `kind` checks an image like any file, and an export without images is unchanged. The server writes it (export-archive.ts) and reads it back on an import
 * (import-files.ts), the CLI checks a downloaded export against it, and scripts write examples
 * with it. It imports nothing of src/, so the CLI may use it without the server's code.
 */
import { createHash } from 'node:crypto';

/** Where the manifest is in an export. */
export const MANIFEST_PATH = 'manifest.json';
/** The manifest's `format` and `version`: what an import checks before it reads anything else. */
export const EXPORT_FORMAT = 'margincms-export';
export const EXPORT_VERSION = 1;
/**
 * The largest manifest an import reads. An export's manifest lists each post in at most 297 bytes
 * (pretty-printed, with a 100-character slug in the Hugo layout; 224 for a typical one), so
 * 100,000 posts take 28.3 MiB at most.
 */
export const MAX_MANIFEST_BYTES = 32 * 1024 * 1024;
/**
 * The most JSON tokens (`{`, `[`, `,` and `:` outside strings: about one per value and one per
 * key) a manifest may have, whatever the archive limits: a manifest of MAX_MANIFEST_BYTES lists at
 * most some 190,000 files (an entry takes at least 170 bytes), 2.1 million tokens. Parsing costs at
 * most about 70 bytes of heap a token (bench/NOTES.md), so with its text this stays far under the
 * reading worker's heap, whose exhaustion would abort the whole process (nodejs/node#47224).
 */
export const MAX_MANIFEST_TOKENS = 2_500_000;
/** The deepest a manifest may nest (an export's nests 3 deep: the manifest, `files`, an entry). */
export const MAX_MANIFEST_DEPTH = 8;
/** A manifest's bytes and tokens besides its entries (the head: format, version, filters, counts). */
const MANIFEST_HEAD = { bytes: 4096, tokens: 64 };
/**
 * An entry's most bytes and tokens, pretty-printed as an export writes it: a post's in the Hugo
 * layout with a 100-character slug in a bundle takes 303 bytes, an image of 1 GiB beside it 390; 11 tokens (`{`,
 * five keys and the commas).
 */
const MANIFEST_ENTRY = { bytes: 400, tokens: 11 };

/**
 * What a manifest may be for an archive of at most `maxEntries` entries, each of which it may
 * list: checked before it is parsed, so that what it costs follows from the archive limits.
 */
export function manifestLimits(maxEntries: number): { bytes: number; tokens: number } {
  return {
    bytes: Math.min(MAX_MANIFEST_BYTES, MANIFEST_HEAD.bytes + maxEntries * MANIFEST_ENTRY.bytes),
    tokens: Math.min(MAX_MANIFEST_TOKENS, MANIFEST_HEAD.tokens + maxEntries * MANIFEST_ENTRY.tokens),
  };
}

export type ExportLayout = 'flat' | 'hugo';

/** A post's status as the manifest counts it (the exporter, which counts the domain's, holds them alike). */
type ExportedStatus = 'draft' | 'published' | 'archived';

/** What the manifest says of a file: its size and SHA-256 (lowercase hex). */
export interface FileDigest {
  bytes: number;
  sha256: string;
}

interface ManifestFile extends FileDigest {
  path: string;
  /** The post's id; for an image, the id of the first post that shows it. */
  id: string;
  /** Present on images only (a post's entry has no `kind`). */
  kind?: 'image';
}

export interface Manifest {
  format: typeof EXPORT_FORMAT;
  version: typeof EXPORT_VERSION;
  exportedAt: string;
  layout: ExportLayout;
  filters: { status: ExportedStatus[] | null; tag: string | null };
  counts: { posts: number } & Record<ExportedStatus, number>;
  files: ManifestFile[];
}

export function digestOf(bytes: Uint8Array): FileDigest {
  return { bytes: bytes.byteLength, sha256: createHash('sha256').update(bytes).digest('hex') };
}

export const sameDigest = (a: FileDigest, b: FileDigest) => a.bytes === b.bytes && a.sha256 === b.sha256;

/** The manifest as its file holds it: pretty-printed JSON and a newline. */
export function manifestText(manifest: Manifest): string {
  return `${JSON.stringify(manifest, null, 2)}\n`;
}

/**
 * What a manifest's head says: `current`, a MarginCMS manifest of this version with a list of
 * files; `unsupported`, a MarginCMS manifest of another version or without its list; `foreign`,
 * not a MarginCMS manifest at all (to an import, a file of the site like any other).
 */
export function manifestKind(head: { format: unknown; version: unknown; hasFiles: boolean }): 'current' | 'unsupported' | 'foreign' {
  if (head.format !== EXPORT_FORMAT) return 'foreign';
  return head.version === EXPORT_VERSION && head.hasFiles ? 'current' : 'unsupported';
}

/** What the check of a whole export found: the posts' files (the images aside), the images, and the manifest's counts. */
export interface CheckedExport {
  files: (FileDigest & { path: string })[];
  images: number;
  counts: Record<string, number>;
}

/**
 * Checks the files of a whole export against its manifest: a manifest of this version, listing
 * each file once, exactly the files the archive holds, each with its size and SHA-256. Throws an
 * Error saying what is wrong.
 */
export function checkExport(entries: Readonly<Record<string, Uint8Array>>): CheckedExport {
  const manifestBytes = entries[MANIFEST_PATH];
  if (manifestBytes === undefined) throw new Error(`the archive has no ${MANIFEST_PATH}`);
  let manifest: { format?: unknown; version?: unknown; counts?: unknown; files?: unknown };
  try {
    manifest = JSON.parse(Buffer.from(manifestBytes).toString('utf8')) as typeof manifest;
  } catch {
    throw new Error('the manifest is not JSON');
  }
  if (manifestKind({ format: manifest.format, version: manifest.version, hasFiles: Array.isArray(manifest.files) }) !== 'current') {
    throw new Error(`the manifest is not a ${EXPORT_FORMAT} version ${EXPORT_VERSION} manifest`);
  }
  const files = Object.entries(entries)
    .filter(([path]) => path !== MANIFEST_PATH)
    .map(([path, data]) => ({ path, ...digestOf(data) }));
  const listed = manifest.files as Partial<ManifestFile>[];
  const listedPaths = new Set(listed.map((entry) => entry.path));
  if (listedPaths.size !== listed.length) throw new Error('the manifest lists a file twice');
  const seen = new Map(files.map((file) => [file.path, file]));
  for (const path of seen.keys()) {
    if (!listedPaths.has(path)) throw new Error(`${path} is in the archive but not in the manifest`);
  }
  for (const entry of listed) {
    const file = seen.get(String(entry.path));
    if (!file) throw new Error(`${String(entry.path)} is in the manifest but not in the archive`);
    if (!sameDigest(file, entry as FileDigest)) throw new Error(`${file.path} does not match the manifest (size or SHA-256)`);
  }
  const counts = typeof manifest.counts === 'object' && manifest.counts !== null ? (manifest.counts as Record<string, number>) : {};
  const images = new Set(listed.filter((entry) => entry.kind === 'image').map((entry) => entry.path));
  return { files: files.filter((file) => !images.has(file.path)), images: images.size, counts };
}
