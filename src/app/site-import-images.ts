import { MediaRefusedError, type CoverImage, type Media } from '../domain/index.js';
import type { ImportItem, ImportMode, ImportSkipReason } from './import-report.js';

/** An image file of the archive, read only when a post shows it. */
export interface ArchiveImage {
  path: string;
  /** Its bytes, or why they are not read (over the per-file limit, not what a manifest lists). */
  read(): Promise<{ bytes: Uint8Array } | { skip: { reason: ImportSkipReason; detail: string } }>;
}

/** The images a post of the archive shows, as the site files found them (site-files/images.ts). */
export interface PostImages {
  /** The images its body links, each with the alt text of its first link. */
  links: { image: ArchiveImage; alt: string }[];
  cover: { image: ArchiveImage; alt: string } | null;
  /** The body with each link to an image of `urls` (by archive path) replaced by its URL; the others left as written. */
  bodyWith(urls: ReadonlyMap<string, string>): string;
}

/** What an import asks of the media library. */
export interface ImageImportDeps {
  /** Stores the image (bytes identical to a stored one answer that media, `created: false`); throws `MediaRefusedError`. */
  upload(bytes: Uint8Array, meta: { alt: string; caption: string }): Promise<{ media: Media; created: boolean }>;
  /** For a dry run: the media already stored for these bytes, else null once they pass an upload's checks; throws `MediaRefusedError`. */
  check(bytes: Uint8Array): Promise<Media | null>;
  /** The public URL of a media's original, as a post body links it. */
  url(media: Media): string;
}

type Outcome = { action: 'create' | 'unchanged'; media: Media | null } | { action: 'skip'; reason: ImportSkipReason; detail: string };

/** The reason a refused image is skipped for; the detail says why the library refused it. */
const IMAGE_REFUSED: ImportSkipReason = 'image_refused';

/** The URL a dry run links an image it would store by (a real one exists only once stored). */
const PENDING = 'about:blank#image-not-stored-in-a-dry-run';

/**
 * The images of one import. Each image file is read and stored once, when the first post that
 * shows it is planned (a dry run only checks it), whatever the order of the archive; its item in
 * the report says what became of it: `create` (stored), `unchanged` (the library had it already:
 * an import run twice stores nothing the second time), or `skip` (refused as an upload would be,
 * or over the per-file limit; the posts that show it are imported without it, their links left as
 * written). An image file no post shows is skipped as it always was.
 */
export class ImageImport {
  readonly #deps: ImageImportDeps;
  readonly #mode: ImportMode;
  readonly #outcomes = new Map<string, Promise<Outcome>>();

  constructor(deps: ImageImportDeps, mode: ImportMode) {
    this.#deps = deps;
    this.#mode = mode;
  }

  /**
   * The post's body with its images stored and linked by their URLs, and its cover once stored.
   * No cover when the file names none, or names one that is refused: the post keeps the one it has.
   */
  async resolve(images: PostImages): Promise<{ body: string; coverImage?: CoverImage }> {
    const urls = new Map<string, string>();
    for (const { image, alt } of images.links) {
      const outcome = await this.#outcome(image, alt);
      if (outcome.action !== 'skip') urls.set(image.path, outcome.media === null ? PENDING : this.#deps.url(outcome.media));
    }
    const body = images.bodyWith(urls);
    if (images.cover === null) return { body };
    const outcome = await this.#outcome(images.cover.image, images.cover.alt);
    if (outcome.action === 'skip') return { body };
    // A dry run has no id for an image it would store: a placeholder, so that the plan reads a change.
    return { body, coverImage: { mediaId: outcome.media?.id ?? PENDING, alt: images.cover.alt } };
  }

  #outcome(image: ArchiveImage, alt: string): Promise<Outcome> {
    let outcome = this.#outcomes.get(image.path);
    if (outcome === undefined) {
      outcome = this.#store(image, alt);
      this.#outcomes.set(image.path, outcome);
    }
    return outcome;
  }

  async #store(image: ArchiveImage, alt: string): Promise<Outcome> {
    const read = await image.read();
    if ('skip' in read) return { action: 'skip', ...read.skip };
    const { bytes } = read;
    try {
      if (this.#mode === 'dry-run') {
        const media = await this.#deps.check(bytes);
        return { action: media === null ? 'create' : 'unchanged', media };
      }
      const { media, created } = await this.#deps.upload(bytes, { alt, caption: '' });
      return { action: created ? 'create' : 'unchanged', media };
    } catch (error) {
      if (!(error instanceof MediaRefusedError)) throw error;
      return {
        action: 'skip',
        reason: IMAGE_REFUSED,
        detail: `An image the media library refuses (${error.reason}); the posts that show it are imported without it.`,
      };
    }
  }

  /** The report's item for an image file of the archive, once every post is planned. */
  async itemOf(path: string): Promise<ImportItem> {
    const outcome = await this.#outcomes.get(path);
    const item: ImportItem = { path, action: 'skip', id: null, slug: null, changed: [], reason: null, detail: null };
    if (outcome === undefined) return { ...item, reason: 'not_a_post', detail: 'An image no post of the archive shows.' };
    if (outcome.action === 'skip') return { ...item, reason: outcome.reason, detail: outcome.detail };
    return { ...item, action: outcome.action };
  }
}
