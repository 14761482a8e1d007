import type { Media, Store } from '../../src/domain/index.js';

/**
 * Stores a media record as the library would after an upload (a 1600 × 900 PNG, no variants),
 * without the image itself: for tests of what posts do with a media, not of uploads. Each id gets
 * hashes of its own, so records of several ids never collide.
 */
export async function storedMedia(store: Store, id: string, alt: string): Promise<Media> {
  const sha256 = Buffer.from(id).toString('hex').padEnd(64, '0').slice(0, 64);
  const file = { name: 'original.png', contentType: 'image/png' as const, width: 1600, height: 900, bytes: 4096, sha256 };
  const record: Media = {
    ...file,
    id,
    sourceSha256: sha256,
    alt,
    caption: '',
    createdAt: new Date('2026-01-01T00:00:00.000Z'),
    files: [file],
  };
  return (await store.media.create(record)).media;
}
