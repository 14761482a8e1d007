import { inflateSync } from 'node:zlib';
import type { MediaType } from '../../domain/index.js';

/**
 * Largest ICC profile kept, in bytes: real ones are a few KB (Display P3 0.5 KB, a printer's a few
 * hundred KB); past that a profile is a place to carry anything, and the file is re-encoded.
 */
export const MAX_ICC_BYTES = 1024 * 1024;

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

/**
 * Whether bytes are an ICC profile as colour management reads it: within MAX_ICC_BYTES, its header's
 * size the bytes' own and its 'acsp' signature in place. Bytes past the declared size, or no profile
 * at all, are data the decoder never reads (sharp drops them when it re-encodes).
 */
function isIccProfile(profile: Uint8Array): boolean {
  return (
    profile.length >= 128 &&
    profile.length <= MAX_ICC_BYTES &&
    view(profile).getUint32(0) === profile.length &&
    ascii(profile, 36, 4) === 'acsp'
  );
}

const ascii = (bytes: Uint8Array, at: number, length: number): string => String.fromCharCode(...bytes.subarray(at, at + length));
const view = (bytes: Uint8Array): DataView => new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/** Markers whose segments a JPEG needs: frames, tables, restart interval (APP0 and APP14 are checked apart). */
const JPEG_KEPT = new Set([0xc0, 0xc1, 0xc2, 0xc3, 0xc5, 0xc6, 0xc7, 0xc9, 0xca, 0xcb, 0xcd, 0xce, 0xcf, 0xc4, 0xcc, 0xdb, 0xdd, 0xdc]);

/**
 * APP0 only as a bare JFIF header (16 bytes, no thumbnail: a JFXX one or any other APP0 carries
 * what it likes) and APP14 only as Adobe's colour-transform segment of its standard 14 bytes.
 */
function isStandardApp(bytes: Uint8Array, at: number, marker: number, length: number): boolean {
  if (marker === 0xe0) return length === 16 && ascii(bytes, at + 4, 5) === 'JFIF\0' && bytes[at + 16] === 0 && bytes[at + 17] === 0;
  return marker === 0xee && length === 14 && ascii(bytes, at + 4, 5) === 'Adobe';
}

function bareJpeg(bytes: Uint8Array): boolean {
  const data = view(bytes);
  if (data.getUint16(0) !== 0xffd8) return false;
  let at = 2;
  const icc: Uint8Array[] = []; // the profile's pieces (after the name, sequence number and count), in file order
  let iccBytes = 0;
  for (;;) {
    if (bytes[at] !== 0xff) return false;
    const marker = bytes[at + 1]!;
    if (marker === 0xd9) return at + 2 === bytes.length && (icc.length === 0 || isIccProfile(Buffer.concat(icc))); // EOI: nothing may follow
    const length = data.getUint16(at + 2);
    if (length < 2) return false;
    const isIcc = marker === 0xe2 && ascii(bytes, at + 4, 12) === 'ICC_PROFILE\0';
    if (isIcc) {
      if (bytes[at + 16] !== icc.length + 1 || (iccBytes += length) > MAX_ICC_BYTES) return false;
      icc.push(bytes.subarray(at + 18, at + 2 + length));
    }
    if (marker !== 0xda && !JPEG_KEPT.has(marker) && !isIcc && !isStandardApp(bytes, at, marker, length)) return false;
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

/**
 * Chunks a PNG (and APNG) needs to be shown as meant; text (tEXt, zTXt, iTXt), eXIf, tIME, private
 * chunks and the suggested palettes (sPLT: a name and any number of entries, hIST) are not.
 */
const PNG_KEPT = new Set([
  'IHDR', 'PLTE', 'IDAT', 'IEND', 'tRNS', 'cHRM', 'gAMA', 'iCCP', 'sBIT', 'sRGB', 'cICP', 'mDCv', 'cLLI', 'bKGD', 'pHYs', 'acTL', 'fcTL', 'fdAT',
]); // prettier-ignore

function barePng(bytes: Uint8Array): boolean {
  const data = view(bytes);
  let at = 8;
  for (;;) {
    const length = data.getUint32(at);
    const type = ascii(bytes, at + 4, 4);
    if (!PNG_KEPT.has(type)) return false;
    if (type === 'iCCP' && !saneIccp(bytes.subarray(at + 8, at + 8 + length))) return false;
    at += 12 + length;
    if (type === 'IEND') return at === bytes.length;
    if (at > bytes.length) return false;
  }
}

/** An iCCP chunk of an ICC profile within MAX_ICC_BYTES, compressed and inflated (inflating stops past it: it throws). */
function saneIccp(chunk: Uint8Array): boolean {
  if (chunk.length > MAX_ICC_BYTES) return false;
  const name = chunk.indexOf(0);
  if (name < 1 || name > 79 || chunk[name + 1] !== 0) return false; // a 1-79 byte name, deflate
  return isIccProfile(inflateSync(chunk.subarray(name + 2), { maxOutputLength: MAX_ICC_BYTES }));
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
      // Graphic control (frame timing: 4 bytes) and the looping application block (its identifier, then
      // one 3-byte sub-block: 1 and the loop count) only, each exactly so; comments, plain text, XMP and
      // any other application data are not.
      const label = bytes[at + 1];
      const timing = label === 0xf9 && bytes[at + 2] === 4 && bytes[at + 7] === 0;
      const looping =
        label === 0xff &&
        bytes[at + 2] === 11 &&
        ['NETSCAPE2.0', 'ANIMEXTS1.0'].includes(ascii(bytes, at + 3, 11)) &&
        bytes[at + 14] === 3 &&
        bytes[at + 15] === 1 &&
        bytes[at + 18] === 0;
      if (!timing && !looping) return false;
      at += timing ? 8 : 19;
    } else return false;
  }
}

const WEBP_KEPT = new Set(['VP8 ', 'VP8L', 'VP8X', 'ALPH', 'ANIM', 'ANMF', 'ICCP']);

function bareWebp(bytes: Uint8Array): boolean {
  const data = view(bytes);
  if (data.getUint32(4, true) + 8 !== bytes.length) return false; // bytes after the RIFF container
  let at = 12;
  while (at < bytes.length) {
    const chunk = ascii(bytes, at, 4);
    if (!WEBP_KEPT.has(chunk)) return false; // EXIF, XMP, unknown
    const size = data.getUint32(at + 4, true);
    if (chunk === 'ICCP' && (size > MAX_ICC_BYTES || !isIccProfile(bytes.subarray(at + 8, at + 8 + size)))) return false;
    at += 8 + size + (size % 2);
  }
  return at === bytes.length;
}

/** The boxes of a clean AVIF, as sharp (libheif) writes it: at the top, and inside `meta`. */
const AVIF_TOP = new Set(['ftyp', 'meta', 'mdat']);
const AVIF_META = new Set(['hdlr', 'pitm', 'iloc', 'iinf', 'iprp', 'iref', 'idat']);
const AVIF_PROPERTIES = new Set(['av1C', 'colr', 'ispe', 'pixi', 'auxC', 'pasp', 'clli', 'mdcv']);

/**
 * Only the boxes a clean AVIF needs: `ftyp`, `meta` and `mdat` at the top (no `free`, `uuid` or
 * unknown box, nothing after the last), inside `meta` the item tables and properties, and items of
 * image types only (an `Exif` or `mime` item is metadata), properties of the image's coding and
 * colour only, an ICC profile (`colr`) a sane one.
 */
function bareIsoBmff(bytes: Uint8Array): boolean {
  if (bytes.length < 8) return false;
  const top = boxes(bytes, 0, bytes.length);
  if (top?.[0]?.type !== 'ftyp' || !top.every((box) => AVIF_TOP.has(box.type))) return false;
  const metas = top.filter((box) => box.type === 'meta');
  if (metas.length !== 1) return false;
  const inside = boxes(bytes, metas[0]!.body + 4, metas[0]!.end); // meta is a full box: version and flags first
  if (!inside?.every((box) => AVIF_META.has(box.type))) return false;
  const iinf = inside.find((box) => box.type === 'iinf');
  if (!iinf || !imageItemsOnly(bytes, iinf)) return false;
  const iprp = inside.find((box) => box.type === 'iprp');
  const ipco = iprp && boxes(bytes, iprp.body, iprp.end)?.find((box) => box.type === 'ipco');
  const properties = ipco && boxes(bytes, ipco.body, ipco.end);
  if (!properties) return false;
  return properties.every((box) => {
    if (!AVIF_PROPERTIES.has(box.type)) return false;
    if (box.type !== 'colr' || ascii(bytes, box.body, 4) === 'nclx') return true;
    return ['prof', 'rICC'].includes(ascii(bytes, box.body, 4)) && isIccProfile(bytes.subarray(box.body + 4, box.end));
  });
}

interface Box {
  type: string;
  body: number;
  end: number;
}

/** The boxes from `from` to `to`, each ending within it and the last exactly at it; undefined otherwise. */
function boxes(bytes: Uint8Array, from: number, to: number): Box[] | undefined {
  const data = view(bytes);
  const found: Box[] = [];
  let at = from;
  while (at < to) {
    let size = data.getUint32(at);
    let body = at + 8;
    if (size === 1) {
      size = Number(data.getBigUint64(at + 8));
      body += 8;
    } else if (size === 0) size = to - at;
    if (size < body - at || at + size > to) return undefined;
    found.push({ type: ascii(bytes, at + 4, 4), body, end: at + size });
    at += size;
  }
  return at === to ? found : undefined;
}

/** Whether every item of `iinf` (item_info_entry version 2 or 3) is an image: AV1 or a grid of them. */
function imageItemsOnly(bytes: Uint8Array, iinf: Box): boolean {
  const data = view(bytes);
  const version = bytes[iinf.body]!;
  const entries = boxes(bytes, iinf.body + 4 + (version === 0 ? 2 : 4), iinf.end);
  if (!entries) return false;
  return entries.every((infe) => {
    if (infe.type !== 'infe' || (bytes[infe.body] !== 2 && bytes[infe.body] !== 3)) return false;
    const typeAt = infe.body + 4 + (bytes[infe.body] === 2 ? 2 : 4) + 2; // item_ID, item_protection_index
    return ['av01', 'grid'].includes(ascii(bytes, typeAt, 4)) && data.getUint8(typeAt + 4) === 0; // no item name
  });
}
