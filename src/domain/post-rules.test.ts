import { describe, expect, it } from 'vitest';
import { InvalidTransitionError } from './errors.js';
import { POST_STATUSES, type PostStatus } from './post.js';
import { activityTypeFor, applyStatusChange, transitionFor } from './post-rules.js';

const t0 = new Date('2024-01-01T00:00:00.000Z');
const t1 = new Date('2024-06-01T12:00:00.000Z');

describe('applyStatusChange', () => {
  it('sets publishedAt to now on the first publish', () => {
    expect(applyStatusChange({ status: 'draft', publishedAt: null }, 'published', t1)).toEqual({
      status: 'published',
      publishedAt: t1,
    });
  });

  it('keeps publishedAt null when a never-published post is archived or stays a draft', () => {
    expect(applyStatusChange({ status: 'draft', publishedAt: null }, 'archived', t1)).toEqual({
      status: 'archived',
      publishedAt: null,
    });
    expect(applyStatusChange({ status: 'draft', publishedAt: null }, 'draft', t1).publishedAt).toBeNull();
  });

  it('keeps the original publishedAt when a post is unpublished', () => {
    expect(applyStatusChange({ status: 'published', publishedAt: t0 }, 'draft', t1)).toEqual({
      status: 'draft',
      publishedAt: t0,
    });
  });

  it('keeps the original publishedAt when a post is republished', () => {
    expect(applyStatusChange({ status: 'draft', publishedAt: t0 }, 'published', t1).publishedAt).toEqual(t0);
    expect(applyStatusChange({ status: 'archived', publishedAt: t0 }, 'published', t1).publishedAt).toEqual(t0);
  });

  it('returns a Date that does not alias the input or now', () => {
    const first = applyStatusChange({ status: 'draft', publishedAt: null }, 'published', t1);
    expect(first.publishedAt).not.toBe(t1);
    const post = { status: 'published' as const, publishedAt: t0 };
    expect(applyStatusChange(post, 'draft', t1).publishedAt).not.toBe(t0);
  });
});

describe('activityTypeFor', () => {
  it('reports "published" when a draft or archived post becomes published', () => {
    expect(activityTypeFor('draft', 'published')).toBe('published');
    expect(activityTypeFor('archived', 'published')).toBe('published');
  });

  it('reports "unpublished" when a published post goes back to draft', () => {
    expect(activityTypeFor('published', 'draft')).toBe('unpublished');
  });

  it('reports "archived" when any other status becomes archived', () => {
    expect(activityTypeFor('draft', 'archived')).toBe('archived');
    expect(activityTypeFor('published', 'archived')).toBe('archived');
  });

  it('reports "updated" when an archived post is restored to draft', () => {
    expect(activityTypeFor('archived', 'draft')).toBe('updated');
  });

  it('reports "updated" when the status does not change', () => {
    for (const status of POST_STATUSES) {
      expect(activityTypeFor(status, status)).toBe('updated');
    }
  });
});

describe('transitionFor', () => {
  it('publishes drafts and archived posts', () => {
    expect(transitionFor('publish', 'draft')).toBe('published');
    expect(transitionFor('publish', 'archived')).toBe('published');
  });

  it('refuses to publish an already published post', () => {
    expect(() => transitionFor('publish', 'published')).toThrow(InvalidTransitionError);
  });

  it('unpublishes a published post to draft', () => {
    expect(transitionFor('unpublish', 'published')).toBe('draft');
  });

  it('refuses to unpublish a post that is not published', () => {
    for (const from of ['draft', 'archived'] as const) {
      expect(() => transitionFor('unpublish', from)).toThrow(InvalidTransitionError);
    }
  });

  it('archives drafts and published posts', () => {
    expect(transitionFor('archive', 'draft')).toBe('archived');
    expect(transitionFor('archive', 'published')).toBe('archived');
  });

  it('refuses to archive an already archived post', () => {
    expect(() => transitionFor('archive', 'archived')).toThrow(InvalidTransitionError);
  });

  it('records the status and action on the transition error', () => {
    let caught: unknown;
    try {
      transitionFor('archive', 'archived');
    } catch (e) {
      caught = e;
    }
    expect(caught).toMatchObject({ code: 'invalid_transition', from: 'archived', action: 'archive' });
  });

  it('leaves the status unchanged for delete and tag actions', () => {
    for (const from of POST_STATUSES) {
      for (const action of ['delete', 'addTag', 'removeTag'] as const) {
        expect(transitionFor(action, from as PostStatus)).toBe(from);
      }
    }
  });
});
