// Images made for the tests of this folder (the unit tests and the fuzz test): nothing is read from disk.
import { crc32, deflateSync } from 'node:zlib';
import sharp from 'sharp';
import type { MediaType } from '../../domain/index.js';

/** A noisy image (so that a truncation cuts real data) with no metadata, in the given type. */
export async function plainImage(type: MediaType, width: number, height: number): Promise<Uint8Array> {
  const image = sharp({ create: { width, height, channels: 3, noise: { type: 'gaussian', mean: 128, sigma: 40 }, background: '#000' } });
  const encoded = {
    'image/jpeg': () => image.jpeg({ quality: 80 }),
    'image/png': () => image.png(),
    'image/webp': () => image.webp(),
    'image/avif': () => image.avif({ effort: 0 }),
    'image/gif': () => image.gif(),
  }[type]();
  return new Uint8Array(await encoded.toBuffer());
}

/**
 * A phone photo as a phone writes it: taken sideways (EXIF orientation 6), with the camera's make
 * and model, where it was taken (GPS latitude 48°51'24.05" N, longitude 2°21'7.02" E) and a
 * Display P3 ICC profile.
 */
export async function phoneJpeg(width = 800, height = 600): Promise<Uint8Array> {
  const image = sharp({ create: { width, height, channels: 3, noise: { type: 'gaussian', mean: 128, sigma: 40 }, background: '#000' } })
    .withExif({
      IFD0: { Make: 'AcmePhones', Model: 'Pocket 9' },
      IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '48/1 51/1 2405/100', GPSLongitudeRef: 'E', GPSLongitude: '2/1 21/1 702/100' },
    })
    .withMetadata({ orientation: 6, icc: 'p3' })
    .jpeg({ quality: 85 });
  return new Uint8Array(await image.toBuffer());
}

/** The GPS latitude's seconds (2405/100) as EXIF writes the rational in a little-endian file. */
export const GPS_SECONDS_RATIONAL = Uint8Array.from([0x65, 0x09, 0, 0, 0x64, 0, 0, 0]);

/** An animated GIF of `frames` frames, each a different colour. */
export async function animatedGif(width: number, height: number, count: number): Promise<Uint8Array> {
  const frames = await Promise.all(
    Array.from({ length: count }, (_, i) =>
      sharp({ create: { width, height, channels: 4, background: { r: (i * 80) % 256, g: 40, b: 200 - i * 30, alpha: 1 } } })
        .png()
        .toBuffer(),
    ),
  );
  return new Uint8Array(
    await sharp(frames, { join: { animated: true } })
      .gif({ delay: frames.map(() => 100), loop: 0 })
      .toBuffer(),
  );
}

/**
 * A valid PNG declaring `width` × `height` 1-bit grey pixels, all black: each row is one filter
 * byte and width/8 zero bytes, so 10,000 × 10,000 (100 MP) deflates to about 12 KB.
 */
export function blackPng(width: number, height: number): Uint8Array {
  const row = 1 + Math.ceil(width / 8);
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([1, 0, 0, 0, 0], 8); // bit depth 1, greyscale, deflate, adaptive filtering, no interlace
  const idat = deflateSync(Buffer.alloc(row * height), { level: 9 });
  return new Uint8Array(
    Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      pngChunk('IHDR', ihdr),
      pngChunk('IDAT', idat),
      pngChunk('IEND', Buffer.alloc(0)),
    ]),
  );
}

/** A PNG chunk with its CRC (exported so that tests can add chunks: text, or a lying IHDR). */
export function pngChunk(type: string, data: Uint8Array): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/** Whether `needle` occurs in `haystack`. */
export function contains(haystack: Uint8Array, needle: Uint8Array | string): boolean {
  return Buffer.from(haystack).includes(typeof needle === 'string' ? Buffer.from(needle, 'latin1') : Buffer.from(needle));
}
