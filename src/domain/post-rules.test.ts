import { describe, expect, it } from 'vitest';
import { InvalidTransitionError, ValidationError } from './errors.js';
import { isVisibleToReaders, POST_STATUSES, type Post, type PostStatus } from './post.js';
import {
  activityOfChanges,
  activityTypeFor,
  applyStatusChange,
  changesFor,
  checkedPostContent,
  isCanonicalUrl,
  normalizedSeo,
  scheduleAfter,
  scheduleKept,
  transitionFor,
} from './post-rules.js';
import { countWords } from './word-count.js';

const t0 = new Date('2024-01-01T00:00:00.000Z');
const t1 = new Date('2024-06-01T12:00:00.000Z');

describe('applyStatusChange', () => {
  it('sets publishedAt to now on the first publish', () => {
    expect(applyStatusChange({ status: 'draft', publishedAt: null, publishAt: null }, 'published', t1)).toEqual({
      status: 'published',
      publishedAt: t1,
      publishAt: null,
    });
  });

  it('keeps publishedAt null when a never-published post is archived or stays a draft', () => {
    expect(applyStatusChange({ status: 'draft', publishedAt: null, publishAt: null }, 'archived', t1)).toEqual({
      status: 'archived',
      publishedAt: null,
      publishAt: null,
    });
    expect(applyStatusChange({ status: 'draft', publishedAt: null, publishAt: null }, 'draft', t1).publishedAt).toBeNull();
  });

  it('keeps the original publishedAt when a post is unpublished', () => {
    expect(applyStatusChange({ status: 'published', publishedAt: t0, publishAt: null }, 'draft', t1)).toEqual({
      status: 'draft',
      publishedAt: t0,
      publishAt: null,
    });
  });

  it('keeps the original publishedAt when a post is republished', () => {
    expect(applyStatusChange({ status: 'draft', publishedAt: t0, publishAt: null }, 'published', t1).publishedAt).toEqual(t0);
    expect(applyStatusChange({ status: 'archived', publishedAt: t0, publishAt: null }, 'published', t1).publishedAt).toEqual(t0);
  });

  it('keeps the schedule of a draft that stays a draft', () => {
    const scheduled = { status: 'draft' as const, publishedAt: null, publishAt: t1 };
    expect(applyStatusChange(scheduled, 'draft', t0).publishAt).toEqual(t1);
  });

  it('clears the schedule when a scheduled draft is published or archived', () => {
    const scheduled = { status: 'draft' as const, publishedAt: null, publishAt: t1 };
    expect(applyStatusChange(scheduled, 'published', t0)).toEqual({ status: 'published', publishedAt: t0, publishAt: null });
    expect(applyStatusChange(scheduled, 'archived', t0)).toEqual({ status: 'archived', publishedAt: null, publishAt: null });
  });

  it('returns a Date that does not alias the input or now', () => {
    const first = applyStatusChange({ status: 'draft', publishedAt: null, publishAt: null }, 'published', t1);
    expect(first.publishedAt).not.toBe(t1);
    const post = { status: 'published' as const, publishedAt: t0, publishAt: null };
    expect(applyStatusChange(post, 'draft', t1).publishedAt).not.toBe(t0);
  });
});

/** A post in `status` that is not scheduled. */
const at = (status: PostStatus, publishAt: Date | null = null) => ({ status, publishAt });

describe('scheduleAfter', () => {
  it('schedules a draft for a future instant', () => {
    expect(scheduleAfter('draft', null, t1, t0)).toEqual(t1);
  });

  it('refuses a schedule that is not in the future, pointing at publishAt', () => {
    expect(() => scheduleAfter('draft', null, t0, t0)).toThrow(ValidationError);
    expect(() => scheduleAfter('draft', null, t0, t1)).toThrow(/future/);
  });

  it('refuses to schedule a post that is or becomes published or archived', () => {
    for (const status of ['published', 'archived'] as const) {
      try {
        scheduleAfter(status, null, t1, t0);
        expect.unreachable();
      } catch (error) {
        expect(error).toBeInstanceOf(ValidationError);
        expect((error as ValidationError).issues).toEqual([{ pointer: '/publishAt', message: expect.stringContaining(status) }]);
      }
    }
  });

  it('keeps the current schedule of a draft when none is asked for, and drops it for other statuses', () => {
    expect(scheduleAfter('draft', t1, undefined, t0)).toEqual(t1);
    expect(scheduleAfter('published', t1, undefined, t0)).toBeNull();
    expect(scheduleAfter('archived', t1, undefined, t0)).toBeNull();
  });

  it('unschedules with null whatever the status', () => {
    expect(scheduleAfter('draft', t1, null, t0)).toBeNull();
    expect(scheduleAfter('published', null, null, t0)).toBeNull();
  });
});

describe('isVisibleToReaders', () => {
  it('shows a published post from its publishedAt on, never before', () => {
    expect(isVisibleToReaders({ status: 'published', publishedAt: t1 }, t1)).toBe(true);
    expect(isVisibleToReaders({ status: 'published', publishedAt: t1 }, new Date(t1.getTime() - 1))).toBe(false);
  });

  it('hides drafts and archived posts even with a past publishedAt', () => {
    expect(isVisibleToReaders({ status: 'draft', publishedAt: t0 }, t1)).toBe(false);
    expect(isVisibleToReaders({ status: 'archived', publishedAt: t0 }, t1)).toBe(false);
  });
});

describe('activityTypeFor', () => {
  it('reports "scheduled" when a draft gets a publishAt or a different one', () => {
    expect(activityTypeFor(at('draft'), at('draft', t1))).toBe('scheduled');
    expect(activityTypeFor(at('draft', t0), at('draft', t1))).toBe('scheduled');
  });

  it('reports "unscheduled" when a scheduled draft loses its publishAt by an edit', () => {
    expect(activityTypeFor(at('draft', t1), at('draft'))).toBe('unscheduled');
  });

  it('reports "published" and "archived", not "unscheduled", when a scheduled draft changes status', () => {
    expect(activityTypeFor(at('draft', t1), at('published'))).toBe('published');
    expect(activityTypeFor(at('draft', t1), at('archived'))).toBe('archived');
  });

  it('reports "updated" for an edit that keeps the same schedule', () => {
    expect(activityTypeFor(at('draft', t1), at('draft', new Date(t1.getTime())))).toBe('updated');
  });

  it('reports "published" when a draft or archived post becomes published', () => {
    expect(activityTypeFor(at('draft'), at('published'))).toBe('published');
    expect(activityTypeFor(at('archived'), at('published'))).toBe('published');
  });

  it('reports "unpublished" when a published post goes back to draft', () => {
    expect(activityTypeFor(at('published'), at('draft'))).toBe('unpublished');
  });

  it('reports "archived" when any other status becomes archived', () => {
    expect(activityTypeFor(at('draft'), at('archived'))).toBe('archived');
    expect(activityTypeFor(at('published'), at('archived'))).toBe('archived');
  });

  it('reports "updated" when an archived post is restored to draft', () => {
    expect(activityTypeFor(at('archived'), at('draft'))).toBe('updated');
  });

  it('reports "updated" when the status does not change', () => {
    for (const status of POST_STATUSES) {
      expect(activityTypeFor(at(status), at(status))).toBe('updated');
    }
  });
});

describe('changesFor', () => {
  const now = new Date('2024-03-01T00:00:00.000Z');
  const later = new Date('2024-04-01T00:00:00.000Z');
  const post = (over: Partial<Post> = {}): Post => ({
    id: 'P1',
    title: 'Title',
    slug: 'title',
    excerpt: 'Excerpt',
    body: 'Two words',
    tags: ['a', 'b'],
    status: 'draft',
    version: 3,
    wordCount: 2,
    createdAt: t0,
    updatedAt: t0,
    publishedAt: null,
    publishAt: null,
    coverImage: null,
    seo: { title: null, description: null, canonicalUrl: null },
    ...over,
  });

  it('gives only the fields whose value differs: an edit that changes nothing is {}', () => {
    const before = post({ publishAt: later });
    const same = { title: 'Title', slug: 'title', excerpt: 'Excerpt', body: 'Two words', tags: ['a', 'b'], status: 'draft' as const };
    expect(changesFor(before, { ...same, publishAt: new Date(later.getTime()) }, now)).toStrictEqual({});
    expect(changesFor(before, {}, now)).toStrictEqual({});
    expect(changesFor(before, { ...same, title: 'New', excerpt: '' }, now)).toStrictEqual({ title: 'New', excerpt: '' });
  });

  it('counts the words of a changed body', () => {
    const body = 'Three more words, and [a link](https://example.com)';
    expect(changesFor(post(), { body }, now)).toStrictEqual({ body, wordCount: countWords(body) });
  });

  it('compares tags in order: the same tags in another order are a change', () => {
    expect(changesFor(post(), { tags: ['b', 'a'] }, now)).toStrictEqual({ tags: ['b', 'a'] });
    expect(changesFor(post(), { tags: ['a'] }, now)).toStrictEqual({ tags: ['a'] });
  });

  it('stamps publishedAt on the first publish and keeps it on a later unpublish or republish', () => {
    expect(changesFor(post(), { status: 'published' }, now)).toStrictEqual({ status: 'published', publishedAt: now });
    expect(changesFor(post({ status: 'published', publishedAt: t0 }), { status: 'draft' }, now)).toStrictEqual({ status: 'draft' });
    expect(changesFor(post({ publishedAt: t0 }), { status: 'published' }, now)).toStrictEqual({ status: 'published' });
  });

  it('clears publishAt when a scheduled draft is published or archived, and keeps it while it stays a draft', () => {
    const scheduled = post({ publishAt: later });
    expect(changesFor(scheduled, { status: 'published' }, now)).toStrictEqual({ status: 'published', publishedAt: now, publishAt: null });
    expect(changesFor(scheduled, { status: 'archived' }, now)).toStrictEqual({ status: 'archived', publishAt: null });
    expect(changesFor(scheduled, { status: 'draft', title: 'T' }, now)).toStrictEqual({ title: 'T' });
  });

  it('reads an asked publishAt as scheduleAfter does: on a draft and in the future, else a ValidationError at /publishAt', () => {
    expect(changesFor(post(), { publishAt: later }, now)).toStrictEqual({ publishAt: later });
    expect(changesFor(post({ publishAt: later }), { publishAt: null }, now)).toStrictEqual({ publishAt: null });
    expect(() => changesFor(post(), { publishAt: t0 }, now)).toThrow(ValidationError);
    expect(() => changesFor(post(), { status: 'published', publishAt: later }, now)).toThrow(ValidationError);
    const error = (() => {
      try {
        changesFor(post(), { publishAt: t0 }, now);
      } catch (e) {
        return e as ValidationError;
      }
    })();
    expect(error?.issues.map((issue) => issue.pointer)).toStrictEqual(['/publishAt']);
  });

  it('reads a stated publishAt (an import file): a draft keeps any, a past one too; another status none', () => {
    expect(changesFor(post(), { publishAt: t0 }, now, 'stated')).toStrictEqual({ publishAt: t0 });
    expect(changesFor(post(), { status: 'published', publishAt: later }, now, 'stated')).toStrictEqual({
      status: 'published',
      publishedAt: now,
    });
    expect(changesFor(post({ publishAt: later }), { status: 'archived', publishAt: later }, now, 'stated')).toStrictEqual({
      status: 'archived',
      publishAt: null,
    });
  });
});

describe('changesFor: cover image and SEO', () => {
  const now = new Date('2024-03-01T00:00:00.000Z');
  const cover = { mediaId: 'aaaaaaaaaaaaaaaaaaaaaaaaaa', alt: 'A harbour' };
  const post = (over: Partial<Post> = {}): Post => ({
    id: 'P1',
    title: 'Title',
    slug: 'title',
    excerpt: '',
    body: '',
    tags: [],
    status: 'draft',
    version: 3,
    wordCount: 0,
    createdAt: t0,
    updatedAt: t0,
    publishedAt: null,
    publishAt: null,
    coverImage: cover,
    seo: { title: 'Old title', description: 'Old description', canonicalUrl: null },
    ...over,
  });

  it('changes the cover when the edit names another media, another alt text, or none; the same cover is no change', () => {
    expect(changesFor(post(), { coverImage: { ...cover } }, now)).toStrictEqual({});
    expect(changesFor(post(), { coverImage: { ...cover, alt: '' } }, now)).toStrictEqual({ coverImage: { ...cover, alt: '' } });
    expect(changesFor(post(), { coverImage: null }, now)).toStrictEqual({ coverImage: null });
    expect(changesFor(post({ coverImage: null }), { coverImage: null }, now)).toStrictEqual({});
    expect(changesFor(post({ coverImage: null }), { coverImage: cover }, now)).toStrictEqual({ coverImage: cover });
  });

  it('merges the SEO fields an edit gives into the ones it keeps, and changes seo (all three) only when one differs', () => {
    expect(changesFor(post(), { seo: { title: 'New title' } }, now)).toStrictEqual({
      seo: { title: 'New title', description: 'Old description', canonicalUrl: null },
    });
    expect(changesFor(post(), { seo: { description: null, canonicalUrl: 'https://example.com/a' } }, now)).toStrictEqual({
      seo: { title: 'Old title', description: null, canonicalUrl: 'https://example.com/a' },
    });
    expect(changesFor(post(), { seo: { title: 'Old title' } }, now)).toStrictEqual({});
    expect(changesFor(post(), { seo: {} }, now)).toStrictEqual({});
  });

  it('reads an empty SEO string as no value (null)', () => {
    expect(changesFor(post(), { seo: { title: '', description: 'Old description' } }, now)).toStrictEqual({
      seo: { title: null, description: 'Old description', canonicalUrl: null },
    });
    expect(normalizedSeo({ title: '', canonicalUrl: null })).toStrictEqual({ title: null, canonicalUrl: null });
  });

  it('makes a change of either alone an updated edit, as a content change', () => {
    const before = post();
    expect(activityOfChanges(before, changesFor(before, { coverImage: null }, now))).toBe('updated');
    expect(activityOfChanges(before, changesFor(before, { seo: { title: 'T' } }, now))).toBe('updated');
  });
});

describe('checkedPostContent: SEO fields and cover image', () => {
  const issuesOf = (fields: Parameters<typeof checkedPostContent>[0]): string[] => {
    try {
      checkedPostContent(fields);
      return [];
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      return error.issues.map((issue) => issue.pointer);
    }
  };

  it('takes an SEO title of up to 200 characters and a description of up to 500, counting code points', () => {
    expect(issuesOf({ seo: { title: 'é'.repeat(200), description: '😀'.repeat(500) } })).toEqual([]);
    expect(issuesOf({ seo: { title: 'a'.repeat(201), description: 'a'.repeat(501) } })).toEqual(['/seo/title', '/seo/description']);
  });

  it('takes a canonical URL only as an absolute http(s) URL with a host, of up to 2048 characters; empty or null is none', () => {
    for (const url of ['https://example.com/a?b=c#d', 'http://localhost:8080/', '', null]) {
      expect(issuesOf({ seo: { canonicalUrl: url } })).toEqual([]);
    }
    const long = `https://example.com/${'a'.repeat(2048 - 20)}`;
    expect(long).toHaveLength(2048);
    expect(issuesOf({ seo: { canonicalUrl: long } })).toEqual([]);
    for (const url of [
      `${long}a`,
      '/relative/path',
      'example.com/a',
      'ftp://example.com/a',
      'javascript:alert(1)',
      'https://exa mple.com/',
      ' https://example.com/',
      'https://example.com/\n',
      'http://',
    ]) {
      expect(issuesOf({ seo: { canonicalUrl: url } }), url).toEqual(['/seo/canonicalUrl']);
    }
    expect(isCanonicalUrl('HTTPS://EXAMPLE.COM/')).toBe(true);
  });

  it('takes a cover alt text of up to 1000 characters, and refuses unstorable text in every SEO and cover field', () => {
    expect(issuesOf({ coverImage: { mediaId: 'aaaaaaaaaaaaaaaaaaaaaaaaaa', alt: 'a'.repeat(1000) } })).toEqual([]);
    expect(issuesOf({ coverImage: { mediaId: 'aaaaaaaaaaaaaaaaaaaaaaaaaa' } })).toEqual([]);
    expect(issuesOf({ coverImage: null })).toEqual([]);
    expect(issuesOf({ coverImage: { mediaId: 'aaaaaaaaaaaaaaaaaaaaaaaaaa', alt: 'a'.repeat(1001) } })).toEqual(['/coverImage/alt']);
    expect(issuesOf({ coverImage: { mediaId: 'a\u0000', alt: '\ud800' }, seo: { title: 'a\u0000', description: '\udc00' } })).toEqual([
      '/seo/title',
      '/seo/description',
      '/coverImage/mediaId',
      '/coverImage/alt',
    ]);
  });

  it('reports the SEO and cover issues with the others, at once', () => {
    expect(issuesOf({ title: 'a\u0000', tags: ['ok', ''], seo: { canonicalUrl: 'nope' } })).toEqual([
      '/title',
      '/tags/1',
      '/seo/canonicalUrl',
    ]);
  });
});

describe('scheduleKept', () => {
  it('keeps a publishAt on a draft only', () => {
    expect(scheduleKept('draft', t1)).toEqual(t1);
    expect(scheduleKept('published', t1)).toBeNull();
    expect(scheduleKept('archived', t1)).toBeNull();
    expect(scheduleKept('draft', null)).toBeNull();
  });
});

describe('activityOfChanges', () => {
  it('is activityTypeFor of the post the changes leave, absent fields kept', () => {
    expect(activityOfChanges(at('draft', t1), { status: 'published', publishAt: null })).toBe('published');
    expect(activityOfChanges(at('draft', t1), {})).toBe('updated');
    expect(activityOfChanges(at('draft', t1), { publishAt: null })).toBe('unscheduled');
    expect(activityOfChanges(at('draft'), { publishAt: t1 })).toBe('scheduled');
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
