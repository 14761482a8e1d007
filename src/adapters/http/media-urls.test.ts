import { describe, expect, it } from 'vitest';
import { API_ROOT } from './contract.js';
import { MEDIA_ROOT, mediaFileLink, mediaFilesIn, mediaFileUrl, mediaIdsIn } from './media-urls.js';

const A = 'aaaaaaaaaaaaaaaaaaaaaaaaaa';
const B = 'bbbbbbbbbbbbbbbbbbbbbbbbbb';

describe('media URLs', () => {
  it('serves media files under the Content API', () => {
    expect(MEDIA_ROOT).toBe(`${API_ROOT}/content/media`);
    expect(mediaFileUrl('https://api.example.com/api/v1/content', A, '640.webp')).toBe(
      `https://api.example.com/api/v1/content/media/${A}/640.webp`,
    );
  });

  it('finds the ids a body links to, each once, in order, up to a limit', () => {
    const body = `![a](https://x.example/api/v1/content/media/${B}/original.png) ![b](/api/v1/content/media/${A}/320.webp) /api/v1/content/media/${B}/640.png`;
    expect(mediaIdsIn(body)).toEqual([B, A]);
    expect(mediaIdsIn(body, 1)).toEqual([B]);
    expect(mediaIdsIn(`/media/${A}/x /api/v1/content/media/${A.toUpperCase()}/x /api/v1/content/media/short/x`)).toEqual([]);
  });

  it('finds the files a body links to, each once, without the dot that ends a sentence', () => {
    const body = `See /api/v1/content/media/${A}/original.png. And /api/v1/content/media/${A}/original.png, then /api/v1/content/media/${B}/640.webp)`;
    expect(mediaFilesIn(body, 10)).toEqual([
      { mediaId: A, fileName: 'original.png' },
      { mediaId: B, fileName: '640.webp' },
    ]);
    expect(mediaFilesIn(body, 1)).toHaveLength(1);
  });

  it.each([
    [`https://api.example.com/api/v1/content/media/${A}/original.jpg`, 'https://api.example.com/api/v1/content/media/'],
    [`http://localhost:3000/api/v1/content/media/${A}/original.jpg`, 'http://localhost:3000/api/v1/content/media/'],
    [`//cdn.example.com/api/v1/content/media/${A}/original.jpg`, '//cdn.example.com/api/v1/content/media/'],
    [`/api/v1/content/media/${A}/original.jpg`, '/api/v1/content/media/'],
    [`/cms/api/v1/content/media/${A}/original.jpg`, '/cms/api/v1/content/media/'],
  ])('recognises %s as a media file', (url, base) => {
    expect(mediaFileLink(url)).toEqual({ base, mediaId: A, fileName: 'original.jpg' });
  });

  it.each([
    `https://api.example.com/api/v1/content/media/${A}/original.jpg?x=1`,
    `https://api.example.com/api/v1/content/media/${A}/original.jpg#top`,
    `https://api.example.com/api/v1/content/media/${A}/`,
    `https://api.example.com/api/v1/content/media/${A.toUpperCase()}/original.jpg`,
    `https://api.example.com/media/${A}/original.jpg`,
    `api/v1/content/media/${A}/original.jpg`,
    `javascript:alert(1)//api/v1/content/media/${A}/original.jpg`,
    `data:text/html,/api/v1/content/media/${A}/original.jpg`,
    `ftp://api.example.com/api/v1/content/media/${A}/original.jpg`,
  ])('does not take %s for a media file', (url) => {
    expect(mediaFileLink(url)).toBeNull();
  });
});
