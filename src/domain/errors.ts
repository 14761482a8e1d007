import type { BulkAction, Post, PostStatus } from './post.js';
import type { MediaUse } from './media.js';

/** Every code a domain error can carry. Transport adapters map these to responses. */
export const DOMAIN_ERROR_CODES = [
  'not_found',
  'slug_taken',
  'duplicate_id',
  'version_conflict',
  'precondition_failed',
  'invalid_cursor',
  'validation',
  'invalid_transition',
  'idempotency_key_in_flight',
  'idempotency_key_reused',
  'invalid_credentials',
  'invalid_token',
  'invalid_refresh_token',
  'too_many_attempts',
  'unavailable',
  'media_refused',
  'media_in_use',
  'webhook_limit_reached',
  'preview_link_limit_reached',
] as const;

export type DomainErrorCode = (typeof DOMAIN_ERROR_CODES)[number];

/**
 * Base of the closed set of domain errors. Carries a stable `code` and a
 * human-readable message without internals; knows nothing about HTTP.
 */
export abstract class DomainError extends Error {
  abstract readonly code: DomainErrorCode;

  protected constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

export function isDomainError(e: unknown): e is DomainError {
  return e instanceof DomainError;
}

export type NotFoundEntity = 'post' | 'revision' | 'user' | 'media' | 'webhook' | 'delivery' | 'previewLink';

const ENTITY_LABEL: Record<NotFoundEntity, string> = {
  media: 'Media',
  post: 'Post',
  revision: 'Revision',
  user: 'User',
  webhook: 'Webhook',
  delivery: 'Webhook delivery',
  previewLink: 'Preview link',
};

export class NotFoundError extends DomainError {
  readonly code = 'not_found' as const;

  constructor(
    readonly entity: NotFoundEntity,
    readonly id: string,
  ) {
    super(`${ENTITY_LABEL[entity]} '${id}' was not found.`);
  }
}

export class SlugTakenError extends DomainError {
  readonly code = 'slug_taken' as const;

  constructor(
    readonly slug: string,
    readonly suggestedSlug?: string,
  ) {
    super(
      suggestedSlug === undefined
        ? `The slug '${slug}' is already in use.`
        : `The slug '${slug}' is already in use; '${suggestedSlug}' is available.`,
    );
  }
}

export class DuplicateIdError extends DomainError {
  readonly code = 'duplicate_id' as const;

  constructor(readonly id: string) {
    super(`A resource with id '${id}' already exists.`);
  }
}

export class VersionConflictError extends DomainError {
  readonly code = 'version_conflict' as const;

  /**
   * @param expected the version the client based its change on
   * @param actual the current version, or null when it is not known
   */
  constructor(
    readonly expected: number,
    readonly actual: number | null,
  ) {
    super(
      actual === null
        ? `The resource was modified since version ${expected}.`
        : `Version ${expected} is out of date; the current version is ${actual}.`,
    );
  }
}

/**
 * A conditional write (If-Match) that names no version the post is at now. Carries the post as it
 * is, so that the answer can hand it to the client to merge and retry.
 */
export class PreconditionFailedError extends DomainError {
  readonly code = 'precondition_failed' as const;

  /**
   * @param expected the versions the client based its change on (empty when it sent `*`, or named
   *   no version at all)
   * @param current the post as it is now
   * @param keptChanging the post still matched, but every attempt lost a race to another write
   */
  constructor(
    readonly expected: readonly number[],
    readonly current: Post,
    readonly keptChanging = false,
  ) {
    super(
      keptChanging
        ? `The post kept changing while the write was retried; the current version is ${current.version}.`
        : expected.length === 0
          ? `The request names no version of the post; the current version is ${current.version}.`
          : `Version ${expected.join(', ')} is not the current version, ${current.version}.`,
    );
  }
}

export class InvalidCursorError extends DomainError {
  readonly code = 'invalid_cursor' as const;

  constructor(readonly reason: string) {
    super(`The pagination cursor is invalid: ${reason}.`);
  }
}

/** One problem with the input; `pointer` is a JSON Pointer into it, e.g. `/tags/3`. */
export interface ValidationIssue {
  pointer: string;
  message: string;
}

/**
 * What a use case was given that the pointers of a `ValidationError` point into: the fields of a
 * write (`input`) or the filters and paging of a read (`query`). A transport maps each to the part
 * of its request that carried it.
 */
export type ValidationSource = 'input' | 'query';

export class ValidationError extends DomainError {
  readonly code = 'validation' as const;
  readonly issues: readonly ValidationIssue[];

  constructor(
    issues: readonly ValidationIssue[],
    readonly source: ValidationSource = 'input',
  ) {
    super(
      issues.length === 1
        ? `Invalid input at ${issues[0]!.pointer}: ${issues[0]!.message}`
        : `Invalid input: ${issues.length} problems found.`,
    );
    this.issues = issues.map((issue) => ({ ...issue }));
  }
}

export class InvalidTransitionError extends DomainError {
  readonly code = 'invalid_transition' as const;

  constructor(
    readonly from: PostStatus,
    readonly action: BulkAction,
  ) {
    super(`Cannot ${action} a post that is ${from}.`);
  }
}

export class IdempotencyKeyInFlightError extends DomainError {
  readonly code = 'idempotency_key_in_flight' as const;

  /** `retryAfterSeconds`: when to ask again (at least 1); never the lease, which only bounds a crashed holder. */
  constructor(readonly retryAfterSeconds = 1) {
    super('A request with this idempotency key is still being processed.');
  }
}

/** The idempotency key was already used for a request with a different fingerprint. */
export class IdempotencyKeyReusedError extends DomainError {
  readonly code = 'idempotency_key_reused' as const;

  constructor() {
    super('This idempotency key was already used for a different request.');
  }
}

export class InvalidCredentialsError extends DomainError {
  readonly code = 'invalid_credentials' as const;

  constructor() {
    super('The email or password is wrong.');
  }
}

export class InvalidTokenError extends DomainError {
  readonly code = 'invalid_token' as const;

  /**
   * @param reason short machine-friendly reason such as 'missing', 'expired', 'malformed' or
   *   'session ended'; only 'missing' (no token was sent) and 'session ended' (a password reset or
   *   a logout everywhere since it was issued) change the message
   */
  constructor(readonly reason: string) {
    super(
      reason === 'missing'
        ? 'A bearer token is required.'
        : reason === 'session ended'
          ? 'The session of this access token has ended; log in again.'
          : 'The access token is invalid or has expired.',
    );
  }
}

/** A refresh token that is unknown, expired, revoked, or reused after its grace window. */
export class InvalidRefreshTokenError extends DomainError {
  readonly code = 'invalid_refresh_token' as const;

  /** @param reason 'unknown' | 'expired' | 'revoked' | 'reused' | 'unknown user'; not part of the message */
  constructor(readonly reason: string) {
    super(
      reason === 'reused'
        ? 'This refresh token was already used; every token of its login has been revoked. Log in again.'
        : 'The refresh token is invalid, expired or revoked. Log in again.',
    );
  }
}

export class TooManyAttemptsError extends DomainError {
  readonly code = 'too_many_attempts' as const;

  /** @param limit which limit refused: failed logins from the address, or for the account */
  constructor(
    readonly retryAfterSeconds: number,
    readonly limit?: 'address' | 'account',
  ) {
    super(
      limit === undefined
        ? `Too many attempts; try again in ${retryAfterSeconds} seconds.`
        : `Too many failed logins ${limit === 'address' ? 'from this address' : 'for this account'}; try again in ${retryAfterSeconds} seconds.`,
    );
  }
}

/** The backing store (database, pool) is temporarily unavailable. */
export class UnavailableError extends DomainError {
  readonly code = 'unavailable' as const;

  /** Pass the underlying failure as `cause`; it never reaches the message. */
  constructor(
    readonly retryAfterSeconds: number,
    message = 'The service is temporarily unavailable.',
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** The closed set, as a union: switch on `code` to narrow. */
export type AnyDomainError =
  | NotFoundError
  | SlugTakenError
  | DuplicateIdError
  | VersionConflictError
  | PreconditionFailedError
  | InvalidCursorError
  | ValidationError
  | InvalidTransitionError
  | IdempotencyKeyInFlightError
  | IdempotencyKeyReusedError
  | InvalidCredentialsError
  | InvalidTokenError
  | InvalidRefreshTokenError
  | TooManyAttemptsError
  | UnavailableError
  | MediaRefusedError
  | MediaInUseError
  | WebhookLimitReachedError
  | PreviewLinkLimitReachedError;

/**
 * Why an image is not taken: its bytes are none of `MEDIA_TYPES` (`unsupported-type`), it is
 * larger than allowed (`too-many-bytes`), its header declares more pixels than allowed
 * (`too-many-pixels`, found before it is decoded), or it cannot be decoded whole (`unreadable`).
 */
export type MediaRefusal = 'unsupported-type' | 'too-many-bytes' | 'too-many-pixels' | 'unreadable';

export class MediaRefusedError extends DomainError {
  readonly code = 'media_refused' as const;

  constructor(
    readonly reason: MediaRefusal,
    message: string,
  ) {
    super(message);
  }
}

/** A media still shown by posts (as a cover or in a body) was asked to be deleted without `force`. */
export class MediaInUseError extends DomainError {
  readonly code = 'media_in_use' as const;

  constructor(
    readonly mediaId: string,
    readonly posts: readonly MediaUse[],
  ) {
    super(
      `Media '${mediaId}' is shown by ${posts.length === 1 ? 'a post' : `${posts.length} posts`}; delete it with force=true to delete it anyway.`,
    );
  }
}

/** A subscription asked for while the site has `limit` already (`WEBHOOK_SUBSCRIPTIONS_MAX`): nothing was created. */
export class WebhookLimitReachedError extends DomainError {
  readonly code = 'webhook_limit_reached' as const;

  constructor(readonly limit: number) {
    super(`The server already has ${limit} webhook subscriptions, its limit; delete one to add another.`);
  }
}

/** A preview link asked for while its post has `limit` active ones already (`PREVIEW_LINKS_ACTIVE_MAX`): nothing was created. */
export class PreviewLinkLimitReachedError extends DomainError {
  readonly code = 'preview_link_limit_reached' as const;

  constructor(readonly limit: number) {
    super(`This post has ${limit} active preview links, the most it may have; revoke one before creating another.`);
  }
}
