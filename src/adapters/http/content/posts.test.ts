import { describe, expect, it } from 'vitest';
import type { Media, Post } from '../../../domain/index.js';
import { contentPostPresenter } from './posts.js';
import { toContentCover } from './images.js';

const API = 'https://api.example.com/api/v1/content';
const MEDIA_ID = 'd3rmw6a2ztq5hkx4np7ucb2fya';

const post: Post = {
  id: '01JDQ9A2C4E6G8J0K2M4P6R8TA',
  title: 'Cursor pagination',
  slug: 'cursor-pagination',
  excerpt: 'Keyset cursors.',
  body: '# Hi',
  tags: ['api'],
  status: 'published',
  version: 3,
  wordCount: 2,
  createdAt: new Date('2026-12-01T09:00:00.000Z'),
  updatedAt: new Date('2026-12-06T09:00:00.000Z'),
  publishedAt: new Date('2026-12-02T09:00:00.000Z'),
  publishAt: null,
  coverImage: { mediaId: MEDIA_ID, alt: 'The harbour' },
  seo: { title: null, description: 'SEO', canonicalUrl: null },
};

const media: Media = {
  id: MEDIA_ID,
  contentType: 'image/jpeg',
  width: 800,
  height: 400,
  bytes: 1000,
  sha256: 'a'.repeat(64),
  sourceSha256: 'f'.repeat(64),
  alt: 'Library alt',
  caption: '',
  createdAt: new Date('2026-12-01T09:00:00.000Z'),
  files: [{ name: 'original.jpg', contentType: 'image/jpeg', width: 800, height: 400, bytes: 1000, sha256: 'a'.repeat(64) }],
};

describe('contentPostPresenter', () => {
  it('shows a post as GET /content/posts/{id} does: no version or status, its cover looked up by id', async () => {
    const asked: string[][] = [];
    const present = contentPostPresenter(async (ids) => {
      asked.push(ids);
      return new Map([[MEDIA_ID, media]]);
    }, API);
    expect(await present(post)).toStrictEqual({
      id: post.id,
      title: post.title,
      slug: post.slug,
      excerpt: post.excerpt,
      tags: ['api'],
      wordCount: 2,
      coverImage: toContentCover(post.coverImage!, media, API),
      seo: { title: null, description: 'SEO', canonicalUrl: null },
      publishedAt: '2026-12-02T09:00:00.000Z',
      updatedAt: '2026-12-06T09:00:00.000Z',
      body: '# Hi',
    });
    expect(asked).toEqual([[MEDIA_ID]]);
  });

  it('shows a cover whose media is gone as null, and looks nothing up for a post without one', async () => {
    const asked: string[][] = [];
    const present = contentPostPresenter(async (ids) => {
      asked.push(ids);
      return new Map();
    }, API);
    expect(await present(post)).toMatchObject({ coverImage: null });
    expect(await present({ ...post, coverImage: null })).toMatchObject({ coverImage: null });
    expect(asked).toEqual([[MEDIA_ID], []]);
  });
});
