import {
  MEDIA_ALT_MAX,
  MEDIA_CAPTION_MAX,
  MediaInUseError,
  mediaBlobKey,
  NotFoundError,
  originalName,
  unstorableTextIssues,
  ValidationError,
  variantName,
  type BlobStore,
  type Clock,
  type IdGenerator,
  type ImageFile,
  type ImageProcessor,
  type Media,
  type MediaChanges,
  type MediaFile,
  type MediaRepository,
  type MediaUse,
  type UploadBytes,
  type ValidationIssue,
} from '../domain/index.js';
import type { MediaFileCache } from './media-file-cache.js';

/** What the media use cases work with: the records, the bytes, the image reader, ids and time. */
export interface MediaDeps {
  media: MediaRepository;
  blobs: BlobStore;
  images: ImageProcessor;
  /** Media ids: unguessable, neither sequential nor time-ordered (see `Media.id`). */
  ids: IdGenerator;
  clock: Clock;
  /** The bytes of files last served (none: every read goes to `blobs`). */
  files?: MediaFileCache;
}

/** The texts an upload or an edit may set. */
export interface MediaText {
  alt?: string;
  caption?: string;
}

/** How many of the posts still showing a media a refused delete names. */
const MEDIA_USES_NAMED = 20;

/** The most posts a forced delete takes a media off as their cover (far more than a blog's). */
const MEDIA_USES_FORCED = 10_000;

/** A media id as `Media.id` describes it; anything else names no media. */
const MEDIA_ID = /^[a-z2-7]{26}$/;
/** A file name as `MediaFile.name` describes it. */
const FILE_NAME = /^[a-z0-9.]{1,40}$/;

/**
 * Stores an upload (its bytes, or bytes staged as they arrived: read only when decoded), or finds
 * it stored already. An upload whose bytes are those of a media's
 * upload or of its served original is that media (`created: false`, its alt and caption kept),
 * found before anything is decoded. Otherwise the processor reads it (the type from the bytes,
 * the byte and pixel limits, metadata removed, the variants made), its files are written to the
 * blob store, then its record; when another process stored the same image meanwhile, that one is
 * answered and the files written here are deleted.
 * @throws ValidationError at `/alt` or `/caption` (too long, or text that cannot be stored)
 * @throws MediaRefusedError from the processor
 */
export async function uploadMedia(deps: MediaDeps, upload: UploadBytes, text: MediaText = {}): Promise<{ media: Media; created: boolean }> {
  checkText(text);
  // A staged upload was hashed as it arrived: found without reading it back.
  const known = await deps.media.findByHash(upload instanceof Uint8Array ? await sha256Of(upload) : upload.sha256);
  if (known !== null) return { media: known, created: false };
  const processed = await deps.images.process(upload);
  const original = await fileOf(processed.original, originalName(processed.original.contentType));
  const sameOriginal = await deps.media.findByHash(original.file.sha256);
  if (sameOriginal !== null) return { media: sameOriginal, created: false };
  const variants = await Promise.all(
    [...processed.variants]
      .sort((a, b) => a.width - b.width || a.contentType.localeCompare(b.contentType))
      .map((variant) => fileOf(variant, variantName(variant.width, variant.contentType))),
  );
  const id = deps.ids.next();
  const files = [original, ...variants];
  const keys = files.map(({ file }) => mediaBlobKey(id, file));
  await writeAll(deps.blobs, files, keys);
  const media: Media = {
    id,
    contentType: original.file.contentType,
    width: original.file.width,
    height: original.file.height,
    bytes: original.file.bytes,
    sha256: original.file.sha256,
    sourceSha256: processed.sourceSha256,
    alt: text.alt ?? '',
    caption: text.caption ?? '',
    createdAt: deps.clock.now(),
    files: files.map(({ file }) => file),
  };
  let stored: { media: Media; created: boolean };
  try {
    stored = await deps.media.create(media);
  } catch (error) {
    await deleteQuietly(deps.blobs, keys);
    throw error;
  }
  // Lost a race to an identical upload: its files are the ones served, ours are spare.
  if (!stored.created) await deleteQuietly(deps.blobs, keys);
  return stored;
}

/** @throws NotFoundError when no media has this id */
export async function getMedia(deps: Pick<MediaDeps, 'media'>, id: string): Promise<Media> {
  const media = MEDIA_ID.test(id) ? await deps.media.get(id) : null;
  if (media === null) throw new NotFoundError('media', id);
  return media;
}

/**
 * The library, newest first, in cursor pages.
 * @throws InvalidCursorError for a cursor the repository did not write
 */
export function listMedia(
  deps: Pick<MediaDeps, 'media'>,
  query: { limit: number; cursor?: string | null },
): Promise<{ items: Media[]; nextCursor: string | null }> {
  return deps.media.list(query);
}

/**
 * Changes the alt text and caption (absent ones are kept).
 * @throws ValidationError at `/alt` or `/caption`
 * @throws NotFoundError when no media has this id
 */
export async function updateMedia(deps: Pick<MediaDeps, 'media'>, id: string, changes: MediaText): Promise<Media> {
  checkText(changes);
  const edit: MediaChanges = {
    ...(changes.alt === undefined ? {} : { alt: changes.alt }),
    ...(changes.caption === undefined ? {} : { caption: changes.caption }),
  };
  const media = MEDIA_ID.test(id) ? await deps.media.update(id, edit) : null;
  if (media === null) throw new NotFoundError('media', id);
  return media;
}

/**
 * Deletes a media: its record, then its files (so that no record ever names missing bytes). A
 * media that posts still show (as their cover, or linked in their body) is kept unless `force`;
 * then `dropCover` is called with each of those posts first (it takes the media off as the cover).
 * @throws MediaInUseError naming up to `MEDIA_USES_NAMED` of those posts
 * @throws NotFoundError when no media has this id
 */
export async function deleteMedia(
  deps: Pick<MediaDeps, 'media' | 'blobs' | 'files'>,
  id: string,
  options: { force?: boolean; dropCover?: (postId: string) => Promise<void> } = {},
): Promise<void> {
  const media = await getMedia(deps, id);
  if (options.force !== true) {
    const uses: MediaUse[] = await deps.media.uses(id, MEDIA_USES_NAMED);
    if (uses.length > 0) throw new MediaInUseError(id, uses);
  } else if (options.dropCover) {
    // A forced delete takes the media off the posts it is the cover of, each as an edit of its
    // own; links in bodies are the author's text and stay (they render as a plain image).
    for (const use of await deps.media.uses(id, MEDIA_USES_FORCED)) await options.dropCover(use.postId);
  }
  if (!(await deps.media.delete(id))) throw new NotFoundError('media', id);
  deps.files?.forgetMedia(id);
  await deps.blobs.delete(media.files.map((file) => mediaBlobKey(id, file)));
}

/**
 * One file of a media, with its bytes. `notModified` is asked first with the file's record: when
 * it says yes (the client's copy is current), the bytes are not read and answered null.
 * @throws NotFoundError for an unknown media, or a name none of its files has
 */
export async function readMediaFile(
  deps: Pick<MediaDeps, 'media' | 'blobs' | 'files'>,
  id: string,
  name: string,
  options: { notModified?: (file: MediaFile) => boolean } = {},
): Promise<{ file: MediaFile; bytes: Uint8Array | null }> {
  const missing = () => new NotFoundError('media', `${id}/${name}`);
  if (!MEDIA_ID.test(id) || !FILE_NAME.test(name)) throw missing();
  const key = mediaBlobKey(id, { name });
  const { notModified } = options;
  const cached = deps.files?.get(key);
  // The sole process of its store forgets a media it deletes: its cached files are current.
  if (cached !== undefined && deps.files?.soleProcess === true) {
    return notModified?.(cached.file) === true ? { file: cached.file, bytes: null } : cached;
  }
  // Otherwise the record is read every time, cached bytes or not: it says whether the media
  // still exists. Without a condition to check first, the record and the bytes are read together.
  const early = notModified === undefined && cached === undefined ? deps.blobs.get(key) : null;
  const [media, blob0] = await Promise.all([deps.media.get(id), early]);
  const file = media?.files.find((candidate) => candidate.name === name);
  if (file === undefined) throw missing();
  if (notModified?.(file) === true) return { file, bytes: null };
  if (cached !== undefined) return { file, bytes: cached.bytes };
  const blob = blob0 ?? (await deps.blobs.get(key));
  if (blob === null) throw missing();
  deps.files?.set(key, { file, bytes: blob.bytes });
  return { file, bytes: blob.bytes };
}

function checkText(text: MediaText): void {
  const issues: ValidationIssue[] = unstorableTextIssues({ alt: text.alt, caption: text.caption });
  if (text.alt !== undefined && text.alt.length > MEDIA_ALT_MAX) {
    issues.push({ pointer: '/alt', message: `must be at most ${MEDIA_ALT_MAX} characters` });
  }
  if (text.caption !== undefined && text.caption.length > MEDIA_CAPTION_MAX) {
    issues.push({ pointer: '/caption', message: `must be at most ${MEDIA_CAPTION_MAX} characters` });
  }
  if (issues.length > 0) throw new ValidationError(issues);
}

/** SHA-256 in lowercase hex (Web Crypto: a global of the platform, no module imported). */
async function sha256Of(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', bytes));
  let hex = '';
  for (const byte of digest) hex += byte.toString(16).padStart(2, '0');
  return hex;
}

async function fileOf(image: ImageFile, name: string): Promise<{ file: MediaFile; bytes: Uint8Array }> {
  const { contentType, width, height, bytes } = image;
  return { file: { name, contentType, width, height, bytes: bytes.byteLength, sha256: await sha256Of(bytes) }, bytes };
}

/**
 * Writes the files one after another (an upload holds one connection of the pool, not one per
 * file: eleven writes at once held eleven and made the others' time out); when one write fails,
 * removes what was written and rethrows.
 */
async function writeAll(
  blobs: BlobStore,
  files: readonly { file: MediaFile; bytes: Uint8Array }[],
  keys: readonly string[],
): Promise<void> {
  try {
    for (const [i, { file, bytes }] of files.entries()) await blobs.put(keys[i]!, bytes, file.contentType);
  } catch (error) {
    await deleteQuietly(blobs, keys);
    throw error;
  }
}

/** Removes spare files; a failure leaves orphans for the housekeeping, never a failed request. */
async function deleteQuietly(blobs: BlobStore, keys: readonly string[]): Promise<void> {
  await blobs.delete(keys).catch(() => 0);
}
