import { Hono } from 'hono';
import { secureHeaders } from 'hono/secure-headers';
import { describe, expect, it } from 'vitest';
import { baseHeaders, SECURITY_HEADER_OPTIONS, SECURITY_HEADERS } from './response-headers.js';

describe('response headers', () => {
  it("are exactly what Hono's secureHeaders sets with the same options", async () => {
    const probe = new Hono();
    probe.use('*', secureHeaders(SECURITY_HEADER_OPTIONS));
    probe.get('/', (c) => c.body(null, 204));
    const response = await probe.request('/');
    expect(Object.fromEntries(response.headers)).toEqual(SECURITY_HEADERS);
  });

  it('keep tokens out of every cache and make other API answers private and revalidated', () => {
    expect(baseHeaders('/api/v1/auth/login')['cache-control']).toBe('no-store');
    expect(baseHeaders('/api/v1/posts')['cache-control']).toBe('private, no-cache');
    expect(baseHeaders('/elsewhere')['cache-control']).toBeUndefined();
    for (const path of ['/api/v1/auth/login', '/api/v1/posts', '/elsewhere']) {
      expect(baseHeaders(path)).toMatchObject({ ...SECURITY_HEADERS, vary: 'Origin, Accept-Encoding' });
    }
  });
});
