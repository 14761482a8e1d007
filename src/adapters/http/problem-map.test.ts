import { describe, expect, it } from 'vitest';
import { InvalidTokenError, PreconditionFailedError, ValidationError, VersionConflictError, type Post } from '../../domain/index.js';
import { toApiPost } from './mappers.js';
import { BEARER_CHALLENGE, NO_CREDENTIALS_CHALLENGE, problemFromDomainError } from './problem-map.js';

const post: Post = {
  id: '01ARZ3NDEKTSV4RRFFQ69G5FAV',
  title: 'Current',
  slug: 'current',
  excerpt: '',
  body: 'Now.',
  tags: [],
  status: 'draft',
  version: 4,
  wordCount: 1,
  createdAt: new Date('2026-01-01T00:00:00.000Z'),
  updatedAt: new Date('2026-01-02T00:00:00.000Z'),
  publishedAt: null,
  publishAt: null,
  coverImage: null,
  seo: { title: null, description: null, canonicalUrl: null },
};

describe('the problem table', () => {
  it('answers a failed precondition with 412, the current post and its ETag', () => {
    const problem = problemFromDomainError(new PreconditionFailedError([2], post));
    expect(problem.status).toBe(412);
    expect(problem.kind).toBe('precondition-failed');
    expect(problem.extensions).toEqual({ current: toApiPost(post) });
    expect(problem.headers).toEqual({ etag: '"4"' });
    expect(problem.detail).toBe('If-Match "2" does not match the current version 4.');
  });

  it('says a 412 whose If-Match named no strong ETag is about weak tags, and only a write that kept losing races kept changing', () => {
    const named = problemFromDomainError(new PreconditionFailedError([], post));
    expect(named.detail).toBe(
      'If-Match names no strong ETag of this post; weak tags (W/"…") never match, as If-Match uses the strong comparison (RFC 9110 §13.1.1). The current ETag is "4".',
    );
    const raced = problemFromDomainError(new PreconditionFailedError([4], post, true));
    expect(raced.detail).toBe('The post kept changing while the write was retried; the current version is 4.');
    expect([named.status, raced.status]).toEqual([412, 412]);
  });

  it('treats a lost race that reached the transport as a bug, never as a 412 without the current post', () => {
    expect(problemFromDomainError(new VersionConflictError(2, 3)).status).toBe(500);
  });

  it('points validation issues into the part of the request their use case was given', () => {
    const issues = [{ pointer: '/tag', message: 'must not be empty' }];
    expect(problemFromDomainError(new ValidationError(issues, 'query')).extensions).toEqual({
      errors: [{ pointer: '/query/tag', message: 'must not be empty' }],
    });
    expect(problemFromDomainError(new ValidationError(issues)).extensions).toEqual({
      errors: [{ pointer: '/body/tag', message: 'must not be empty' }],
    });
  });

  it('challenges a missing bearer token without an error code and an invalid one with invalid_token (401)', () => {
    const missing = problemFromDomainError(new InvalidTokenError('missing'));
    const expired = problemFromDomainError(new InvalidTokenError('expired'));
    expect([missing.status, expired.status]).toEqual([401, 401]);
    expect(missing.headers).toEqual({ 'www-authenticate': 'Bearer realm="margin-cms"' });
    expect(NO_CREDENTIALS_CHALLENGE).not.toContain('error=');
    expect(expired.headers).toEqual({ 'www-authenticate': 'Bearer realm="margin-cms", error="invalid_token"' });
    expect(BEARER_CHALLENGE).toBe('Bearer realm="margin-cms", error="invalid_token"');
    expect(missing.detail).toBe('A bearer token is required.');
    expect(expired.detail).toBe('The access token is invalid or has expired.');
  });
});
