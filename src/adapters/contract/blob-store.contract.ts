import { describe, expect, it } from 'vitest';
import { BLOB_KEY_MAX, type BlobStore } from '../../domain/ports/media-repository.js';
import { type MakeStore, rejectionOf, times, useStore } from './fixtures.js';

/** Every byte value, twice, in an order that is neither ascending nor descending. */
function allByteValues(): Uint8Array {
  return Uint8Array.from(times(512, (i) => (i * 167 + 13) % 256));
}

/** `size` bytes of a cheap deterministic sequence (no run long enough to hide a lost chunk). */
function pattern(size: number, seed: number): Uint8Array {
  const bytes = new Uint8Array(size);
  let x = seed;
  for (let i = 0; i < size; i += 1) {
    x = (x * 1103515245 + 12345) >>> 0;
    bytes[i] = x >>> 24;
  }
  return bytes;
}

/** The first index where the two differ (a length counts), or -1. */
function firstDifference(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i += 1) if (a[i] !== b[i]) return i;
  return a.length === b.length ? -1 : n;
}

function isPlainUint8Array(value: unknown): boolean {
  return value instanceof Uint8Array && Object.getPrototypeOf(value) === Uint8Array.prototype;
}

export function describeBlobStoreContract(make: MakeStore): void {
  describe('BlobStore', () => {
    const store = useStore(make);
    const blobs = (): BlobStore => store().blobs;

    describe('put and get', () => {
      it('answers the bytes and their type exactly as put: all 256 byte values, as a plain Uint8Array', async () => {
        await blobs().put('media/a/original.png', allByteValues(), 'image/png');
        const got = await blobs().get('media/a/original.png');
        expect(got).toStrictEqual({ bytes: allByteValues(), contentType: 'image/png' });
        expect(isPlainUint8Array(got?.bytes)).toBe(true);
      });

      it('round-trips a 20 MiB blob byte for byte, and a smaller one put over it', async () => {
        const big = pattern(20 * 1024 * 1024, 7);
        await blobs().put('media/big/original.jpg', big, 'image/jpeg');
        const got = await blobs().get('media/big/original.jpg');
        expect(got?.bytes.byteLength).toBe(big.byteLength);
        expect(firstDifference(got!.bytes, big)).toBe(-1);
        expect(isPlainUint8Array(got?.bytes)).toBe(true);
        // Not a multiple of any power of two: a last part shorter than the others.
        const smaller = pattern(3 * 1024 * 1024 + 17, 8);
        await blobs().put('media/big/original.jpg', smaller, 'image/png');
        const again = await blobs().get('media/big/original.jpg');
        expect(again?.contentType).toBe('image/png');
        expect(again?.bytes.byteLength).toBe(smaller.byteLength);
        expect(firstDifference(again!.bytes, smaller)).toBe(-1);
      });

      it('round-trips an empty blob', async () => {
        await blobs().put('empty', new Uint8Array(0), 'application/octet-stream');
        expect(await blobs().get('empty')).toStrictEqual({ bytes: new Uint8Array(0), contentType: 'application/octet-stream' });
      });

      it('stores the bytes a view shows, not the rest of its buffer', async () => {
        const whole = Uint8Array.from([1, 2, 3, 4, 5, 6]);
        await blobs().put('view', whole.subarray(2, 5), 'image/gif');
        expect((await blobs().get('view'))?.bytes).toStrictEqual(Uint8Array.from([3, 4, 5]));
      });

      it('put replaces what a key held, bytes and type', async () => {
        await blobs().put('media/a/640.webp', pattern(1000, 1), 'image/webp');
        await blobs().put('media/a/640.webp', Uint8Array.from([9]), 'image/avif');
        expect(await blobs().get('media/a/640.webp')).toStrictEqual({ bytes: Uint8Array.from([9]), contentType: 'image/avif' });
        expect(await blobs().keys('', 10)).toEqual(['media/a/640.webp']);
      });

      it('stores a copy: changing the array put or the array answered changes nothing stored', async () => {
        const bytes = Uint8Array.from([1, 2, 3]);
        await blobs().put('k', bytes, 'image/png');
        bytes[0] = 99;
        const first = await blobs().get('k');
        first!.bytes[1] = 99;
        expect((await blobs().get('k'))?.bytes).toStrictEqual(Uint8Array.from([1, 2, 3]));
      });

      it('get answers null for an absent key; keys compare exactly', async () => {
        await blobs().put('media/a/original.jpg', Uint8Array.from([1]), 'image/jpeg');
        expect(await blobs().get('media/a/original.jp')).toBeNull();
        expect(await blobs().get('media/a/original.jpg/')).toBeNull();
        expect(await blobs().get('Media/a/original.jpg')).toBeNull();
        expect(await blobs().get('media/b/original.jpg')).toBeNull();
      });

      it(`put refuses a key outside [a-z0-9./_-], empty or over ${BLOB_KEY_MAX} characters with RangeError and stores nothing`, async () => {
        for (const key of ['', 'Media/a', 'a b', 'é', 'a\0b', 'a%b', 'a\\b', 'x'.repeat(BLOB_KEY_MAX + 1)])
          expect(await rejectionOf(blobs().put(key, Uint8Array.from([1]), 'image/png')), JSON.stringify(key)).toBeInstanceOf(RangeError);
        expect(await blobs().keys('', 100)).toEqual([]);
        const longest = `${'a'.repeat(BLOB_KEY_MAX - 9)}/0-9._.zz`;
        await blobs().put(longest, Uint8Array.from([1]), 'image/png');
        expect(await blobs().keys('', 100)).toEqual([longest]);
      });

      it('concurrent puts of one key leave the bytes and type of one of them, whole', async () => {
        const puts = times(6, (i) => ({ bytes: pattern(64 * 1024, i + 1), type: `image/t${i}` }));
        await Promise.all(puts.map((p) => blobs().put('race', p.bytes, p.type)));
        const got = await blobs().get('race');
        const winner = puts.find((p) => p.type === got?.contentType);
        expect(winner).toBeDefined();
        expect(firstDifference(got!.bytes, winner!.bytes)).toBe(-1);
      });
    });

    describe('delete', () => {
      it('removes the keys and answers how many existed; absent keys are no error and a key named twice counts once', async () => {
        for (const key of ['media/a/1', 'media/a/2', 'media/b/1']) await blobs().put(key, Uint8Array.from([1]), 'image/png');
        expect(await blobs().delete(['media/a/1', 'media/a/2', 'media/a/1', 'media/z/9'])).toBe(2);
        expect(await blobs().get('media/a/1')).toBeNull();
        expect(await blobs().get('media/a/2')).toBeNull();
        expect(await blobs().keys('', 10)).toEqual(['media/b/1']);
      });

      it('removes a big blob whole: its key is free for a small one', async () => {
        await blobs().put('media/a/original.jpg', pattern(3 * 1024 * 1024, 4), 'image/jpeg');
        await blobs().put('media/a/640.jpg', pattern(10, 5), 'image/jpeg');
        expect(await blobs().delete(['media/a/original.jpg'])).toBe(1);
        expect(await blobs().get('media/a/original.jpg')).toBeNull();
        await blobs().put('media/a/original.jpg', Uint8Array.from([7]), 'image/gif');
        expect(await blobs().get('media/a/original.jpg')).toStrictEqual({ bytes: Uint8Array.from([7]), contentType: 'image/gif' });
        expect(await blobs().get('media/a/640.jpg')).toStrictEqual({ bytes: pattern(10, 5), contentType: 'image/jpeg' });
      });

      it('answers 0 for absent keys and for no keys at all', async () => {
        expect(await blobs().delete([])).toBe(0);
        expect(await blobs().delete(['media/none', 'Not a key!'])).toBe(0);
      });
    });

    describe('keys', () => {
      const KEYS = ['a0', 'a_1', 'a.1', 'aa', 'a-1', 'a/1', 'a/0/x', 'b', 'a', 'media/a/original.jpg', 'media_x', 'mediaz'];

      it('answers the keys by prefix in ascending byte order, at most limit', async () => {
        for (const key of KEYS) await blobs().put(key, Uint8Array.from([1]), 'image/png');
        expect(await blobs().keys('', 100)).toEqual([...KEYS].sort());
        expect(await blobs().keys('', 100)).toEqual([
          'a',
          'a-1',
          'a.1',
          'a/0/x',
          'a/1',
          'a0',
          'a_1',
          'aa',
          'b',
          'media/a/original.jpg',
          'media_x',
          'mediaz',
        ]);
        expect(await blobs().keys('a', 4)).toEqual(['a', 'a-1', 'a.1', 'a/0/x']);
        expect(await blobs().keys('a/', 10)).toEqual(['a/0/x', 'a/1']);
        expect(await blobs().keys('a/1', 10)).toEqual(['a/1']);
        expect(await blobs().keys('c', 10)).toEqual([]);
      });

      it('takes the prefix literally: _ and . match only themselves', async () => {
        for (const key of KEYS) await blobs().put(key, Uint8Array.from([1]), 'image/png');
        expect(await blobs().keys('media_', 10)).toEqual(['media_x']);
        expect(await blobs().keys('a_', 10)).toEqual(['a_1']);
        expect(await blobs().keys('a.', 10)).toEqual(['a.1']);
        expect(await blobs().keys('%', 10)).toEqual([]);
      });

      it('refuses a limit that is not a positive integer with RangeError', async () => {
        for (const limit of [0, -1, 2.5]) {
          expect(await rejectionOf(blobs().keys('', limit)), String(limit)).toBeInstanceOf(RangeError);
          expect(await rejectionOf(blobs().list('', { limit })), String(limit)).toBeInstanceOf(RangeError);
        }
      });
    });

    describe('list', () => {
      it('answers the keys by prefix in byte order with when each was put, after `after` when given', async () => {
        const before = Date.now();
        for (const key of ['media/b/1', 'media/a/2', 'media/a/1', 'other']) await blobs().put(key, pattern(10, 1), 'image/png');
        const listed = await blobs().list('media/', { limit: 10 });
        expect(listed.map((entry) => entry.key)).toEqual(['media/a/1', 'media/a/2', 'media/b/1']);
        for (const { createdAt } of listed) {
          expect(createdAt).toBeInstanceOf(Date);
          // The store's clock, within a minute of this process's.
          expect(Math.abs(createdAt.getTime() - before)).toBeLessThan(60_000);
        }
        expect((await blobs().list('media/', { limit: 2 })).map((entry) => entry.key)).toEqual(['media/a/1', 'media/a/2']);
        expect((await blobs().list('media/', { limit: 2, after: 'media/a/2' })).map((entry) => entry.key)).toEqual(['media/b/1']);
        expect((await blobs().list('media/', { limit: 2, after: 'media/a' })).map((entry) => entry.key)).toEqual([
          'media/a/1',
          'media/a/2',
        ]);
        expect(await blobs().list('media/', { limit: 2, after: 'media/b/1' })).toEqual([]);
        expect((await blobs().list('', { limit: 10, after: null })).map((entry) => entry.key)).toEqual([
          'media/a/1',
          'media/a/2',
          'media/b/1',
          'other',
        ]);
      });

      it('lists a blob once whatever its size, with the time of the put that last stored it', async () => {
        await blobs().put('media/a/original.jpg', pattern(3 * 1024 * 1024, 2), 'image/jpeg');
        const [first] = await blobs().list('media/', { limit: 10 });
        await new Promise((resolve) => setTimeout(resolve, 20));
        await blobs().put('media/a/original.jpg', pattern(10, 3), 'image/jpeg');
        const listed = await blobs().list('media/', { limit: 10 });
        expect(listed.map((entry) => entry.key)).toEqual(['media/a/original.jpg']);
        expect(listed[0]!.createdAt.getTime()).toBeGreaterThan(first!.createdAt.getTime());
      });

      it('answers nothing for a prefix no key may start with', async () => {
        await blobs().put('a', pattern(1, 1), 'image/png');
        expect(await blobs().list('%', { limit: 10 })).toEqual([]);
        expect(await blobs().list('A', { limit: 10 })).toEqual([]);
      });
    });
  });
}
