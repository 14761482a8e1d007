import { describe, expect, it } from 'vitest';
import type { Media, MediaFile, MediaType } from '../../../domain/media.js';
import { enclosureFile, toContentCover } from './images.js';

const API = 'https://api.example.com/api/v1/content';
const ID = 'd3rmw6a2ztq5hkx4np7ucb2fya';

function file(name: string, contentType: MediaType, width: number, bytes: number): MediaFile {
  return { name, contentType, width, height: width / 2, bytes, sha256: name.charCodeAt(0).toString(16).padStart(64, '0') };
}

/** A JPEG `width` pixels wide with its variants, as stored: the original, then by width, then type. */
function photo(width: number): Media {
  const variants = [320, 640, 1024, 1600, 2400]
    .filter((w) => w < width)
    .flatMap((w) => [file(`${w}.jpg`, 'image/jpeg', w, w * 50), file(`${w}.webp`, 'image/webp', w, w * 20)]);
  const original = file('original.jpg', 'image/jpeg', width, width * 100);
  return {
    id: ID,
    contentType: 'image/jpeg',
    width,
    height: width / 2,
    bytes: original.bytes,
    sha256: original.sha256,
    sourceSha256: 'f'.repeat(64),
    alt: 'The library alt',
    caption: 'A caption',
    createdAt: new Date('2026-12-01T09:00:00.000Z'),
    files: [original, ...variants],
  };
}

describe('toContentCover', () => {
  it("is the original's URL, size and type with the post's alt, and every variant with its URL, in the order stored", () => {
    expect(toContentCover({ mediaId: ID, alt: 'The post alt' }, photo(700), API)).toStrictEqual({
      url: `${API}/media/${ID}/original.jpg`,
      alt: 'The post alt',
      width: 700,
      height: 350,
      contentType: 'image/jpeg',
      variants: [
        { width: 320, height: 160, contentType: 'image/jpeg', url: `${API}/media/${ID}/320.jpg`, bytes: 16000 },
        { width: 320, height: 160, contentType: 'image/webp', url: `${API}/media/${ID}/320.webp`, bytes: 6400 },
        { width: 640, height: 320, contentType: 'image/jpeg', url: `${API}/media/${ID}/640.jpg`, bytes: 32000 },
        { width: 640, height: 320, contentType: 'image/webp', url: `${API}/media/${ID}/640.webp`, bytes: 12800 },
      ],
    });
  });

  it('has no variants for an original too narrow for any', () => {
    expect(toContentCover({ mediaId: ID, alt: '' }, photo(300), API).variants).toEqual([]);
  });
});

describe('enclosureFile', () => {
  it('is the original when it is at most 1,600 pixels wide', () => {
    expect(enclosureFile(photo(300)).name).toBe('original.jpg');
    expect(enclosureFile(photo(1600)).name).toBe('original.jpg');
  });

  it('is the 1,600-pixel WebP variant of a wider original, whatever the order of the files', () => {
    expect(enclosureFile(photo(1601))).toMatchObject({ name: '1600.webp', contentType: 'image/webp', bytes: 32000 });
    const wide = photo(4000);
    expect(enclosureFile({ ...wide, files: [...wide.files].reverse() }).name).toBe('1600.webp');
  });

  it('falls back on the original of a wide media without WebP variants', () => {
    const wide = photo(4000);
    expect(enclosureFile({ ...wide, files: wide.files.filter((one) => one.contentType !== 'image/webp') }).name).toBe('original.jpg');
  });
});
