/**
 * The Content API's rate limit with two server processes on one PostgreSQL database: the limit
 * is per client address across both, not per process (each sends its counts to the shared
 * `rate_limit_windows` table). At 10 a minute a process sends every request's count and waits
 * for the store before the next (flushAt is 1), so the two together admit at most one more than
 * the limit (`SharedRateLimit`: limit − 1 + N × flushAt).
 */
import { describe, expect, it } from 'vitest';
import { requirePostgres, testServerUrl } from '../support/databases.js';
import { startServer, useScratchDatabases } from '../support/server-process.js';

const serverUrl = testServerUrl();
const available = await requirePostgres(serverUrl);

const scratchDatabase = useScratchDatabases(serverUrl);

const LIMIT = 10;

describe.skipIf(!available)('the Content API rate limit across two server processes', () => {
  it('allows the stated limit per address in all (one more at most), whichever process answers, then 429 with Retry-After', async () => {
    const db = await scratchDatabase();
    const env = { CONTENT_RATE_LIMIT_PER_MINUTE: String(LIMIT) };
    const servers = await Promise.all([startServer(db.url, env), startServer(db.url, env)]);

    // Three times the limit, alternately to each process, half of them at once.
    const get = (i: number) => fetch(`${servers[i % 2]!.base}/content/posts`);
    const first = await Promise.all(Array.from({ length: LIMIT }, (_, i) => get(i)));
    const rest: Response[] = [];
    for (let i = 0; i < 2 * LIMIT; i += 1) rest.push(await get(i));
    const statuses = [...first, ...rest].map((r) => r.status);

    const admitted = statuses.filter((s) => s === 200).length;
    expect(admitted).toBeGreaterThanOrEqual(LIMIT);
    expect(admitted).toBeLessThanOrEqual(LIMIT + 1);
    expect(statuses.filter((s) => s === 429)).toHaveLength(3 * LIMIT - admitted);
    // Past the limit, both processes refuse, and say when to come back.
    for (const response of rest.slice(-2)) {
      expect(response.status).toBe(429);
      expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(Number(response.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    }
    for (const response of [...first, ...rest]) await response.body?.cancel();
  }, 60_000);
});
