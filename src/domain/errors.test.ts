import { describe, expect, it } from 'vitest';
import {
  DOMAIN_ERROR_CODES,
  DomainError,
  DuplicateIdError,
  IdempotencyKeyInFlightError,
  IdempotencyKeyReusedError,
  InvalidCredentialsError,
  InvalidCursorError,
  InvalidTokenError,
  InvalidRefreshTokenError,
  InvalidTransitionError,
  isDomainError,
  NotFoundError,
  PreconditionFailedError,
  SlugTakenError,
  TooManyAttemptsError,
  UnavailableError,
  MediaRefusedError,
  MediaInUseError,
  ValidationError,
  VersionConflictError,
  WebhookLimitReachedError,
  PreviewLinkLimitReachedError,
} from './errors.js';

const examples: DomainError[] = [
  new NotFoundError('post', '01ARZ3NDEKTSV4RRFFQ69G5FAV'),
  new SlugTakenError('hello', 'hello-2'),
  new DuplicateIdError('01ARZ3NDEKTSV4RRFFQ69G5FAV'),
  new VersionConflictError(3, 4),
  new PreconditionFailedError([3], {
    id: '01ARZ3NDEKTSV4RRFFQ69G5FAV',
    title: 'Now',
    slug: 'now',
    excerpt: '',
    body: '',
    tags: [],
    status: 'draft',
    version: 4,
    wordCount: 0,
    createdAt: new Date(0),
    updatedAt: new Date(0),
    publishedAt: null,
    publishAt: null,
    coverImage: null,
    seo: { title: null, description: null, canonicalUrl: null },
  }),
  new InvalidCursorError('malformed'),
  new ValidationError([{ pointer: '/title', message: 'Title must not be empty.' }]),
  new InvalidTransitionError('published', 'publish'),
  new IdempotencyKeyInFlightError(),
  new IdempotencyKeyReusedError(),
  new InvalidCredentialsError(),
  new InvalidTokenError('expired'),
  new InvalidRefreshTokenError('reused'),
  new TooManyAttemptsError(30),
  new UnavailableError(5),
  new MediaRefusedError('too-many-pixels', 'The image declares 100,000,000 pixels; at most 50,000,000 are allowed.'),
  new MediaInUseError('abc', [{ postId: '01ARZ3NDEKTSV4RRFFQ69G5FAV', title: 'Hello', slug: 'hello' }]),
  new WebhookLimitReachedError(50),
  new PreviewLinkLimitReachedError(20),
];

describe('domain errors', () => {
  it('cover every declared code exactly once', () => {
    expect(examples.map((e) => e.code).sort()).toEqual([...DOMAIN_ERROR_CODES].sort());
  });

  it('are Errors recognised by isDomainError, named after their class', () => {
    for (const e of examples) {
      expect(e).toBeInstanceOf(Error);
      expect(isDomainError(e)).toBe(true);
      expect(e.name).toBe(e.constructor.name);
      expect(e.message.length).toBeGreaterThan(0);
    }
  });

  it('does not treat plain errors or error-shaped objects as domain errors', () => {
    expect(isDomainError(new Error('x'))).toBe(false);
    expect(isDomainError({ code: 'not_found', message: 'x' })).toBe(false);
    expect(isDomainError(undefined)).toBe(false);
  });

  it('carry no HTTP status', () => {
    for (const e of examples) {
      expect(e).not.toHaveProperty('status');
      expect(e).not.toHaveProperty('statusCode');
    }
  });

  it('expose their details as fields', () => {
    expect(new NotFoundError('revision', 'r1')).toMatchObject({ entity: 'revision', id: 'r1' });
    expect(new SlugTakenError('hello')).toMatchObject({ slug: 'hello', suggestedSlug: undefined });
    expect(new VersionConflictError(2, null)).toMatchObject({ expected: 2, actual: null });
    expect(new TooManyAttemptsError(60).retryAfterSeconds).toBe(60);
    expect(new InvalidTokenError('malformed').reason).toBe('malformed');
  });

  it('names the missing entity and id in the not-found message', () => {
    expect(new NotFoundError('post', 'abc').message).toBe("Post 'abc' was not found.");
  });

  it('copies validation issues so later mutation of the input does not leak in', () => {
    const issues = [{ pointer: '/tags/0', message: 'Tag must not be empty.' }];
    const error = new ValidationError(issues);
    issues[0]!.pointer = '/changed';
    expect(error.issues).toEqual([{ pointer: '/tags/0', message: 'Tag must not be empty.' }]);
  });

  it('summarises several validation issues in the message', () => {
    const error = new ValidationError([
      { pointer: '/a', message: 'x' },
      { pointer: '/b', message: 'y' },
    ]);
    expect(error.message).toBe('Invalid input: 2 problems found.');
  });

  it('keeps the underlying cause of unavailability out of the message', () => {
    const cause = new Error('connect ECONNREFUSED 10.0.0.5:5432');
    const error = new UnavailableError(5, undefined, { cause });
    expect(error.cause).toBe(cause);
    expect(error.message).toBe('The service is temporarily unavailable.');
    expect(error.retryAfterSeconds).toBe(5);
  });
});
