import { createHash } from 'node:crypto';

/** How long browsers and shared caches may keep a content answer (Cache-Control). */
export interface CachePolicy {
  maxAgeSeconds: number;
  staleWhileRevalidateSeconds: number;
}

/** `public, max-age=…, stale-while-revalidate=…`. */
export function cacheControlOf(policy: CachePolicy): string {
  return `public, max-age=${policy.maxAgeSeconds}, stale-while-revalidate=${policy.staleWhileRevalidateSeconds}`;
}

/**
 * A strong ETag of a representation: 128 bits of its SHA-256, base64url, quoted. Equal bytes give
 * equal tags on every process, so a CDN in front of several servers revalidates with any of them.
 */
export function strongEtagOf(representation: string): string {
  return `"${createHash('sha256').update(representation).digest('base64url').slice(0, 22)}"`;
}

/** An HTTP date (IMF-fixdate, RFC 9110 §5.6.7): `Tue, 01 Dec 2026 10:00:00 GMT`. */
export function httpDateOf(instant: Date): string {
  return instant.toUTCString();
}

/** Whether an If-None-Match header is `*` or lists `etag`, under the weak comparison (RFC 9110 §8.8.3.2). */
export function ifNoneMatchHas(header: string, etag: string): boolean {
  if (header.trim() === '*') return true;
  const opaque = etag.replace(/^W\//, '');
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === opaque);
}

const IMF_FIXDATE = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/;

/**
 * Whether a GET or HEAD may be answered 304 (RFC 9110 §13.2.2): If-None-Match decides when sent
 * (`*` or any listed tag equal to `etag` under the weak comparison); otherwise If-Modified-Since,
 * when it is a valid HTTP date, holds when the representation has not changed since (compared in
 * whole seconds, the precision of HTTP dates). A value that is not an HTTP date is ignored.
 */
export function isNotModified(
  conditions: { ifNoneMatch?: string | undefined; ifModifiedSince?: string | undefined },
  etag: string,
  lastModified: Date,
): boolean {
  if (conditions.ifNoneMatch !== undefined) return ifNoneMatchHas(conditions.ifNoneMatch, etag);
  const since = conditions.ifModifiedSince?.trim();
  if (since === undefined || !IMF_FIXDATE.test(since)) return false;
  const sinceMs = Date.parse(since);
  if (Number.isNaN(sinceMs) || httpDateOf(new Date(sinceMs)) !== since) return false; // e.g. 31 Feb
  return Math.floor(lastModified.getTime() / 1000) * 1000 <= sinceMs;
}

/** The conditional request headers every content operation declares. */
export interface Conditions {
  'if-none-match'?: string;
  'if-modified-since'?: string;
}

/**
 * Conditional answers under `policy`: every one public and cacheable, with `etag` naming the bytes
 * sent and a Last-Modified; 200 with `body`, or 304 when the request's conditions hold (see
 * `isNotModified`).
 */
export function conditionalAnswers(policy: CachePolicy) {
  const cacheControl = cacheControlOf(policy);
  return function conditional<B>(headers: Conditions, body: B, etag: string, lastModified: Date) {
    // `Access-Control-Allow-Origin: *` is among every content answer's base headers (response-headers.ts).
    const replyHeaders = {
      ETag: etag,
      'Last-Modified': httpDateOf(lastModified),
      'Cache-Control': cacheControl,
    };
    const notModified = isNotModified(
      { ifNoneMatch: headers['if-none-match'], ifModifiedSince: headers['if-modified-since'] },
      replyHeaders.ETag,
      lastModified,
    );
    return notModified ? { status: 304 as const, headers: replyHeaders } : { status: 200 as const, body, headers: replyHeaders };
  };
}

/** A conditional answer (see `conditionalAnswers`). */
export type ConditionalAnswer = ReturnType<typeof conditionalAnswers>;
