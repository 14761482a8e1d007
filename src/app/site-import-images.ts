import { MediaRefusedError, type CoverImage, type Media } from '../domain/index.js';
import { summaryOf, type ImportItem, type ImportMode, type ImportSkipReason } from './import-report.js';

/** An image file of the archive, read only when a post shows it. */
export interface ArchiveImage {
  path: string;
  /**
   * Its bytes (with a `note` for its item's detail: an image that is not what the archive's
   * manifest lists), or why they are not read (over the per-file limit).
   */
  read(): Promise<{ bytes: Uint8Array; note?: string } | { skip: { reason: ImportSkipReason; detail: string } }>;
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
  /** The SHA-256 of the bytes, and the media stored for them (as its upload or its served original) or null; nothing decoded. */
  find(bytes: Uint8Array): Promise<{ sha256: string; media: Media | null }>;
  /** The pixels decoding the image would cost, from its header checked as an upload checks it; throws `MediaRefusedError`. Nothing decoded. */
  inspect(bytes: Uint8Array): Promise<{ pixels: number }>;
  /** The public URL of a media's original, as a post body links it. */
  url(media: Media): string;
  /** The most images, and pixels together, one import decodes (stores); an image beyond either is skipped. */
  limits: { images: number; pixels: number };
}

type Outcome =
  | { action: 'create' | 'unchanged'; media: Media | null; note: string | null }
  | { action: 'skip'; reason: ImportSkipReason; detail: string };

/** The reason a refused image is skipped for; the detail says why the library refused it. */
const IMAGE_REFUSED: ImportSkipReason = 'image_refused';
/** The reason an image beyond the images or pixels an import decodes is skipped for. */
const IMAGE_LIMIT: ImportSkipReason = 'image_limit';

/** The URL a dry run links an image it would store by (a real one exists only once stored). */
const PENDING = 'about:blank#image-not-stored-in-a-dry-run';

/**
 * The images of one import. Each image file is read and stored once, when the first post that
 * shows it is planned, whatever the order of the archive; its item in the report says what became
 * of it: `create` (stored), `unchanged` (the library had it already: an import run twice stores
 * nothing the second time), or `skip` (refused as an upload would be, over the per-file limit, or
 * beyond the images or pixels an import decodes; the posts that show it are imported without it,
 * their links left as written). An image file no post shows is skipped as it always was.
 *
 * Decoding is what costs, so it is bounded and a dry run does none: an image the library does not
 * hold has its header read (its pixels counted, its type and limits checked), then counts against
 * `limits` in the order the posts show the images; a dry run stops there, the apply stores it. So
 * a dry run reports what the apply does, but for an image whose pixels do not decode whole, found
 * only by decoding it (and one that decodes to an original the library holds: `unchanged`).
 */
export class ImageImport {
  readonly #deps: ImageImportDeps;
  readonly #mode: ImportMode;
  readonly #outcomes = new Map<string, Promise<Outcome>>();
  /** What the images counted against the limits so far cost. */
  readonly #spent = { images: 0, pixels: 0 };
  /** The SHA-256 of each image a dry run would store: a later file of the same bytes would find it stored. */
  readonly #wouldStore = new Set<string>();

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
    const note = read.note ?? null;
    try {
      const found = await this.#deps.find(bytes);
      if (found.media !== null || this.#wouldStore.has(found.sha256)) return { action: 'unchanged', media: found.media, note };
      const { pixels } = await this.#deps.inspect(bytes);
      const beyond = this.#beyondLimits(pixels);
      if (beyond !== null) return { action: 'skip', reason: IMAGE_LIMIT, detail: beyond };
      this.#spent.images += 1;
      this.#spent.pixels += pixels;
      if (this.#mode === 'dry-run') {
        this.#wouldStore.add(found.sha256);
        return { action: 'create', media: null, note };
      }
      const { media, created } = await this.#deps.upload(bytes, { alt, caption: '' });
      return { action: created ? 'create' : 'unchanged', media, note };
    } catch (error) {
      if (!(error instanceof MediaRefusedError)) throw error;
      return {
        action: 'skip',
        reason: IMAGE_REFUSED,
        detail: `An image the media library refuses (${error.reason}); the posts that show it are imported without it.`,
      };
    }
  }

  /** Why an image of `pixels` is not decoded (the limits spent), or null when it may be. */
  #beyondLimits(pixels: number): string | null {
    const { images, pixels: most } = this.#deps.limits;
    const again = 'the posts that show it are imported without it: import the archive again to store it.';
    if (this.#spent.images >= images) {
      return `Beyond the ${images} image${images === 1 ? '' : 's'} an import decodes (IMPORT_MAX_IMAGES); ${again}`;
    }
    if (this.#spent.pixels + pixels > most) {
      return `Its ${pixels} pixels are beyond the ${most} an import decodes (IMPORT_MAX_IMAGE_PIXELS; ${this.#spent.pixels} spent); ${again}`;
    }
    return null;
  }

  /** The report's item for an image file of the archive, once every post is planned. */
  async itemOf(path: string): Promise<ImportItem> {
    const outcome = await this.#outcomes.get(path);
    const summary = summaryOf({ skip: true }, this.#mode);
    const item: ImportItem = { path, action: 'skip', id: null, slug: null, changed: [], summary, reason: null, detail: null };
    if (outcome === undefined) return { ...item, reason: 'not_a_post', detail: 'An image no post of the archive shows.' };
    if (outcome.action === 'skip') return { ...item, reason: outcome.reason, detail: outcome.detail };
    return { ...item, action: outcome.action, summary: summaryOf({ image: outcome.action }, this.#mode), detail: outcome.note };
  }
}
