import { describe, expect, it } from 'vitest';
import type { Post } from '../domain/index.js';
import { splitFrontMatter } from './front-matter.js';
import { postBundleDir, postFileName, postFileOf, postFilePath, postOfFile } from './post-file.js';

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

  it('sits at the top of a flat export, under content/posts/ in a Hugo one, as index.md of its folder when a bundle', () => {
    expect(postFilePath(post, 'flat')).toBe('tom-jerry.md');
    expect(postFilePath(post, 'hugo')).toBe('content/posts/tom-jerry.md');
    expect(postBundleDir(post)).toBe('content/posts/tom-jerry');
    expect(postFilePath(post, 'hugo', true)).toBe('content/posts/tom-jerry/index.md');
    expect(postFilePath({ ...post, slug: 'a--b' }, 'hugo', true)).toBe('content/posts/01ARZ3NDEKTSV4RRFFQ69G5FAV/index.md');
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

  const seo = {
    title: 'Tom & Jerry, the SEO title',
    description: 'What "link previews" show.',
    canonicalUrl: 'https://example.com/a?b=1&c=2',
  };

  /** The front matter of a file `postFileOf` wrote, parsed. */
  function frontOf(text: string): Record<string, unknown> {
    const split = splitFrontMatter(text);
    if ('error' in split) throw new Error(split.error);
    return split.data;
  }

  it('writes the SEO fields as seo_title, seo_description and canonical_url in flat and Hugo files, each only when set; a standalone file has none', () => {
    for (const layout of ['flat', 'hugo'] as const) {
      expect(frontOf(postFileOf({ ...post, seo }, layout))).toMatchObject({
        seo_title: seo.title,
        seo_description: seo.description,
        canonical_url: seo.canonicalUrl,
      });
      const some = frontOf(postFileOf({ ...post, seo: { title: null, description: null, canonicalUrl: seo.canonicalUrl } }, layout));
      expect(Object.keys(some).filter((key) => /seo|canonical/.test(key))).toEqual(['canonical_url']);
      expect(Object.keys(frontOf(postFileOf(post, layout))).filter((key) => /seo|canonical/.test(key))).toEqual([]);
    }
    expect(Object.keys(frontOf(postFileOf({ ...post, seo }, 'standalone'))).filter((key) => /seo|canonical/.test(key))).toEqual([]);
  });

  it('reads the SEO fields back, absent ones as null, so that export → import → export writes the same file (flat and Hugo)', () => {
    for (const layout of ['flat', 'hugo'] as const) {
      for (const state of [seo, { title: null, description: 'Only this', canonicalUrl: null }, post.seo]) {
        const text = postFileOf({ ...post, seo: state }, layout);
        const imported = postOfFile(frontOf(text), post.body, post.slug);
        expect(imported.seo).toStrictEqual(state);
        expect(postFileOf({ ...post, seo: imported.seo! }, layout)).toBe(text);
      }
    }
  });
});
