/**
 * Images of the media library. An upload keeps its original (with its metadata removed) and
 * responsive variants made from it; every one of them is a file with a name of its own under the
 * media's id (`original.jpg`, `640.webp`, `640.jpg`, …), served publicly at an unguessable URL.
 */

/** The image types an upload may be, as sniffed from its bytes (never from a header or a name). */
export const MEDIA_TYPES = ['image/jpeg', 'image/png', 'image/webp', 'image/avif', 'image/gif'] as const;
export type MediaType = (typeof MEDIA_TYPES)[number];

/** The file-name extension of each media type. */
export const MEDIA_EXTENSIONS: Readonly<Record<MediaType, string>> = {
  'image/jpeg': 'jpg',
  'image/png': 'png',
  'image/webp': 'webp',
  'image/avif': 'avif',
  'image/gif': 'gif',
};

/** The widths variants are made at: each one below the original's width, never above it. */
export const VARIANT_WIDTHS = [320, 640, 1024, 1600, 2400] as const;

/** Longest alt text and caption, in characters. */
export const MEDIA_ALT_MAX = 1000;
export const MEDIA_CAPTION_MAX = 2000;

/** One stored file of a media: its original or a variant. */
export interface MediaFile {
  /** Unique within its media: `original.<ext>` or `<width>.<ext>`; `[a-z0-9.]+`, at most 40 characters. */
  name: string;
  contentType: MediaType;
  width: number;
  height: number;
  /** Its size in bytes. */
  bytes: number;
  /** SHA-256 of its bytes, 64 lowercase hex digits (its strong ETag). */
  sha256: string;
}

export interface Media {
  /** 26 lowercase base32 characters of 128 random bits: neither sequential nor time-ordered. */
  id: string;
  /** The original's type, width, height, size and hash (what is served as `original.<ext>`). */
  contentType: MediaType;
  width: number;
  height: number;
  bytes: number;
  sha256: string;
  /** SHA-256 of the bytes as uploaded (before metadata was removed): an identical upload is this media again. */
  sourceSha256: string;
  alt: string;
  caption: string;
  createdAt: Date;
  /** The original first, then the variants by width, then type. */
  files: MediaFile[];
}

/** A post that shows a media: as its cover, or in its body (a link to one of its files). */
export interface MediaUse {
  postId: string;
  title: string;
  slug: string;
}

/** The name of a media's original file. */
export function originalName(contentType: MediaType): string {
  return `original.${MEDIA_EXTENSIONS[contentType]}`;
}

/** The name of a variant file. */
export function variantName(width: number, contentType: MediaType): string {
  return `${width}.${MEDIA_EXTENSIONS[contentType]}`;
}

/** What a post shows at its top: a media of the library, with the alt text it has in this post. */
export interface CoverImage {
  mediaId: string;
  alt: string;
}

/** What search engines and link previews are told of a post; null means "use the post's own". */
export interface PostSeo {
  title: string | null;
  description: string | null;
  canonicalUrl: string | null;
}

export const NO_SEO: PostSeo = Object.freeze({ title: null, description: null, canonicalUrl: null });
