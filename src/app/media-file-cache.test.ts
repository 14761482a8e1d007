import { describe, expect, it } from 'vitest';
import { MediaFileCache } from './media-file-cache.js';

const file = { name: '1', contentType: 'image/png', width: 1, height: 1, bytes: 0, sha256: '0'.repeat(64) } as const;
const bytes = (n: number) => ({ file: { ...file, bytes: n }, bytes: new Uint8Array(n) });

describe('MediaFileCache', () => {
  it('holds at most maxBytes, dropping the least recently used first', () => {
    const cache = new MediaFileCache(100);
    cache.set('media/a/1', bytes(40));
    cache.set('media/b/1', bytes(40));
    expect(cache.get('media/a/1')).toBeDefined(); // now the most recently used
    cache.set('media/c/1', bytes(40));
    expect(cache.get('media/b/1')).toBeUndefined();
    expect(cache.get('media/a/1')?.bytes.byteLength).toBe(40);
    expect(cache.get('media/c/1')?.bytes.byteLength).toBe(40);
    expect(cache.size).toBe(80);
  });

  it('keeps no file larger than maxBytes, and counts a replaced key once', () => {
    const cache = new MediaFileCache(100);
    cache.set('media/a/1', bytes(101));
    expect(cache.get('media/a/1')).toBeUndefined();
    cache.set('media/a/1', bytes(30));
    cache.set('media/a/1', bytes(50));
    expect(cache.size).toBe(50);
  });

  it("forgets every file of one media and no other's", () => {
    const cache = new MediaFileCache(100);
    cache.set('media/a/1', bytes(10));
    cache.set('media/a/2', bytes(10));
    cache.set('media/ab/1', bytes(10));
    cache.forgetMedia('a');
    expect([cache.get('media/a/1'), cache.get('media/a/2')]).toEqual([undefined, undefined]);
    expect(cache.get('media/ab/1')).toBeDefined();
    expect(cache.size).toBe(10);
  });
});
