import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { MediaRefusedError, type MediaType } from '../../domain/index.js';
import { createSharpImageProcessor } from './sharp-image-processor.js';
import { animatedGif, blackPng, phoneJpeg, plainImage, pngChunk } from './test-images.js';

/** Hostile input never escapes as anything but a refusal: each call resolves or throws MediaRefusedError, in time. */
async function settlesAsRefusalOrImage(promise: Promise<unknown>): Promise<void> {
  const outcome = await Promise.race([
    promise.then(
      () => 'taken',
      (error: unknown) => (error instanceof MediaRefusedError ? 'refused' : error),
    ),
    new Promise((resolve) => setTimeout(() => resolve(new Error('no answer within 10 s')), 10_000).unref()),
  ]);
  if (outcome !== 'taken' && outcome !== 'refused') throw outcome;
}

const images = createSharpImageProcessor({ maxBytes: 1024 * 1024, maxPixels: 4_000_000, concurrency: 2 });
const seeds: Uint8Array[] = [];

beforeAll(async () => {
  const types: MediaType[] = ['image/jpeg', 'image/png', 'image/webp', 'image/avif', 'image/gif'];
  for (const type of types) seeds.push(await plainImage(type, 360, 240));
  seeds.push(await phoneJpeg(400, 300), await animatedGif(340, 200, 2));
}, 60_000);

describe('createSharpImageProcessor on hostile bytes', () => {
  it("answers 200 random byte buffers, bare or behind each type's magic bytes, with a refusal, never another error", async () => {
    const magic = fc.constantFrom(
      new Uint8Array(0),
      Uint8Array.from([0xff, 0xd8, 0xff, 0xe0]),
      Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]),
      new TextEncoder().encode('GIF89a'),
      new TextEncoder().encode('RIFF\x00\x10\x00\x00WEBPVP8 '),
      Uint8Array.from([0, 0, 0, 0x1c, ...new TextEncoder().encode('ftypavif\0\0\0\0avifmif1miaf')]),
    );
    await fc.assert(
      fc.asyncProperty(magic, fc.uint8Array({ maxLength: 4096 }), async (head, tail) => {
        await settlesAsRefusalOrImage(images.process(new Uint8Array(Buffer.concat([head, tail]))));
      }),
      { numRuns: 200 },
    );
  }, 120_000);

  it('answers mutated images (flipped bytes, truncations, junk before or after) with an image or a refusal', async () => {
    const mutation = fc.oneof(
      fc.record({
        kind: fc.constant('flip' as const),
        at: fc.array(fc.nat(), { minLength: 1, maxLength: 8 }),
        xor: fc.integer({ min: 1, max: 255 }),
      }),
      fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
      fc.record({ kind: fc.constant('prepend' as const), junk: fc.uint8Array({ minLength: 1, maxLength: 64 }) }),
      fc.record({ kind: fc.constant('append' as const), junk: fc.uint8Array({ minLength: 1, maxLength: 512 }) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.nat(), mutation, async (pick, change) => {
        const seed = Buffer.from(seeds[pick % seeds.length]!);
        let bytes: Buffer;
        if (change.kind === 'flip') {
          bytes = Buffer.from(seed);
          for (const at of change.at) bytes[at % bytes.length]! ^= change.xor;
        } else if (change.kind === 'truncate') bytes = seed.subarray(0, change.at % seed.length);
        else if (change.kind === 'prepend') bytes = Buffer.concat([change.junk, seed]);
        else bytes = Buffer.concat([seed, change.junk]);
        await settlesAsRefusalOrImage(images.process(new Uint8Array(bytes)));
      }),
      { numRuns: 200 },
    );
  }, 300_000);

  it('answers polyglots and lying headers with an image or a refusal', async () => {
    const jpeg = seeds[0]!;
    const png = Buffer.from(seeds[1]!);
    const lyingIhdr = (width: number, height: number): Uint8Array => {
      const ihdr = Buffer.from(png.subarray(16, 29));
      ihdr.writeUInt32BE(width, 0);
      ihdr.writeUInt32BE(height, 4);
      return new Uint8Array(Buffer.concat([png.subarray(0, 8), pngChunk('IHDR', ihdr), png.subarray(33)]));
    };
    const hostile = [
      Buffer.concat([jpeg, Buffer.from('<html><body><script>alert(document.cookie)</script></body></html>')]),
      Buffer.concat([Buffer.from('<html><!--'), jpeg, Buffer.from('--></html>')]),
      lyingIhdr(100, 100), // fewer pixels than the data holds
      lyingIhdr(5000, 5000), // more than the data holds, under the limit (25 MP > 4 MP: refused first)
      lyingIhdr(1900, 2000), // under the limit, more than the data holds
      lyingIhdr(0, 0),
      lyingIhdr(0x7fffffff, 1),
      blackPng(3000, 3000), // 9 MP over 4 MP
    ];
    for (const bytes of hostile) await settlesAsRefusalOrImage(images.process(new Uint8Array(bytes)));
    await expect(images.process(new Uint8Array(hostile[0]!))).resolves.toBeDefined();
  }, 60_000);

  it('rejects with MediaRefusedError, as callers map it (a check that the helper above fails on other errors)', async () => {
    await expect(settlesAsRefusalOrImage(Promise.reject(new TypeError('boom')))).rejects.toThrow('boom');
    await expect(settlesAsRefusalOrImage(Promise.reject(new MediaRefusedError('unreadable', 'x')))).resolves.toBeUndefined();
  });
});
