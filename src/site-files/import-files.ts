/**
 * The files of a checked archive as the import use case takes them: each markdown file read,
 * split and mapped to a post (or to the reason it is skipped), its fields checked against the
 * contract's `CreatePostRequest` schema, and, in a MarginCMS export, against the manifest's size
 * and SHA-256. One file is inflated at a time.
 */
import { createHash } from 'node:crypto';
import type { ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { ImportFile } from '../../../app/site-import.js';
import { EXPORT_FORMAT, EXPORT_VERSION } from '../site-export.js';
import { archiveRefused, type ArchiveFile, type CheckedArchive } from './archive.js';
import { importedPostOf, writerOf, type Source, type Writer } from './conventions.js';
import { splitFrontMatter } from './front-matter.js';
import { readManifest } from './manifest-reader.js';

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv2020) => Ajv2020;

/** The manifest of a MarginCMS export; it may be larger than a post (see `MAX_MANIFEST_BYTES`). */
const MANIFEST = 'manifest.json';
/**
 * The largest manifest an import reads. An export's manifest lists each post in at most 297 bytes
 * (pretty-printed, with a 100-character slug in the Hugo layout; 224 for a typical one), so
 * 100,000 posts take 28.3 MiB at most.
 */
export const MAX_MANIFEST_BYTES = 32 * 1024 * 1024;
/** For `checkArchive`: the manifest has a limit of its own, not the size of a post; an archive whose manifest is larger is refused. */
export const IMPORT_OWN_LIMITS: ReadonlyMap<string, number> = new Map([[MANIFEST, MAX_MANIFEST_BYTES]]);
const MARKDOWN = /\.(md|markdown)$/i;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Checks a post's text fields as `createPost` would, with the contract's own schema. */
export function postFieldsValidator(document: Record<string, unknown>): ValidateFunction {
  const ajv = new Ajv2020({ allErrors: true, strict: false, validateSchema: false });
  addFormats(ajv);
  ajv.addSchema(document, 'bundle');
  const validate = ajv.getSchema('bundle#/components/schemas/CreatePostRequest');
  if (validate === undefined) throw new Error('the bundle has no CreatePostRequest schema');
  return validate;
}

interface Listed {
  bytes: number;
  sha256: string;
}

/** What the archive's `manifest.json` says, when it is a MarginCMS export's; refused when of another version. */
async function manifestOf(archive: CheckedArchive): Promise<Map<string, Listed> | null> {
  const file = archive.files.find((f) => f.path === MANIFEST);
  if (file === undefined || file.tooLarge) return null;
  const manifest = await readManifest(
    await archive.read(file),
    archive.files.map((f) => f.path),
  );
  // Not JSON: a file of the site like any other.
  if (manifest === null || manifest.format !== EXPORT_FORMAT) return null;
  const { files } = manifest;
  if (manifest.version !== EXPORT_VERSION || files === null) {
    throw archiveRefused(
      'unsupported_manifest',
      MANIFEST,
      `its manifest is of ${EXPORT_FORMAT} version ${JSON.stringify(manifest.version)}${files === null ? ' without a list of files' : ''}; this server reads version ${EXPORT_VERSION}`,
    );
  }
  const listed = new Map<string, Listed>();
  for (let i = 0; i < files.paths.length; i++) listed.set(files.paths[i]!, { bytes: files.bytes[i]!, sha256: files.sha256[i]! });
  return listed;
}

export interface ImportSource {
  source: Source;
  files: AsyncIterable<ImportFile>;
}

/** The archive's files, the manifest aside (read and checked first, before anything else). */
export async function importFilesOf(archive: CheckedArchive, validate: ValidateFunction, maxFileBytes: number): Promise<ImportSource> {
  const listed = await manifestOf(archive);
  const source: Source = listed === null ? 'markdown' : 'margincms';
  const writer = writerOf(
    source,
    archive.files.map((file) => file.path),
  );
  async function* files(): AsyncGenerator<ImportFile> {
    for (const file of archive.files) {
      if (listed !== null && file.path === MANIFEST) continue;
      yield await importFileOf(archive, file, writer, listed, validate, maxFileBytes);
    }
  }
  return { source, files: files() };
}

async function importFileOf(
  archive: CheckedArchive,
  file: ArchiveFile,
  writer: Writer,
  listed: Map<string, Listed> | null,
  validate: ValidateFunction,
  maxFileBytes: number,
): Promise<ImportFile> {
  const { path } = file;
  const segments = path.split('/');
  const name = segments.at(-1)!;
  if (!MARKDOWN.test(name) || segments[0] === '__MACOSX' || name.startsWith('._')) {
    return { path, skip: { reason: 'not_a_post', detail: 'Not a markdown file (.md or .markdown).' } };
  }
  if (/^_index\.(md|markdown)$/i.test(name)) {
    return { path, skip: { reason: 'not_a_post', detail: 'A section page (_index.md), not a post.' } };
  }
  if (file.tooLarge) {
    return { path, skip: { reason: 'too_large', detail: `The file is ${file.size} bytes, more than the ${maxFileBytes} a post may be.` } };
  }
  const bytes = await archive.read(file);
  if (listed !== null) {
    const expected = listed.get(path);
    if (expected === undefined) return { path, skip: { reason: 'checksum_mismatch', detail: 'The file is not listed in the manifest.' } };
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    if (expected.bytes !== bytes.byteLength || expected.sha256 !== sha256) {
      return {
        path,
        skip: {
          reason: 'checksum_mismatch',
          detail: `The file is ${bytes.byteLength} bytes with SHA-256 ${sha256}; the manifest lists ${expected.bytes} bytes with ${expected.sha256}.`,
        },
      };
    }
  }
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return { path, skip: { reason: 'invalid_front_matter', detail: 'The file is not UTF-8 text.' } };
  }
  const split = splitFrontMatter(text);
  if ('error' in split) return { path, skip: { reason: 'invalid_front_matter', detail: `${capitalised(split.error)}.` } };
  const outcome = importedPostOf(path, split.data, split.body, writer);
  if ('skip' in outcome) return { path, skip: outcome.skip };
  const { post } = outcome;
  if (!validate({ title: post.title, slug: post.slug, excerpt: post.excerpt, body: post.body, tags: post.tags })) {
    const detail = (validate.errors ?? []).map((error) => `${error.instancePath || '/'}: ${error.message ?? 'is invalid'}`).join('; ');
    return { path, skip: { reason: 'invalid_post', detail, slug: post.slug } };
  }
  return { path, post };
}

const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
