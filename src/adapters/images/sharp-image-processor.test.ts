import { createHash, randomBytes } from 'node:crypto';
import { deflateSync, inflateSync } from 'node:zlib';
import sharp, { type Sharp } from 'sharp';
import { describe, expect, it } from 'vitest';
import { MediaRefusedError, VARIANT_WIDTHS, variantName, type MediaRefusal, type MediaType } from '../../domain/index.js';
import type { ImageProcessor } from '../../domain/ports/image-processor.js';
import { createSharpImageProcessor } from './sharp-image-processor.js';
import { GPS_SECONDS_RATIONAL, animatedGif, blackPng, contains, phoneJpeg, plainImage, pngChunk } from './test-images.js';

const LIMITS = { maxBytes: 20 * 1024 * 1024, maxPixels: 50_000_000, concurrency: 2 };

async function refusalOf(promise: Promise<unknown>): Promise<MediaRefusal> {
  const error = await promise.then(
    () => expect.fail('the image was taken'),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(MediaRefusedError);
  return (error as MediaRefusedError).reason;
}

const latin1 = (text: string): Buffer => Buffer.from(text, 'latin1');
const jpegSegment = (marker: number, body: string): Buffer =>
  Buffer.concat([Buffer.from([0xff, marker, 0, body.length + 2]), latin1(body)]);
const afterSoi = (jpeg: Buffer, segment: Buffer): Buffer => Buffer.concat([jpeg.subarray(0, 2), segment, jpeg.subarray(2)]);
const afterGifTable = (gif: Buffer, block: Buffer): Buffer => {
  const at = 13 + 3 * 2 ** ((gif[10]! & 7) + 1);
  return Buffer.concat([gif.subarray(0, at), block, gif.subarray(at)]);
};
const withIccp = (png: Buffer, profile: Buffer): Buffer =>
  Buffer.concat([png.subarray(0, 33), pngChunk('iCCP', Buffer.concat([latin1('icc\0\0'), deflateSync(profile)])), png.subarray(33)]);
/** Whether 'SECRET' is in the file, or in the inflated ICC profile of a PNG. */
const holdsSecret = (file: Uint8Array): boolean => {
  const bytes = Buffer.from(file);
  const iccp = bytes.indexOf('iCCP', 0, 'latin1');
  if (iccp < 0) return contains(bytes, 'SECRET');
  const chunk = bytes.subarray(iccp + 4, iccp + 4 + bytes.readUInt32BE(iccp - 4));
  return contains(bytes, 'SECRET') || contains(inflateSync(chunk.subarray(chunk.indexOf(0) + 2)), 'SECRET');
};
/** Display P3 as sharp embeds it. */
const P3 = (await sharp({ create: { width: 1, height: 1, channels: 3, background: '#000' } })
  .withIccProfile('p3')
  .png()
  .toBuffer()
  .then((png) => sharp(png).metadata()))!.icc!;

describe('createSharpImageProcessor', () => {
  const images = createSharpImageProcessor(LIMITS);

  it('refuses more bytes than the limit before looking at them', async () => {
    const small = createSharpImageProcessor({ ...LIMITS, maxBytes: 100 });
    expect(await refusalOf(small.process(new Uint8Array(101)))).toBe('too-many-bytes');
  });

  it.each([
    ['SVG (it carries script)', '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'],
    ['HTML', '<!doctype html><html><body><img src=x onerror=alert(1)></body></html>'],
    ['PDF', '%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF'],
    ['text', 'just some text, no image at all'],
  ])('refuses %s as unsupported-type, whatever it is named or labelled', async (_, text) => {
    expect(await refusalOf(images.process(new TextEncoder().encode(text)))).toBe('unsupported-type');
  });

  it('refuses TIFF and HEIC, images sharp reads but the library does not take', async () => {
    const tiff = new Uint8Array(
      await sharp({ create: { width: 8, height: 8, channels: 3, background: '#fff' } })
        .tiff()
        .toBuffer(),
    );
    expect(await refusalOf(images.process(tiff))).toBe('unsupported-type');
    // An ISOBMFF header naming the HEIC brand: file-type calls it image/heic.
    const heic = Buffer.concat([Buffer.from([0, 0, 0, 24]), Buffer.from('ftypheic\0\0\0\0mif1heic', 'latin1'), Buffer.alloc(64)]);
    expect(await refusalOf(images.process(new Uint8Array(heic)))).toBe('unsupported-type');
  });

  it('refuses a 10,000 × 10,000 PNG of a few KB from its header, before decoding it', async () => {
    const bomb = blackPng(10_000, 10_000);
    expect(bomb.length).toBeLessThan(150_000);
    // With no pixel limit, the same file decodes: the refusal is the limit's, not a broken file's.
    expect((await sharp(bomb).metadata()).width).toBe(10_000);
    expect(await refusalOf(images.process(bomb))).toBe('too-many-pixels');
  });

  it('counts every frame of an animation against the pixel limit', async () => {
    const gif = await animatedGif(100, 100, 3); // 30,000 pixels in all, 10,000 a frame
    const tight = createSharpImageProcessor({ ...LIMITS, maxPixels: 20_000 });
    expect(await refusalOf(tight.process(gif))).toBe('too-many-pixels');
    const roomy = createSharpImageProcessor({ ...LIMITS, maxPixels: 30_000 });
    await expect(roomy.process(gif)).resolves.toBeDefined();
  });

  it('refuses an animation of more than 1,000 frames from its header, however small they are', async () => {
    const frame = Buffer.from(await plainImage('image/gif', 1, 1));
    const gifOf = (count: number): Uint8Array => {
      // One 1 × 1 frame (its descriptor to its data's end) repeated after the header and colour table.
      const start = 13 + 3 * 2 ** ((frame[10]! & 7) + 1);
      const frameBytes = frame.subarray(start, frame.length - 1);
      return new Uint8Array(
        Buffer.concat([frame.subarray(0, start), ...Array.from({ length: count }, () => frameBytes), Buffer.from([0x3b])]),
      );
    };
    expect((await sharp(gifOf(1001)).metadata()).pages).toBe(1001);
    const started = Date.now();
    const refused = await images.process(gifOf(1001)).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(MediaRefusedError);
    expect(refused).toMatchObject({ reason: 'too-many-pixels', message: expect.stringMatching(/1001 frames/) });
    expect(Date.now() - started).toBeLessThan(2000);
    expect((await images.process(gifOf(1000))).original.contentType).toBe('image/gif');
  });

  describe('inspect: the header only', () => {
    it('answers the type, size and pixels of each type, frames counted, and refuses what process refuses before decoding', async () => {
      for (const type of ['image/jpeg', 'image/png', 'image/webp', 'image/avif', 'image/gif'] as const) {
        expect(await images.inspect(await plainImage(type, 200, 100))).toEqual({
          contentType: type,
          width: 200,
          height: 100,
          pixels: 20_000,
        });
      }
      expect(await images.inspect(await animatedGif(100, 100, 3))).toMatchObject({ height: 100, pixels: 30_000 });
      expect(await refusalOf(createSharpImageProcessor({ ...LIMITS, maxBytes: 100 }).inspect(new Uint8Array(101)))).toBe('too-many-bytes');
      expect(await refusalOf(images.inspect(new TextEncoder().encode('<svg xmlns="http://www.w3.org/2000/svg"/>')))).toBe(
        'unsupported-type',
      );
      expect(await refusalOf(images.inspect(blackPng(10_000, 10_000)))).toBe('too-many-pixels');
    });

    it("decodes no pixel: a truncated image passes with its header's size (only process, which decodes, refuses it)", async () => {
      expect(await images.inspect(blackPng(7000, 7000))).toMatchObject({ contentType: 'image/png', pixels: 49_000_000 });
      const whole = await plainImage('image/png', 400, 300);
      const truncated = whole.subarray(0, Math.floor(whole.length * 0.6));
      expect(await images.inspect(truncated)).toMatchObject({ width: 400, height: 300 });
      expect(await refusalOf(images.process(truncated))).toBe('unreadable');
    });
  });

  it.each<MediaType>(['image/jpeg', 'image/png'])('refuses a truncated %s as unreadable', async (type) => {
    const whole = await plainImage(type, 400, 300);
    const truncated = whole.subarray(0, Math.floor(whole.length * 0.6));
    expect(await refusalOf(images.process(truncated))).toBe('unreadable');
  });

  it('refuses a truncated image even when it is too small to have variants', async () => {
    const whole = await plainImage('image/jpeg', 200, 150);
    expect(await refusalOf(images.process(whole.subarray(0, Math.floor(whole.length * 0.6))))).toBe('unreadable');
  });

  it('refuses a valid JPEG header followed by garbage as unreadable', async () => {
    const whole = await plainImage('image/jpeg', 400, 300);
    const sos = Buffer.from(whole).indexOf(Buffer.from([0xff, 0xda]));
    const garbage = Buffer.concat([whole.subarray(0, sos + 14), Buffer.alloc(4000, 0xff), Buffer.from([0xff, 0xd9])]);
    expect(await refusalOf(images.process(new Uint8Array(garbage)))).toBe('unreadable');
  });

  it.each<MediaType>(['image/jpeg', 'image/png', 'image/webp', 'image/avif', 'image/gif'])(
    'keeps a bare %s byte for byte, and taking its own output again gives the same bytes',
    async (type) => {
      const bytes = await plainImage(type, 200, 100);
      const first = await images.process(bytes);
      expect(first.original).toMatchObject({ contentType: type, width: 200, height: 100 });
      expect(Buffer.from(first.original.bytes).equals(Buffer.from(bytes))).toBe(true);
      const again = await images.process(first.original.bytes);
      expect(Buffer.from(again.original.bytes).equals(Buffer.from(first.original.bytes))).toBe(true);
    },
  );

  it('reports the SHA-256 of the bytes as given', async () => {
    const bytes = await phoneJpeg();
    const processed = await images.process(bytes);
    expect(processed.sourceSha256).toBe(createHash('sha256').update(bytes).digest('hex'));
    expect(processed.sourceSha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('turns a phone JPEG upright and removes its EXIF (GPS, make, model) but keeps its ICC profile', async () => {
    const phone = await phoneJpeg(800, 600);
    const before = await sharp(phone).metadata();
    expect(before.orientation).toBe(6);
    expect(contains(phone, 'AcmePhones')).toBe(true);
    expect(contains(phone, GPS_SECONDS_RATIONAL)).toBe(true);

    const { original } = await images.process(phone);
    expect(original).toMatchObject({ contentType: 'image/jpeg', width: 600, height: 800 });
    const after = await sharp(original.bytes).metadata();
    expect(after).toMatchObject({ format: 'jpeg', width: 600, height: 800 });
    expect(after.exif).toBeUndefined();
    expect(after.orientation).toBeUndefined();
    expect(after.icc).toBeDefined();
    expect(after.icc!.equals(before.icc!)).toBe(true);
    expect(contains(original.bytes, 'AcmePhones')).toBe(false);
    expect(contains(original.bytes, 'Pocket 9')).toBe(false);
    expect(contains(original.bytes, GPS_SECONDS_RATIONAL)).toBe(false);

    // Re-encoded once: taking the cleaned original again keeps it byte for byte.
    const again = await images.process(original.bytes);
    expect(Buffer.from(again.original.bytes).equals(Buffer.from(original.bytes))).toBe(true);
  });

  it('removes what metadata() does not report: a JPEG comment, PNG text, bytes after the end (a polyglot)', async () => {
    const jpeg = await plainImage('image/jpeg', 200, 100);
    const withComment = Buffer.concat([
      jpeg.subarray(0, 2),
      Buffer.from([0xff, 0xfe, 0, 10]),
      Buffer.from('secret!!', 'latin1'),
      jpeg.subarray(2),
    ]);
    const polyglot = Buffer.concat([jpeg, Buffer.from('<html><script>alert(1)</script></html>')]);
    const png = Buffer.from(await plainImage('image/png', 200, 100));
    const withText = Buffer.concat([png.subarray(0, 33), pngChunk('tEXt', Buffer.from('Author\0secret!!', 'latin1')), png.subarray(33)]);
    for (const bytes of [withComment, polyglot, withText]) {
      const { original } = await images.process(new Uint8Array(bytes));
      expect(original).toMatchObject({ width: 200, height: 100 });
      expect(contains(original.bytes, 'secret!!')).toBe(false);
      expect(contains(original.bytes, '<script>')).toBe(false);
    }
  });

  it.each<[string, MediaType, (clean: Buffer) => Promise<Buffer> | Buffer]>([
    ['a JPEG with a JFXX APP0 segment', 'image/jpeg', (jpeg) => afterSoi(jpeg, jpegSegment(0xe0, 'JFXX\0\x13SECRET'))],
    [
      'a JPEG with a JFIF thumbnail',
      'image/jpeg',
      (jpeg) => afterSoi(jpeg, jpegSegment(0xe0, 'JFIF\0\x01\x01\0\0\x01\0\x01\x02\x01SECRET')),
    ],
    ['a JPEG with a long Adobe APP14 segment', 'image/jpeg', (jpeg) => afterSoi(jpeg, jpegSegment(0xee, 'Adobe\0\x64\0\0\0\0\x01SECRET'))],
    [
      'a GIF with data after its loop count',
      'image/gif',
      (gif) => afterGifTable(gif, latin1('\x21\xff\x0bNETSCAPE2.0\x03\x01\0\0\x06SECRET\0')),
    ],
    ['a GIF with an ANIMEXTS block of other data', 'image/gif', (gif) => afterGifTable(gif, latin1('\x21\xff\x0bANIMEXTS1.0\x06SECRET\0'))],
    ['an AVIF with a free box', 'image/avif', (avif) => Buffer.concat([avif, Buffer.from([0, 0, 0, 14]), latin1('freeSECRET')])],
    [
      'a PNG whose ICC profile inflates past 1 MiB',
      'image/png',
      (png) => withIccp(png, Buffer.concat([P3, latin1('SECRET'), Buffer.alloc(1_100_000)])),
    ],
    [
      'a PNG whose ICC chunk is over 1 MiB',
      'image/png',
      (png) => withIccp(png, Buffer.concat([P3, latin1('SECRET'), randomBytes(1_100_000)])),
    ],
    ['a PNG whose ICC chunk holds no profile', 'image/png', (png) => withIccp(png, Buffer.concat([latin1('SECRET'), randomBytes(2000)]))],
  ])('re-encodes %s, which carries what it likes, and keeps none of it', async (_, type, dirty) => {
    const bytes = new Uint8Array(await dirty(Buffer.from(await plainImage(type, 200, 100))));
    expect(holdsSecret(bytes)).toBe(true);
    const { original } = await images.process(bytes);
    expect(original).toMatchObject({ contentType: type, width: 200, height: 100 });
    expect(holdsSecret(original.bytes)).toBe(false);
    // A real ICC profile is kept, only its declared bytes: Display P3 as it was.
    const icc = (await sharp(original.bytes).metadata()).icc;
    if (icc) expect(icc.equals(P3)).toBe(true);
  });

  it('re-encodes a PNG with a real ICC profile over 1 MiB in sRGB, without the profile', async () => {
    const big = Buffer.concat([P3, Buffer.alloc(1_100_000)]);
    big.writeUInt32BE(big.length, 0); // the profile declares its padded size
    const bytes = new Uint8Array(withIccp(Buffer.from(await plainImage('image/png', 200, 100)), big));
    expect((await sharp(bytes).metadata()).icc?.length).toBe(big.length);
    const { original } = await images.process(bytes);
    expect(original).toMatchObject({ contentType: 'image/png', width: 200, height: 100 });
    expect((await sharp(original.bytes).metadata()).icc).toBeUndefined();
  });

  it('makes each variant width below the original, in WebP and the original type, with proportional heights and no metadata', async () => {
    const processed = await images.process(await phoneJpeg(1200, 2000)); // upright: 2000 × 1200
    expect(processed.original).toMatchObject({ width: 2000, height: 1200 });
    const made = processed.variants.map((v) => [v.width, v.height, v.contentType]);
    expect(made).toEqual([
      [320, 192, 'image/webp'],
      [320, 192, 'image/jpeg'],
      [640, 384, 'image/webp'],
      [640, 384, 'image/jpeg'],
      [1024, 614, 'image/webp'],
      [1024, 614, 'image/jpeg'],
      [1600, 960, 'image/webp'],
      [1600, 960, 'image/jpeg'],
    ]);
    for (const variant of processed.variants) {
      const meta = await sharp(variant.bytes).metadata();
      expect(meta).toMatchObject({
        width: variant.width,
        height: variant.height,
        format: variant.contentType === 'image/webp' ? 'webp' : 'jpeg',
      });
      expect(meta.exif).toBeUndefined();
      expect(meta.icc).toBeUndefined();
      expect(meta.orientation).toBeUndefined();
    }
  });

  const GREEN_77 = { r: 10, g: 200, b: 30, alpha: 77 / 255 };
  it.each([
    ['a PNG', (image: Sharp) => image.png(), GREEN_77],
    ['a grey and alpha PNG', (image: Sharp) => image.toColourspace('b-w').png(), { r: 90, g: 90, b: 90, alpha: 0.5 }],
    ['a WebP', (image: Sharp) => image.webp({ lossless: true }), GREEN_77],
    ['an AVIF', (image: Sharp) => image.avif({ lossless: true }), GREEN_77],
  ])('gives every variant of %s with semi-transparent pixels the colours of the upload', async (_, encoded, background) => {
    const bytes = new Uint8Array(await encoded(sharp({ create: { width: 700, height: 200, channels: 4, background } })).toBuffer());
    const rgba = async (image: Uint8Array): Promise<number[]> => [
      ...(await sharp(image).toColourspace('srgb').ensureAlpha().raw().toBuffer()).subarray(0, 4),
    ];
    const source = await rgba(bytes);
    expect(source[3]).toBeLessThan(255);
    const { variants } = await images.process(bytes);
    expect(variants.map((v) => v.width)).toContain(320);
    for (const variant of variants) {
      const pixel = await rgba(variant.bytes);
      // PNG is lossless: rounding only. Lossy WebP and AVIF move this green by 3 on their own (sharp resizing
      // and encoding it in one go does too); alpha divided out twice moved it by up to 66.
      const tolerance = variant.contentType === 'image/png' ? 2 : 4;
      const off = Math.max(...pixel.map((value, i) => Math.abs(value - source[i]!)));
      expect(off, `${variant.width} ${variant.contentType}: ${pixel} for ${source}`).toBeLessThanOrEqual(tolerance);
    }
  });

  it('makes no variant at or above the original width', async () => {
    expect((await images.process(await plainImage('image/png', 320, 200))).variants).toEqual([]);
    const processed = await images.process(await plainImage('image/png', 321, 200));
    expect(processed.variants.map((v) => [v.width, v.contentType])).toEqual([
      [320, 'image/webp'],
      [320, 'image/png'],
    ]);
    expect(VARIANT_WIDTHS[0]).toBe(320);
  });

  it('keeps an animated GIF as it is and makes animated WebP variants only', async () => {
    const gif = await animatedGif(700, 350, 3);
    const processed = await images.process(gif);
    expect(processed.original).toMatchObject({ contentType: 'image/gif', width: 700, height: 350 });
    expect(Buffer.from(processed.original.bytes).equals(Buffer.from(gif))).toBe(true);
    expect(processed.variants.map((v) => [v.width, v.height, v.contentType])).toEqual([
      [320, 160, 'image/webp'],
      [640, 320, 'image/webp'],
    ]);
    for (const variant of processed.variants) expect((await sharp(variant.bytes).metadata()).pages).toBe(3);
  });

  it('makes each variant of a WebP once, still or animated: its own type is WebP', async () => {
    const still = await images.process(await plainImage('image/webp', 700, 350));
    expect(still.variants.map((v) => variantName(v.width, v.contentType))).toEqual(['320.webp', '640.webp']);
    const animated = new Uint8Array(
      await sharp(await animatedGif(700, 350, 3), { animated: true })
        .webp()
        .toBuffer(),
    );
    const processed = await images.process(animated);
    expect(processed.variants.map((v) => [variantName(v.width, v.contentType), v.height])).toEqual([
      ['320.webp', 160],
      ['640.webp', 320],
    ]);
    for (const variant of processed.variants) expect((await sharp(variant.bytes).metadata()).pages).toBe(3);
  });

  it('refuses a file whose magic says one type and whose body decodes as another', async () => {
    // A GIF header glued in front of a PNG: file-type says GIF; the bytes are no GIF sharp can read.
    const png = await plainImage('image/png', 50, 50);
    const lying = Buffer.concat([Buffer.from('GIF89a', 'latin1'), png]);
    expect(['unsupported-type', 'unreadable']).toContain(await refusalOf(images.process(new Uint8Array(lying))));
  });

  it('processes at most `concurrency` images at once; the next one waits for a slot', async () => {
    const big = await plainImage('image/jpeg', 2000, 1400);
    const small = await plainImage('image/png', 60, 40);
    const finished = async (processor: ImageProcessor): Promise<string[]> => {
      const order: string[] = [];
      const note = (name: string) => () => void order.push(name);
      await Promise.all([
        processor.process(big).then(note('big')),
        processor.process(big).then(note('big')),
        processor.process(small).then(note('small')),
      ]);
      return order;
    };
    // Two slots, both taken by big images: the small one, third in line, waits for one of them.
    expect((await finished(createSharpImageProcessor({ ...LIMITS, concurrency: 2 })))[0]).toBe('big');
    // Three slots: it starts at once and is done long before them.
    expect((await finished(createSharpImageProcessor({ ...LIMITS, concurrency: 3 })))[0]).toBe('small');
  });
});
