import type { AnyDomainError, DomainError, DomainErrorCode } from '../../domain/index.js';
import type { ArchiveRefused } from '../../site-files/zip.js';
import { etagOf, toApiPost } from './mappers.js';
import { HttpProblem } from './problem.js';

/** The challenge of every 401 about the access token (RFC 6750 §3). */
/** The challenge to a token that was sent and is no good (forged, expired, its session ended). */
export const BEARER_CHALLENGE = 'Bearer realm="margin-cms", error="invalid_token"';
/** The challenge to a request that sent no bearer token: no error code (RFC 6750 §3.1). */
export const NO_CREDENTIALS_CHALLENGE = 'Bearer realm="margin-cms"';

/** Where each kind of use-case input travels in a request. */
const REQUEST_PART = { input: '/body', query: '/query' } as const;

type Mapper = (error: never) => HttpProblem;

/**
 * The one table from domain errors to HTTP problems. A domain error code without a row here fails
 * `tsc`, so a new error cannot reach a client as a bare 500.
 */
const table: { [C in DomainErrorCode]: (error: Extract<AnyDomainError, { code: C }>) => HttpProblem } = {
  not_found: (e) => new HttpProblem(404, 'not-found', e.message),
  slug_taken: (e) => new HttpProblem(409, 'slug-taken', e.message, e.suggestedSlug ? { suggestedSlug: e.suggestedSlug } : {}),
  duplicate_id: (e) => new HttpProblem(500, 'internal-error', e.message),
  // A write that lost a race is retried or turned into precondition_failed by its use case; one
  // that reaches the transport is a bug.
  version_conflict: (e) => new HttpProblem(500, 'internal-error', e.message),
  precondition_failed: (e) =>
    new HttpProblem(
      412,
      'precondition-failed',
      e.keptChanging
        ? e.message
        : e.expected.length === 0
          ? // If-Match named no strong ETag of this server's (`*` always matches an existing post).
            `If-Match names no strong ETag of this post; weak tags (W/"…") never match, as If-Match uses the strong comparison (RFC 9110 §13.1.1). The current ETag is ${etagOf(e.current.version)}.`
          : `If-Match ${e.expected.map(etagOf).join(', ')} does not match the current version ${e.current.version}.`,
      { current: toApiPost(e.current) },
      { etag: etagOf(e.current.version) },
    ),
  invalid_cursor: (e) =>
    new HttpProblem(422, 'validation-failed', e.message, {
      errors: [{ pointer: '/query/cursor', message: e.message }],
    }),
  validation: (e) =>
    new HttpProblem(422, 'validation-failed', e.message, {
      errors: e.issues.map((i) => ({ pointer: REQUEST_PART[e.source] + i.pointer, message: i.message })),
    }),
  invalid_transition: (e) =>
    new HttpProblem(422, 'validation-failed', e.message, {
      errors: [{ pointer: '/body/status', message: e.message }],
    }),
  idempotency_key_in_flight: (e) =>
    new HttpProblem(409, 'idempotency-key-in-flight', e.message, {}, { 'retry-after': String(e.retryAfterSeconds) }),
  idempotency_key_reused: (e) =>
    new HttpProblem(422, 'idempotency-key-reused', e.message, {
      errors: [{ pointer: '/headers/idempotency-key', message: 'was used with a different request body' }],
    }),
  invalid_credentials: (e) => new HttpProblem(401, 'invalid-credentials', e.message),
  invalid_token: (e) =>
    new HttpProblem(
      401,
      'unauthorized',
      e.message,
      {},
      { 'www-authenticate': e.reason === 'missing' ? NO_CREDENTIALS_CHALLENGE : BEARER_CHALLENGE },
    ),
  invalid_refresh_token: (e) => new HttpProblem(401, 'invalid-refresh-token', e.message),
  too_many_attempts: (e) => new HttpProblem(429, 'too-many-attempts', e.message, {}, { 'retry-after': String(e.retryAfterSeconds) }),
  unavailable: (e) => new HttpProblem(503, 'service-unavailable', e.message, {}, { 'retry-after': String(e.retryAfterSeconds) }),
  media_refused: (e) =>
    e.reason === 'unsupported-type'
      ? new HttpProblem(415, 'unsupported-media-type', e.message)
      : e.reason === 'too-many-bytes'
        ? new HttpProblem(413, 'payload-too-large', e.message)
        : new HttpProblem(422, 'media-refused', e.message, { reason: e.reason }),
  media_in_use: (e) =>
    new HttpProblem(409, 'media-in-use', e.message, { posts: e.posts.map((p) => ({ id: p.postId, title: p.title, slug: p.slug })) }),
  webhook_limit_reached: (e) => new HttpProblem(409, 'webhook-limit-reached', e.message),
  preview_link_limit_reached: (e) => new HttpProblem(422, 'preview-link-limit-reached', e.message, { limit: e.limit }),
};

export function problemFromDomainError(error: DomainError): HttpProblem {
  return (table[error.code] as Mapper)(error as never);
}

/** An import archive the site files refuse: 422 `archive-refused`, with the reason and the entry at fault; nothing was written. */
export function problemFromRefusal(error: ArchiveRefused): HttpProblem {
  return new HttpProblem(422, 'archive-refused', `The archive is refused and nothing was imported: ${error.message}.`, {
    reason: error.reason,
    entry: error.entry,
  });
}
