import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { MEDIA_TYPES } from '../../domain/index.js';
import { isBareFile } from './bare-file.js';
import { animatedGif, phoneJpeg, plainImage, pngChunk } from './test-images.js';

const concat = (...parts: Uint8Array[]): Uint8Array => new Uint8Array(Buffer.concat(parts));
const latin1 = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, 'latin1'));

describe('isBareFile', () => {
  it.each(MEDIA_TYPES)(
    'answers true for %s as sharp writes it without metadata (so a cleaned original is kept the next time)',
    async (type) => {
      expect(isBareFile(await plainImage(type, 40, 30), type)).toBe(true);
    },
  );

  it('answers true for an animated GIF (its frame timing and looping blocks) and a JPEG with only an ICC profile', async () => {
    expect(isBareFile(await animatedGif(40, 30, 3), 'image/gif')).toBe(true);
    const icc = await sharp(await plainImage('image/jpeg', 40, 30))
      .withIccProfile('p3')
      .jpeg()
      .toBuffer();
    expect(isBareFile(new Uint8Array(icc), 'image/jpeg')).toBe(true);
  });

  it('answers true for what a clean file carries: a bare JFIF header, an Adobe segment, a real ICC profile, alpha', async () => {
    const jpeg = await plainImage('image/jpeg', 40, 30);
    const jfif = Uint8Array.from([0xff, 0xe0, 0, 16, ...latin1('JFIF\0'), 1, 1, 0, 0, 1, 0, 1, 0, 0]);
    expect(isBareFile(concat(jpeg.subarray(0, 2), jfif, jpeg.subarray(2)), 'image/jpeg')).toBe(true);
    const cmyk = new Uint8Array(await sharp(jpeg).toColourspace('cmyk').jpeg().toBuffer()); // with Adobe's APP14
    expect(isBareFile(cmyk, 'image/jpeg')).toBe(true);
    const translucent = sharp({
      create: { width: 40, height: 30, channels: 4, background: { r: 1, g: 2, b: 3, alpha: 0.5 } },
    }).withIccProfile('p3');
    for (const type of ['image/png', 'image/webp', 'image/avif'] as const) {
      const encoded = {
        'image/png': () => translucent.png(),
        'image/webp': () => translucent.webp(),
        'image/avif': () => translucent.avif({ effort: 0 }),
      }[type];
      expect(isBareFile(new Uint8Array(await encoded().toBuffer()), type), type).toBe(true);
    }
  });

  it('answers false for a JPEG with EXIF, a comment or bytes after its end', async () => {
    const jpeg = await plainImage('image/jpeg', 40, 30);
    expect(isBareFile(await phoneJpeg(40, 30), 'image/jpeg')).toBe(false);
    expect(isBareFile(concat(jpeg.subarray(0, 2), Uint8Array.from([0xff, 0xfe, 0, 4]), latin1('hi'), jpeg.subarray(2)), 'image/jpeg')).toBe(
      false,
    );
    expect(isBareFile(concat(jpeg, latin1('<html>')), 'image/jpeg')).toBe(false);
  });

  it('answers false for a PNG with a text chunk, an eXIf chunk or bytes after IEND', async () => {
    const png = await plainImage('image/png', 40, 30);
    const withChunk = (type: string): Uint8Array => concat(png.subarray(0, 33), pngChunk(type, latin1('Author\0me')), png.subarray(33));
    expect(isBareFile(withChunk('tEXt'), 'image/png')).toBe(false);
    expect(isBareFile(withChunk('eXIf'), 'image/png')).toBe(false);
    expect(isBareFile(concat(png, latin1('junk')), 'image/png')).toBe(false);
  });

  it('answers false for a GIF with a comment or bytes after its trailer, and a WebP with an EXIF chunk', async () => {
    const gif = await plainImage('image/gif', 40, 30);
    const at = 13 + 3 * 2 ** ((gif[10]! & 7) + 1); // after the header and the global colour table
    expect(
      isBareFile(
        concat(gif.subarray(0, at), Uint8Array.from([0x21, 0xfe, 2]), latin1('hi'), Uint8Array.from([0]), gif.subarray(at)),
        'image/gif',
      ),
    ).toBe(false);
    expect(isBareFile(concat(gif, latin1('x')), 'image/gif')).toBe(false);

    const webp = new Uint8Array(
      await sharp(await plainImage('image/webp', 40, 30))
        .withExif({ IFD0: { Make: 'Acme' } })
        .webp()
        .toBuffer(),
    );
    expect(isBareFile(webp, 'image/webp')).toBe(false);
  });

  it('answers false, without throwing, for bytes it cannot walk', () => {
    for (const type of MEDIA_TYPES) {
      expect(isBareFile(new Uint8Array(0), type)).toBe(false);
      expect(isBareFile(Uint8Array.from([0xff, 0xd8, 0xff]), type)).toBe(false);
    }
  });
});
