import { describe, expect, it } from 'vitest';
import { compareStates, type PostState } from './revision-diff.js';

const base: PostState = {
  version: 3,
  title: 'Cursor pagination without tears',
  slug: 'cursor-pagination-without-tears',
  excerpt: 'Why offsets skip rows.',
  body: '# Cursors\n\nOffsets skip rows.\n',
  tags: ['api', 'postgres'],
  status: 'published',
  coverImage: { mediaId: 'aaaaaaaaaaaaaaaaaaaaaaaaaa', alt: 'A cursor' },
  seo: { title: 'Cursors', description: null, canonicalUrl: null },
};

describe('compareStates', () => {
  it('reports nothing changed for two equal states, whatever their versions', () => {
    const result = compareStates(base, { ...base, version: 7, tags: [...base.tags] });
    expect(result.changed).toEqual([]);
    expect(result.tags).toEqual({ changed: false, added: [], removed: [] });
    expect(result.bodyChanged).toBe(false);
    expect(result.title).toEqual({ changed: false, from: base.title, to: base.title });
  });

  it('lists every changed field in the fixed order title, slug, excerpt, status, tags, coverImage, seo, body', () => {
    const to: PostState = {
      version: 1,
      title: 'Cursors',
      slug: 'cursors',
      excerpt: '',
      body: 'Draft.\n',
      tags: ['api'],
      status: 'draft',
      coverImage: null,
      seo: { title: null, description: null, canonicalUrl: null },
    };
    const result = compareStates(base, to);
    expect(result.changed).toEqual(['title', 'slug', 'excerpt', 'status', 'tags', 'coverImage', 'seo', 'body']);
    expect(result.status).toEqual({ changed: true, from: 'published', to: 'draft' });
    expect(result.excerpt).toEqual({ changed: true, from: 'Why offsets skip rows.', to: '' });
  });

  it('compares tags as sets: added in the new order, removed in the old, reordering alone is no change', () => {
    expect(compareStates(base, { ...base, tags: ['postgres', 'api'] }).tags).toEqual({ changed: false, added: [], removed: [] });
    const result = compareStates({ ...base, tags: ['a', 'b', 'c'] }, { ...base, tags: ['d', 'c', 'e', 'a'] });
    expect(result.tags).toEqual({ changed: true, added: ['d', 'e'], removed: ['b'] });
    expect(result.changed).toEqual(['tags']);
  });

  it('treats a difference in whitespace or case as a change (exact comparison)', () => {
    expect(compareStates(base, { ...base, title: `${base.title} ` }).changed).toEqual(['title']);
    expect(compareStates(base, { ...base, body: base.body.replace('Offsets', 'offsets') }).changed).toEqual(['body']);
    expect(compareStates(base, { ...base, body: base.body.replace('\n', '\r\n') }).bodyChanged).toBe(true);
  });

  it('compares the cover image as a whole: another media or another alt text is a change, the same values are none', () => {
    const cover = { mediaId: 'aaaaaaaaaaaaaaaaaaaaaaaaaa', alt: 'A cursor' };
    expect(compareStates(base, { ...base, coverImage: { ...cover } }).changed).toEqual([]);
    expect(compareStates(base, { ...base, coverImage: { ...cover, alt: 'A cursor.' } }).changed).toEqual(['coverImage']);
    expect(compareStates(base, { ...base, coverImage: { ...cover, mediaId: 'bbbbbbbbbbbbbbbbbbbbbbbbbb' } }).coverImage).toEqual({
      changed: true,
      from: cover,
      to: { ...cover, mediaId: 'bbbbbbbbbbbbbbbbbbbbbbbbbb' },
    });
    expect(compareStates({ ...base, coverImage: null }, { ...base, coverImage: null }).coverImage.changed).toBe(false);
    expect(compareStates(base, { ...base, coverImage: null }).changed).toEqual(['coverImage']);
  });

  it('compares the SEO fields as one: any of the three differing is a change of seo', () => {
    const seo = base.seo;
    expect(compareStates(base, { ...base, seo: { ...seo } }).changed).toEqual([]);
    expect(compareStates(base, { ...base, seo: { ...seo, title: null } }).changed).toEqual(['seo']);
    expect(compareStates(base, { ...base, seo: { ...seo, description: 'Why.' } }).changed).toEqual(['seo']);
    const moved = { ...seo, canonicalUrl: 'https://example.com/cursors' };
    expect(compareStates(base, { ...base, seo: moved }).seo).toEqual({ changed: true, from: seo, to: moved });
  });
});
