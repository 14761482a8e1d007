import { describe, expect, it } from 'vitest';
import { cacheControlOf, httpDateOf, isNotModified, strongEtagOf } from './conditional.js';

const changed = new Date('2026-12-01T10:00:00.750Z');
const etag = strongEtagOf('{"a":1}');

describe('conditional GET for content answers', () => {
  it('makes a strong, quoted ETag that depends on every byte of the representation', () => {
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{22}"$/);
    expect(strongEtagOf('{"a":1}')).toBe(etag);
    expect(strongEtagOf('{"a":2}')).not.toBe(etag);
  });

  it('writes Last-Modified as an IMF-fixdate', () => {
    expect(httpDateOf(changed)).toBe('Tue, 01 Dec 2026 10:00:00 GMT');
  });

  it('answers 304 to If-None-Match with the current tag, in a list, weak or *', () => {
    expect(isNotModified({ ifNoneMatch: etag }, etag, changed)).toBe(true);
    expect(isNotModified({ ifNoneMatch: `"other", ${etag}` }, etag, changed)).toBe(true);
    expect(isNotModified({ ifNoneMatch: `W/${etag}` }, etag, changed)).toBe(true);
    expect(isNotModified({ ifNoneMatch: '*' }, etag, changed)).toBe(true);
    expect(isNotModified({ ifNoneMatch: '"stale"' }, etag, changed)).toBe(false);
  });

  it('lets If-None-Match decide over If-Modified-Since when both are sent (RFC 9110 §13.1.3)', () => {
    const later = 'Wed, 02 Dec 2026 00:00:00 GMT';
    expect(isNotModified({ ifNoneMatch: '"stale"', ifModifiedSince: later }, etag, changed)).toBe(false);
  });

  it('answers 304 to If-Modified-Since at or after the last change, in whole seconds', () => {
    expect(isNotModified({ ifModifiedSince: 'Tue, 01 Dec 2026 10:00:00 GMT' }, etag, changed)).toBe(true);
    expect(isNotModified({ ifModifiedSince: 'Tue, 01 Dec 2026 11:00:00 GMT' }, etag, changed)).toBe(true);
    expect(isNotModified({ ifModifiedSince: 'Tue, 01 Dec 2026 09:59:59 GMT' }, etag, changed)).toBe(false);
  });

  it('ignores an If-Modified-Since that is not an HTTP date', () => {
    for (const value of ['yesterday', '2026-12-02T00:00:00Z', 'Tue, 31 Feb 2026 10:00:00 GMT', 'Wed, 01 Dec 2026 10:00:00 GMT', '']) {
      expect(isNotModified({ ifModifiedSince: value }, etag, changed), value).toBe(false);
    }
  });

  it('writes Cache-Control from the policy', () => {
    expect(cacheControlOf({ maxAgeSeconds: 60, staleWhileRevalidateSeconds: 300 })).toBe('public, max-age=60, stale-while-revalidate=300');
  });
});
