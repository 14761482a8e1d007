import type { MediaType } from '../../domain/index.js';

/**
 * Whether an image file holds nothing but its pixels and how to show them: no EXIF, XMP, IPTC,
 * comments, text chunks, thumbnails or trailing bytes (a polyglot's second payload), only the
 * segments a decoder needs plus the ICC profile. sharp's metadata() misses some of these (JPEG
 * COM segments, GIF comments, bytes after the end marker), so the file's own structure is walked.
 * Anything not understood answers false: the caller then re-encodes, which is always safe.
 */
export function isBareFile(bytes: Uint8Array, type: MediaType): boolean {
  try {
    switch (type) {
      case 'image/jpeg':
        return bareJpeg(bytes);
      case 'image/png':
        return barePng(bytes);
      case 'image/gif':
        return bareGif(bytes);
      case 'image/webp':
        return bareWebp(bytes);
      case 'image/avif':
        return bareIsoBmff(bytes);
    }
  } catch {
    return false; // a read past the end (RangeError of DataView): not understood
  }
}

const ascii = (bytes: Uint8Array, at: number, length: number): string => String.fromCharCode(...bytes.subarray(at, at + length));
const view = (bytes: Uint8Array): DataView => new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/** Markers whose segments a JPEG needs: frames, tables, restart interval, APP0 (JFIF), APP14 (Adobe colour transform). */
const JPEG_KEPT = new Set([
  0xc0, 0xc1, 0xc2, 0xc3, 0xc5, 0xc6, 0xc7, 0xc9, 0xca, 0xcb, 0xcd, 0xce, 0xcf, 0xc4, 0xcc, 0xdb, 0xdd, 0xdc, 0xe0, 0xee,
]);

function bareJpeg(bytes: Uint8Array): boolean {
  const data = view(bytes);
  if (data.getUint16(0) !== 0xffd8) return false;
  let at = 2;
  for (;;) {
    if (bytes[at] !== 0xff) return false;
    const marker = bytes[at + 1]!;
    if (marker === 0xd9) return at + 2 === bytes.length; // EOI: nothing may follow
    const length = data.getUint16(at + 2);
    if (length < 2) return false;
    const isIcc = marker === 0xe2 && ascii(bytes, at + 4, 12) === 'ICC_PROFILE\0';
    if (marker !== 0xda && !JPEG_KEPT.has(marker) && !isIcc) return false;
    at += 2 + length;
    if (marker === 0xda) at = skipEntropyCoded(bytes, at);
  }
}

/** The first marker after a scan's entropy-coded data (0xFF00 is a stuffed byte, 0xFFD0–D7 restarts). */
function skipEntropyCoded(bytes: Uint8Array, from: number): number {
  for (let at = from; at + 1 < bytes.length; at += 1) {
    if (bytes[at] !== 0xff) continue;
    const next = bytes[at + 1]!;
    if (next !== 0 && (next < 0xd0 || next > 0xd7) && next !== 0xff) return at;
  }
  throw new RangeError('scan data runs to the end');
}

/** Chunks a PNG (and APNG) needs to be shown as meant; text (tEXt, zTXt, iTXt), eXIf, tIME and private chunks are not. */
const PNG_KEPT = new Set([
  'IHDR', 'PLTE', 'IDAT', 'IEND', 'tRNS', 'cHRM', 'gAMA', 'iCCP', 'sBIT', 'sRGB', 'cICP', 'mDCv', 'cLLI', 'bKGD', 'hIST', 'pHYs', 'sPLT', 'acTL', 'fcTL', 'fdAT',
]); // prettier-ignore

function barePng(bytes: Uint8Array): boolean {
  const data = view(bytes);
  let at = 8;
  for (;;) {
    const length = data.getUint32(at);
    const type = ascii(bytes, at + 4, 4);
    if (!PNG_KEPT.has(type)) return false;
    at += 12 + length;
    if (type === 'IEND') return at === bytes.length;
    if (at > bytes.length) return false;
  }
}

function bareGif(bytes: Uint8Array): boolean {
  const tableSize = (flags: number): number => (flags & 0x80 ? 3 * 2 ** ((flags & 7) + 1) : 0);
  let at = 13 + tableSize(bytes[10]!);
  const skipSubBlocks = (): void => {
    while (bytes[at] !== 0) {
      if (at >= bytes.length) throw new RangeError('sub-blocks run to the end');
      at += bytes[at]! + 1;
    }
    at += 1;
  };
  for (;;) {
    const block = bytes[at];
    if (block === 0x3b) return at + 1 === bytes.length; // trailer: nothing may follow
    if (block === 0x2c) {
      at += 10 + tableSize(bytes[at + 9]!) + 1; // descriptor, local table, LZW code size
      skipSubBlocks();
    } else if (block === 0x21) {
      const label = bytes[at + 1];
      // Graphic control (frame timing) and the looping application blocks only; comments, plain text and XMP are not.
      const looping = label === 0xff && ['NETSCAPE2.0', 'ANIMEXTS1.0'].includes(ascii(bytes, at + 3, 11));
      if (label !== 0xf9 && !looping) return false;
      at += 2;
      skipSubBlocks();
    } else return false;
  }
}

const WEBP_KEPT = new Set(['VP8 ', 'VP8L', 'VP8X', 'ALPH', 'ANIM', 'ANMF', 'ICCP']);

function bareWebp(bytes: Uint8Array): boolean {
  const data = view(bytes);
  if (data.getUint32(4, true) + 8 !== bytes.length) return false; // bytes after the RIFF container
  let at = 12;
  while (at < bytes.length) {
    if (!WEBP_KEPT.has(ascii(bytes, at, 4))) return false; // EXIF, XMP, unknown
    const size = data.getUint32(at + 4, true);
    at += 8 + size + (size % 2);
  }
  return at === bytes.length;
}

/**
 * AVIF keeps EXIF and XMP as items inside its `meta` box, which sharp's metadata() reports; here
 * only the top-level boxes are checked to end exactly with the file (no trailing payload).
 */
function bareIsoBmff(bytes: Uint8Array): boolean {
  const data = view(bytes);
  if (bytes.length < 8) return false;
  let at = 0;
  while (at < bytes.length) {
    let size = data.getUint32(at);
    if (size === 1) size = Number(data.getBigUint64(at + 8));
    else if (size === 0) size = bytes.length - at;
    if (size < 8) return false;
    at += size;
  }
  return at === bytes.length;
}
