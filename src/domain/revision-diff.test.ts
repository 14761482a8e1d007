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
};

describe('compareStates', () => {
  it('reports nothing changed for two equal states, whatever their versions', () => {
    const result = compareStates(base, { ...base, version: 7, tags: [...base.tags] });
    expect(result.changed).toEqual([]);
    expect(result.tags).toEqual({ changed: false, added: [], removed: [] });
    expect(result.bodyChanged).toBe(false);
    expect(result.title).toEqual({ changed: false, from: base.title, to: base.title });
  });

  it('lists every changed field in the fixed order title, slug, excerpt, status, tags, body', () => {
    const to: PostState = { version: 1, title: 'Cursors', slug: 'cursors', excerpt: '', body: 'Draft.\n', tags: ['api'], status: 'draft' };
    const result = compareStates(base, to);
    expect(result.changed).toEqual(['title', 'slug', 'excerpt', 'status', 'tags', 'body']);
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
});
