import { baseHeaders, respond } from './response-headers.js';

/** The problem kinds of the contract (`ProblemType` in the spec), by their stable slug. */
const PROBLEM_TYPES = {
  'malformed-request': 'Malformed request',
  'validation-failed': 'Validation failed',
  unauthorized: 'Unauthorized',
  'invalid-credentials': 'Invalid credentials',
  'invalid-refresh-token': 'Invalid refresh token',
  'not-found': 'Not found',
  'method-not-allowed': 'Method not allowed',
  'slug-taken': 'Slug taken',
  'idempotency-key-in-flight': 'Request in progress',
  'idempotency-key-reused': 'Idempotency key reused',
  'precondition-failed': 'Precondition failed',
  'precondition-required': 'Precondition required',
  'payload-too-large': 'Payload too large',
  'archive-refused': 'Archive refused',
  'unsupported-media-type': 'Unsupported media type',
  'media-refused': 'Image refused',
  'media-in-use': 'Media in use',
  'webhook-limit-reached': 'Webhook limit reached',
  'preview-link-limit-reached': 'Preview link limit reached',
  'too-many-attempts': 'Too many attempts',
  'rate-limited': 'Too many requests',
  'internal-error': 'Internal server error',
  'not-implemented': 'Not implemented',
  'service-unavailable': 'Service unavailable',
} as const;

export type ProblemKind = keyof typeof PROBLEM_TYPES;
const PROBLEM_BASE = 'https://margincms.dev/problems/';

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance?: string;
  [extension: string]: unknown;
}

/**
 * An HTTP answer that is an RFC 9457 problem. Thrown by the HTTP layer (and produced from domain
 * errors by the problem map); the app's error handler turns it into the response.
 */
export class HttpProblem extends Error {
  constructor(
    readonly status: number,
    readonly kind: ProblemKind,
    readonly detail: string,
    readonly extensions: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
    this.name = 'HttpProblem';
  }

  body(instance?: string): ProblemBody {
    return {
      type: PROBLEM_BASE + this.kind,
      title: PROBLEM_TYPES[this.kind],
      status: this.status,
      detail: this.detail,
      ...(instance === undefined ? {} : { instance }),
      ...this.extensions,
    };
  }
}

/** The problem as an answer at `instance` (the request path), with the base headers of that path. */
export function problemResponse(problem: HttpProblem, instance: string): Response {
  return respond(JSON.stringify(problem.body(instance)), problem.status, {
    ...baseHeaders(instance),
    'content-type': 'application/problem+json',
    ...Object.fromEntries(Object.entries(problem.headers).map(([name, value]) => [name.toLowerCase(), value])),
  });
}
