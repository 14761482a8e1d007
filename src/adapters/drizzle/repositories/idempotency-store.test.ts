import { describe, expect, it } from 'vitest';
import type { DbSession } from '../driver/database.js';
import { DrizzleIdempotencyStore } from './idempotency-store.js';

/**
 * A query builder that accepts any chain of calls and resolves to `rows` when awaited: a
 * database on which every claim finds the key held (the upsert takes nothing) and then gone (the
 * read finds nothing), the interleaving of a key claimed and released by others between the two
 * statements, over and over.
 */
function resolvingTo(rows: unknown[]): unknown {
  const chain: unknown = new Proxy(function () {}, {
    get: (_target, property) => (property === 'then' ? (resolve: (value: unknown) => void) => resolve(rows) : () => chain),
    apply: () => chain,
  });
  return chain;
}

describe('DrizzleIdempotencyStore.claim', () => {
  it('answers in_flight (retry in 1 s), never an error, when the key changes hands on every attempt', async () => {
    let statements = 0;
    const db = new Proxy({}, { get: () => () => ((statements += 1), resolvingTo([])) });
    const session = { run: (fn: (db: unknown) => Promise<unknown>) => fn(db) } as unknown as DbSession;
    const outcome = await new DrizzleIdempotencyStore(session).claim({
      userId: 'u',
      key: 'k',
      fingerprint: 'f',
      now: new Date('2026-01-01T00:00:00.000Z'),
      leaseMs: 30_000,
      expiresAt: new Date('2026-01-02T00:00:00.000Z'),
    });
    expect(outcome).toEqual({ outcome: 'in_flight', retryAfterMs: 1000 });
    expect(statements).toBe(10); // five attempts, two statements each
  });
});
