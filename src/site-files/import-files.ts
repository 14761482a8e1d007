/**
 * The files of a checked archive as the import use case takes them: each markdown file read,
 * split and mapped to a post (or to the reason it is skipped), its fields checked as `createPost`
 * would (by the check the caller passes: the contract's schema) and, in a MarginCMS export, against
 * the manifest's size and SHA-256: a file that is not what the manifest lists (edited by hand, or
 * added) is read by its own front matter, with a note saying so. One file is inflated at a time.
 */
import type { ImportFile } from '../app/site-import.js';
import type { ArchiveImage, PostImages } from '../app/site-import-images.js';
import { importedPostOf, isMarginCmsFile, writerOf, type Source, type Writer } from './conventions.js';
import { splitFrontMatter } from './front-matter.js';
import { archivePathOf, coverOf, IMAGE_FILE, imageLinksOf, rewriteImageLinks } from './images.js';
import {
  digestOf,
  EXPORT_FORMAT,
  EXPORT_VERSION,
  MANIFEST_PATH,
  manifestKind,
  manifestLimits,
  MAX_MANIFEST_DEPTH,
  sameDigest,
  type FileDigest,
} from './manifest.js';
import { readManifest } from './manifest-reader.js';
import { ArchiveRefused, type ArchiveFile, type CheckedZip } from './zip.js';

/**
 * For `checkZip` of an archive of at most `maxEntries` entries: the manifest has a limit of its
 * own, not the size of a post (manifestLimits); an archive whose manifest is larger is refused.
 */
export function importOwnLimits(maxEntries: number): ReadonlyMap<string, number> {
  return new Map([[MANIFEST_PATH, manifestLimits(maxEntries).bytes]]);
}

/** What an import reads of each file: a markdown file up to `maxFileBytes`, an image up to `maxImageBytes`. */
export interface FileLimits {
  /** The largest markdown file (that of a request body). */
  maxFileBytes: number;
  /** The largest image (that of a media upload: an image the library would refuse is not read). */
  maxImageBytes: number;
}

/** For `checkZip`: the per-file limit of each path, an image's its own (`FileLimits`). */
export function importFileLimitOf({ maxFileBytes, maxImageBytes }: FileLimits): (path: string) => number {
  return (path) => (IMAGE_FILE.test(path) ? maxImageBytes : maxFileBytes);
}

const MARKDOWN = /\.(md|markdown)$/i;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The fields of a post that `createPost` would check, as an imported file gives them. */
interface PostFields {
  title: string;
  slug: string;
  excerpt: string;
  body: string;
  tags: string[];
}

/** Checks a post's fields as `createPost` would: null when they pass, else what is wrong with them. */
export type PostFieldsCheck = (fields: PostFields) => string | null;

/**
 * What the archive's manifest says, when it is a MarginCMS export's; refused when of another
 * version, or over the tokens or depth a manifest of an archive of `maxEntries` may have.
 */
async function manifestOf(archive: CheckedZip, maxEntries: number): Promise<Map<string, FileDigest> | null> {
  const file = archive.files.find((f) => f.path === MANIFEST_PATH);
  if (file === undefined || file.tooLarge) return null;
  const maxTokens = manifestLimits(maxEntries).tokens;
  const manifest = await readManifest(
    await archive.read(file),
    archive.files.map((f) => f.path),
    { maxTokens, maxDepth: MAX_MANIFEST_DEPTH },
  );
  // Not JSON, or not a MarginCMS manifest: a file of the site like any other.
  if (manifest === null) return null;
  if ('over' in manifest) {
    throw new ArchiveRefused(
      'too_large',
      MANIFEST_PATH,
      manifest.over === 'depth'
        ? `its manifest nests more than ${MAX_MANIFEST_DEPTH} deep`
        : `its manifest has more than the ${maxTokens} JSON tokens ({ [ , : outside strings) a manifest of at most ${maxEntries} entries may have`,
    );
  }
  const { files } = manifest;
  const kind = manifestKind({ format: manifest.format, version: manifest.version, hasFiles: files !== null });
  if (kind === 'foreign') return null;
  if (kind === 'unsupported' || files === null) {
    throw new ArchiveRefused(
      'unsupported_manifest',
      MANIFEST_PATH,
      `its manifest is of ${EXPORT_FORMAT} version ${JSON.stringify(manifest.version)}${files === null ? ' without a list of files' : ''}; this server reads version ${EXPORT_VERSION}`,
    );
  }
  const listed = new Map<string, FileDigest>();
  for (let i = 0; i < files.paths.length; i++) listed.set(files.paths[i]!, { bytes: files.bytes[i]!, sha256: files.sha256[i]! });
  return listed;
}

export interface ImportSource {
  source: Source;
  files: AsyncIterable<ImportFile>;
}

/**
 * The archive's files, the manifest aside (read and checked first, before anything else), for an
 * archive checked with `limits` (the most entries it may hold, the largest file it may hold).
 */
export async function importFilesOf(
  archive: CheckedZip,
  checkFields: PostFieldsCheck,
  { maxFileBytes, maxImageBytes, maxEntries }: FileLimits & { maxEntries: number },
): Promise<ImportSource> {
  const listed = await manifestOf(archive, maxEntries);
  const source: Source = listed === null ? 'markdown' : 'margincms';
  const writer = writerOf(
    source,
    archive.files.map((file) => file.path),
  );
  const images = imagesOf(archive, listed, maxImageBytes);
  async function* files(): AsyncGenerator<ImportFile> {
    for (const file of archive.files) {
      if (listed !== null && file.path === MANIFEST_PATH) continue;
      const image = images.get(file.path);
      if (image !== undefined) yield { path: file.path, image };
      else yield await importFileOf(archive, file, writer, listed, checkFields, maxFileBytes, images);
    }
  }
  return { source, files: files() };
}

/**
 * The archive's image files, by path, each read when a post shows it (at most once): one over the
 * per-file limit is not inflated; in a MarginCMS export one that is not what the manifest lists
 * is read as it is, with a note saying so.
 */
function imagesOf(archive: CheckedZip, listed: Map<string, FileDigest> | null, maxImageBytes: number): Map<string, ArchiveImage> {
  const images = new Map<string, ArchiveImage>();
  for (const file of archive.files) {
    const segments = file.path.split('/');
    if (!IMAGE_FILE.test(file.path) || segments[0] === '__MACOSX' || segments.at(-1)!.startsWith('._')) continue;
    images.set(file.path, {
      path: file.path,
      async read() {
        if (file.tooLarge) {
          const detail = `The image is ${file.size} bytes, more than the ${maxImageBytes} an image may be (MEDIA_MAX_BYTES).`;
          return { skip: { reason: 'too_large', detail } };
        }
        const bytes = await archive.read(file);
        const note = listed === null ? null : unlisted('image', listed.get(file.path), bytes, 'stored as it is');
        return note === null ? { bytes } : { bytes, note };
      },
    });
  }
  return images;
}

/** The images a post shows that are files of the archive (links to anything else are left as written). */
function postImagesOf(
  path: string,
  data: Record<string, unknown>,
  body: string,
  images: Map<string, ArchiveImage>,
): PostImages | undefined {
  const has = (candidate: string) => images.has(candidate);
  const links = imageLinksOf(body).flatMap((link) => {
    const found = archivePathOf(path, link.target, has);
    return found === null ? [] : [{ link, image: images.get(found)! }];
  });
  const named = coverOf(data);
  const coverPath = named === null ? null : archivePathOf(path, named.target, has);
  if (links.length === 0 && coverPath === null) return undefined;
  const first = new Map<string, { image: ArchiveImage; alt: string }>();
  for (const { link, image } of links) if (!first.has(image.path)) first.set(image.path, { image, alt: link.alt });
  const byLink = new Map(links.map(({ link, image }) => [link, image.path]));
  return {
    links: [...first.values()],
    cover: coverPath === null ? null : { image: images.get(coverPath)!, alt: named!.alt },
    bodyWith: (urls) =>
      rewriteImageLinks(
        body,
        links.map(({ link }) => link),
        (link) => urls.get(byLink.get(link)!) ?? null,
      ),
  };
}

async function importFileOf(
  archive: CheckedZip,
  file: ArchiveFile,
  writer: Writer,
  listed: Map<string, FileDigest> | null,
  checkFields: PostFieldsCheck,
  maxFileBytes: number,
  images: Map<string, ArchiveImage>,
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
  const note = listed === null ? null : unlisted('file', listed.get(path), bytes, 'read by its own front matter');
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return { path, skip: { reason: 'invalid_front_matter', detail: 'The file is not UTF-8 text.' } };
  }
  const split = splitFrontMatter(text);
  if ('error' in split) return { path, skip: { reason: 'invalid_front_matter', detail: `${capitalised(split.error)}.` } };
  // A file of an export that is not what its manifest lists is read as any file would be: by its own front matter.
  const own = note === null ? writer : isMarginCmsFile(split.data) ? 'margincms' : 'markdown';
  const outcome = importedPostOf(path, split.data, split.body, own);
  if ('skip' in outcome) return { path, skip: outcome.skip };
  const { post } = outcome;
  const invalid = checkFields({ title: post.title, slug: post.slug, excerpt: post.excerpt, body: post.body, tags: post.tags });
  if (invalid !== null) return { path, skip: { reason: 'invalid_post', detail: invalid, slug: post.slug } };
  const shown = postImagesOf(path, split.data, split.body, images);
  // A MarginCMS export states a post whole: without a cover of its own, the post has none.
  const stated = own === 'margincms' && coverOf(split.data) === null ? { ...post, coverImage: null } : post;
  return { path, post: stated, ...(shown === undefined ? {} : { images: shown }), ...(note === null ? {} : { note }) };
}

/**
 * The note on a file of a MarginCMS export that is not what its manifest lists (`expected`, or
 * not listed at all), saying how it is read instead; null for one that is.
 */
function unlisted(what: 'file' | 'image', expected: FileDigest | undefined, bytes: Uint8Array, read: string): string | null {
  const The = what === 'file' ? 'The file' : 'The image';
  if (expected === undefined) return `${The} is not listed in the manifest: ${read}.`;
  const actual = digestOf(bytes);
  if (sameDigest(actual, expected)) return null;
  return `${The} is not what the manifest lists (${actual.bytes} bytes with SHA-256 ${actual.sha256}; the manifest lists ${expected.bytes} bytes with ${expected.sha256}): ${read}.`;
}

const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
