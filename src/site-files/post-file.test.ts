import { describe, expect, it } from 'vitest';
import type { Post } from '../domain/index.js';
import { postFileName, postFileOf } from './post-file.js';

const post: Post = {
  id: '01ARZ3NDEKTSV4RRFFQ69G5FAV',
  title: 'Tom & "Jerry": a #1 story',
  slug: 'tom-jerry',
  excerpt: 'Two lines:\nhere',
  body: '# Body\n\nText.',
  tags: ['cats', 'mice'],
  status: 'published',
  version: 3,
  wordCount: 2,
  createdAt: new Date('2026-01-01T00:00:00.000Z'),
  updatedAt: new Date('2026-01-02T00:00:00.000Z'),
  publishedAt: new Date('2026-01-01T12:00:00.000Z'),
  publishAt: null,
  coverImage: null,
  seo: { title: null, description: null, canonicalUrl: null },
};

describe('a post as a markdown file', () => {
  it('is named after its slug', () => {
    expect(postFileName(post)).toBe('tom-jerry.md');
  });

  it('is named after its id when the stored slug is not a valid slug, rather than refusing the export', () => {
    expect(postFileName({ ...post, slug: 'Bad Slug"; x=' })).toBe('01ARZ3NDEKTSV4RRFFQ69G5FAV.md');
    expect(postFileName({ ...post, slug: 'a--b' })).toBe('01ARZ3NDEKTSV4RRFFQ69G5FAV.md');
  });

  it('carries front matter a YAML parser reads back, then the body unchanged', async () => {
    const { parse } = await import('yaml');
    const text = postFileOf(post, 'standalone');
    const [, front, body] = /^---\n([\s\S]*?)---\n([\s\S]*)$/.exec(text)!;
    expect(parse(front!)).toEqual({
      title: post.title,
      description: post.excerpt,
      date: '2026-01-01T12:00:00.000Z',
      tags: ['cats', 'mice'],
      slug: 'tom-jerry',
    });
    expect(body).toBe(post.body);
  });
});
