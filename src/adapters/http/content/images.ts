import type { CoverImage, Media, MediaFile } from '../../../domain/media.js';
import { mediaFileUrl } from '../media-urls.js';
import type { components } from '../../../../generated/api.js';

type ContentCoverImage = components['schemas']['ContentCoverImage'];

/** Whether a file is the media's original (`original.<ext>`) rather than a variant. */
function isOriginal(file: Pick<MediaFile, 'name'>): boolean {
  return file.name.startsWith('original.');
}

/** A media's original file (stored first). */
export function originalOf(media: Media): MediaFile {
  return media.files.find(isOriginal) ?? media.files[0]!;
}

/**
 * A post's cover as readers get it: the original's URL, size and type, the alt text the post gives
 * it, and the variants (in the order stored: by width, then type) with their URLs.
 */
export function toContentCover(cover: CoverImage, media: Media, contentApiUrl: string): ContentCoverImage {
  return {
    url: mediaFileUrl(contentApiUrl, media.id, originalOf(media).name),
    alt: cover.alt,
    width: media.width,
    height: media.height,
    contentType: media.contentType,
    variants: media.files
      .filter((file) => !isOriginal(file))
      .map((file) => ({
        width: file.width,
        height: file.height,
        contentType: file.contentType,
        url: mediaFileUrl(contentApiUrl, media.id, file.name),
        bytes: file.bytes,
      })),
  };
}

/** The widest image a feed's enclosure points to, in pixels. */
const ENCLOSURE_MAX_WIDTH = 1600;

/**
 * The file of a cover a feed entry encloses: the original when it is at most 1,600 pixels wide,
 * else the widest WebP variant that is (1600.webp: variants are made at every width below the
 * original's). A phone photo's original is up to 20 MiB, which readers that fetch enclosures
 * ahead would download for every entry; 1,600 pixels fill a reader's column at twice its density
 * for a tenth of the bytes, and every current browser and reader shows WebP.
 */
export function enclosureFile(media: Media): MediaFile {
  const original = originalOf(media);
  if (original.width <= ENCLOSURE_MAX_WIDTH) return original;
  const webp = media.files.filter((file) => !isOriginal(file) && file.contentType === 'image/webp' && file.width <= ENCLOSURE_MAX_WIDTH);
  return (
    webp.reduce<MediaFile | undefined>((widest, file) => (widest === undefined || file.width > widest.width ? file : widest), undefined) ??
    original
  );
}
