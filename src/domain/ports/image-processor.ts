import type { MediaType } from '../media.js';

/** An image file made by an `ImageProcessor`. */
export interface ImageFile {
  contentType: MediaType;
  width: number;
  height: number;
  bytes: Uint8Array;
}

/** An upload, checked and made safe to serve, with its variants. */
export interface ProcessedImage {
  /** SHA-256 of the bytes as given, 64 lowercase hex digits. */
  sourceSha256: string;
  /**
   * The original: orientation applied, EXIF, XMP, IPTC and comments removed, the ICC profile kept.
   * When the upload had nothing to remove and needs no rotation it is the upload byte for byte (so
   * an exported original imported again is the same file).
   */
  original: ImageFile;
  /** At each of `VARIANT_WIDTHS` below the original's width: WebP, and the original's type (GIF: WebP only). */
  variants: ImageFile[];
}

/** What an image's header says, read without decoding its pixels. */
interface ImageHeader {
  contentType: MediaType;
  width: number;
  height: number;
  /** Width × height × frames: what decoding it would cost. */
  pixels: number;
}

/**
 * An upload's bytes kept out of memory until their turn to be decoded (a temporary file), with
 * their count and SHA-256 taken as they arrived.
 */
export interface StagedBytes {
  readonly byteLength: number;
  /** SHA-256 of the bytes, 64 lowercase hex digits. */
  readonly sha256: string;
  /** The bytes, whole. */
  read(): Promise<Uint8Array>;
}

/** An upload's bytes: in memory, or staged. */
export type UploadBytes = Uint8Array | StagedBytes;

/**
 * Reads an upload. The type is taken from the bytes alone. Throws `MediaRefusedError`: bytes that
 * are none of `MEDIA_TYPES` (SVG included), more than the byte limit, a header declaring more
 * pixels than the pixel limit (refused before it is decoded), or bytes that do not decode whole.
 * Work is bounded: at most a configured number of images are decoded at once, the others wait;
 * staged bytes are read into memory only once their turn has come, so that no more than that
 * number of staged uploads are held in memory at once (a refusal by size needs no read).
 */
export interface ImageProcessor {
  process(upload: UploadBytes): Promise<ProcessedImage>;
  /**
   * The header only, checked as `process` checks it before decoding (the byte limit, the type
   * from the bytes and from the header, the pixel and frame limits), with the same
   * `MediaRefusedError`s; no pixel is decoded, so bytes that pass may still be refused by
   * `process` as not decoding whole.
   */
  inspect(bytes: Uint8Array): Promise<ImageHeader>;
}
