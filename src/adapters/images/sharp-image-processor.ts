import { createHash } from 'node:crypto';
import { fileTypeFromBuffer } from 'file-type';
import sharp, { type JpegOptions, type Metadata, type Sharp, type SharpOptions } from 'sharp';
import { MEDIA_TYPES, MediaRefusedError, VARIANT_WIDTHS, type MediaType } from '../../domain/index.js';
import type { ImageFile, ImageProcessor, ProcessedImage } from '../../domain/ports/image-processor.js';
import { MAX_ICC_BYTES, isBareFile } from './bare-file.js';
import { createSemaphore } from './semaphore.js';

// libvips' operation cache keeps decoded images of past uploads (50 MB by default) for a reuse
// that never comes: every upload is new bytes. Set once, for the whole process.
sharp.cache(false);

export interface SharpImageProcessorOptions {
  /** Largest upload, in bytes. */
  maxBytes: number;
  /** Most pixels an image may declare in its header (width × height × frames). */
  maxPixels: number;
  /** Images processed at once; the others wait their turn (FIFO). */
  concurrency: number;
}

/**
 * sharp's strictest level: decoding stops at a truncated file, a decoder error (corrupt entropy
 * data, a bad CRC) and at libvips' warnings too (a few extraneous bytes, which some cameras write):
 * an image that does not decode cleanly is refused rather than served half-read.
 */
const FAIL_ON = 'warning';

/**
 * Most frames an animation may declare: each frame costs its own decode and encode whatever its
 * size, so many small frames take seconds and much memory while well within the pixel limit
 * (bench/NOTES.md).
 */
const MAX_FRAMES = 1000;

/**
 * A JPEG original re-encoded (rotated, metadata removed) keeps quality 90, with libjpeg-turbo's
 * encoder: mozjpeg's took several times as long for files only somewhat smaller (bench/NOTES.md),
 * the upload waits for it, and readers mostly download the variants, not the original.
 */
const ORIGINAL_JPEG: JpegOptions = { quality: 90 };
const VARIANT_JPEG: JpegOptions = { quality: 82, progressive: true };

/**
 * The ImageProcessor on sharp (libvips). Cheap checks come first, each before the costlier one:
 * the size, the type sniffed from the bytes (file-type), the header read by sharp (no decoding)
 * for its type and its pixel count; only then is the image decoded, with libvips' own pixel limit
 * as a second guard and `failOn: 'warning'` (FAIL_ON) so that an image that does not decode cleanly is refused.
 */
export function createSharpImageProcessor(options: SharpImageProcessorOptions): ImageProcessor {
  const semaphore = createSemaphore(options.concurrency);
  return {
    async process(upload) {
      checkBytes(upload.byteLength, options.maxBytes);
      if (upload instanceof Uint8Array) {
        const type = await sniff(upload);
        return semaphore.run(() => processImage(upload, type, sha256(upload), options.maxPixels));
      }
      // Staged bytes come into memory only with their turn: the queue holds none of them.
      return semaphore.run(async () => {
        const bytes = await upload.read();
        return processImage(bytes, await sniff(bytes), upload.sha256, options.maxPixels);
      });
    },
    async inspect(bytes) {
      checkBytes(bytes.length, options.maxBytes);
      const type = await sniff(bytes);
      try {
        const meta = await readHeader(bytes, type, options.maxPixels);
        return {
          contentType: type,
          width: meta.autoOrient.width,
          height: meta.pageHeight ?? meta.autoOrient.height,
          pixels: pixelsOf(meta),
        };
      } catch (error) {
        throw refusal(error);
      }
    },
  };
}

function checkBytes(byteLength: number, maxBytes: number): void {
  if (byteLength > maxBytes) {
    throw new MediaRefusedError('too-many-bytes', `The image is ${byteLength} bytes; at most ${maxBytes} are taken.`);
  }
}

/** Width × height of a frame × frames. */
const pixelsOf = (meta: Metadata) => meta.width * (meta.pageHeight ?? meta.height) * (meta.pages ?? 1);

async function sniff(bytes: Uint8Array): Promise<MediaType> {
  const found = await fileTypeFromBuffer(bytes).catch(() => undefined);
  const type = MEDIA_TYPES.find((mediaType) => mediaType === found?.mime);
  if (!type) {
    throw new MediaRefusedError(
      'unsupported-type',
      `The bytes are ${found ? found.mime : 'no known type'}; images are JPEG, PNG, WebP, AVIF or GIF.`,
    );
  }
  return type;
}

async function processImage(bytes: Uint8Array, type: MediaType, sourceSha256: string, maxPixels: number): Promise<ProcessedImage> {
  const input: SharpOptions = { limitInputPixels: maxPixels, failOn: FAIL_ON, animated: type === 'image/gif' || type === 'image/webp' };
  const open = (): Sharp => sharp(bytes, input).autoOrient();
  try {
    const meta = await readHeader(bytes, type, maxPixels);
    const widths = VARIANT_WIDTHS.filter((width) => width < meta.autoOrient.width);
    const variants = await makeVariants(open, type, meta, widths);
    // Without variants nothing has decoded the image whole yet: an original kept as uploaded must be.
    const original = await makeOriginal(bytes, type, meta, open, variants.length > 0);
    return { sourceSha256, original, variants };
  } catch (error) {
    throw refusal(error);
  }
}

/** The header only (sharp's metadata() does not decode): the type must agree with the sniffed one, the pixels be within the limit. */
async function readHeader(bytes: Uint8Array, type: MediaType, maxPixels: number): Promise<Metadata> {
  const meta = await sharp(bytes, { limitInputPixels: maxPixels, failOn: FAIL_ON }).metadata();
  const format = meta.format === 'heif' ? (meta.compression === 'av1' ? 'avif' : 'heic') : meta.format;
  if (`image/${format}` !== type) {
    throw new MediaRefusedError('unsupported-type', `The bytes start as ${type} but decode as ${format}.`);
  }
  if ((meta.pages ?? 1) > MAX_FRAMES) {
    throw new MediaRefusedError('too-many-pixels', `The image declares ${meta.pages} frames; at most ${MAX_FRAMES} are taken.`);
  }
  const pixels = pixelsOf(meta);
  if (pixels > maxPixels) {
    throw new MediaRefusedError('too-many-pixels', `The image declares ${pixels} pixels; at most ${maxPixels} are taken.`);
  }
  return meta;
}

/**
 * The upload itself when it has nothing to remove and needs no rotation (so that an exported
 * original imported again is the same file); otherwise rotated, stripped of all but its ICC
 * profile and encoded once in its own type. Both ways it has been decoded whole.
 */
async function makeOriginal(bytes: Uint8Array, type: MediaType, meta: Metadata, open: () => Sharp, decoded: boolean): Promise<ImageFile> {
  const keep =
    (meta.orientation ?? 1) === 1 &&
    !meta.exif &&
    !meta.xmp &&
    !meta.iptc &&
    !meta.tifftagPhotoshop &&
    !(meta.comments && meta.comments.length > 0) &&
    isBareFile(bytes, type);
  if (!keep) {
    // The ICC profile goes along only when within MAX_ICC_BYTES (sharp keeps its declared bytes only);
    // past that the pixels are converted to sRGB with it and the profile left out.
    const sane = meta.icc !== undefined && meta.icc.length <= MAX_ICC_BYTES;
    return encode(reencode(sane ? open().keepIccProfile() : open(), type), type);
  }
  if (!decoded) await open().stats(); // decodes every pixel: a truncated or corrupt body is refused here, not served
  return { contentType: type, width: meta.width, height: meta.pageHeight ?? meta.height, bytes };
}

/**
 * The variants, each width in WebP and the original's type (GIF and WebP: WebP only). An opaque
 * still image is decoded once, to the largest width, and every variant is made from those pixels:
 * one decode of the upload instead of one a file, and no more pixels held than the largest
 * variant's. One with alpha is decoded once a width: resizing premultiplies and unpremultiplies in
 * 8 bits, and a second resize of already resized pixels took a semi-transparent colour 4-5 levels
 * off (each pass truncates). An animation is resized frame by frame from the upload for each file
 * (sharp resizes raw pixels as one tall image, frames and all).
 */
async function makeVariants(open: () => Sharp, type: MediaType, meta: Metadata, widths: number[]): Promise<ImageFile[]> {
  const largest = widths.at(-1);
  if (largest === undefined) return [];
  let at: (width: number) => Promise<() => Sharp>;
  if ((meta.pages ?? 1) > 1) {
    at = (width) => Promise.resolve(() => open().resize({ width }));
  } else if (meta.hasAlpha) {
    at = (width) => rawPixels(open().resize({ width }));
  } else {
    const pixels = await rawPixels(open().resize({ width: largest }));
    at = (width) => Promise.resolve(width === largest ? pixels : () => pixels().resize({ width }));
  }
  const variants: ImageFile[] = [];
  for (const width of widths) {
    const from = await at(width);
    variants.push(await encode(from().webp(), 'image/webp'));
    // A second file in the original's type, unless it is WebP (the same name twice) or GIF.
    if (type !== 'image/gif' && type !== 'image/webp') variants.push(await encode(reencode(from(), type, VARIANT_JPEG), type));
  }
  return variants;
}

/** The image decoded to raw pixels, and a way to start a new sharp() from them. */
async function rawPixels(image: Sharp): Promise<() => Sharp> {
  const { data, info } = await image.raw().toBuffer({ resolveWithObject: true });
  // No `premultiplied` from info: sharp hands raw pixels out unpremultiplied whatever it says (it
  // tells whether the pipeline premultiplied on the way), and taken as premultiplied they would
  // have their alpha divided out a second time.
  const raw = { width: info.width, height: info.height, channels: info.channels };
  // Every sharp() here has a pixel limit; for these pixels, made here, it is their own count.
  return () => sharp(data, { raw, limitInputPixels: info.width * info.height });
}

function reencode(image: Sharp, type: MediaType, jpeg: JpegOptions = ORIGINAL_JPEG): Sharp {
  switch (type) {
    case 'image/jpeg':
      return image.jpeg(jpeg);
    case 'image/png':
      return image.png({ palette: false });
    case 'image/webp':
      return image.webp();
    case 'image/avif':
      return image.avif();
    case 'image/gif':
      return image.gif();
  }
}

async function encode(image: Sharp, contentType: MediaType): Promise<ImageFile> {
  const { data, info } = await image.toBuffer({ resolveWithObject: true });
  return {
    contentType,
    width: info.width,
    height: info.pageHeight ?? info.height,
    bytes: new Uint8Array(data.buffer, data.byteOffset, data.byteLength),
  };
}

/** A sharp (libvips) failure as the refusal it means; a MediaRefusedError passes through. */
function refusal(error: unknown): MediaRefusedError {
  if (error instanceof MediaRefusedError) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (/pixel limit/i.test(message)) return new MediaRefusedError('too-many-pixels', 'The image declares more pixels than are taken.');
  if (/unsupported image format/i.test(message)) return new MediaRefusedError('unsupported-type', 'The bytes are no image sharp can read.');
  return new MediaRefusedError('unreadable', `The image does not decode whole (${message}).`);
}

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}
