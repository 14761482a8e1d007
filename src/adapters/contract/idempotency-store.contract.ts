import { describe, expect, it } from 'vitest';
import type { IdempotencyClaim, IdempotencyStore, StoredResponse } from '../../domain/ports/idempotency-store.js';
import { type MakeStore, newPost, rejectionOf, times, ulid, useStore } from './fixtures.js';

const T0 = new Date('2026-03-04T05:06:07.891Z');
const LEASE_MS = 30_000;
const USER = ulid(1);
const OTHER_USER = ulid(2);

function later(ms: number): Date {
  return new Date(T0.getTime() + ms);
}

function claimOf(overrides: Partial<IdempotencyClaim> = {}): IdempotencyClaim {
  return {
    userId: USER,
    key: 'key-1',
    fingerprint: 'POST /posts {"title":"a"}',
    now: T0,
    leaseMs: LEASE_MS,
    expiresAt: later(86_400_000),
    ...overrides,
  };
}

const RESPONSE: StoredResponse = {
  status: 201,
  headers: { 'content-type': 'application/json', etag: 'W/"1"', location: '/v1/posts/x' },
  body: '{"title":"Été 😀","n":1.50}\n',
};

export function describeIdempotencyStoreContract(make: MakeStore): void {
  describe('IdempotencyStore', () => {
    const store = useStore(make);
    const idem = (): IdempotencyStore => store().idempotency;

    it('complete by a claim whose key was taken over throws IdempotencyKeyInFlightError and stores nothing; the new claim completes', async () => {
      await idem().claim(claimOf());
      const takeover = later(LEASE_MS + 1);
      expect(await idem().claim(claimOf({ now: takeover }))).toStrictEqual({ outcome: 'claimed', progress: null });
      const stale = await rejectionOf(idem().complete(USER, 'key-1', T0, RESPONSE));
      expect(stale).toMatchObject({ code: 'idempotency_key_in_flight' });
      expect(await idem().read(USER, 'key-1')).toBeNull();
      await idem().complete(USER, 'key-1', takeover, RESPONSE);
      expect(await idem().read(USER, 'key-1')).toStrictEqual(RESPONSE);
    });

    it('release by a claim whose key was taken over leaves the new claim holding the key', async () => {
      await idem().claim(claimOf());
      const takeover = later(LEASE_MS + 1);
      await idem().claim(claimOf({ now: takeover }));
      await idem().release(USER, 'key-1', T0);
      expect(await idem().claim(claimOf({ now: later(LEASE_MS + 2) }))).toStrictEqual({ outcome: 'in_flight', retryAfterMs: LEASE_MS - 1 });
    });

    it('complete of a key that was released, or never claimed, throws IdempotencyKeyInFlightError', async () => {
      await expect(idem().complete(USER, 'never', T0, RESPONSE)).rejects.toMatchObject({ code: 'idempotency_key_in_flight' });
      await idem().claim(claimOf());
      await idem().release(USER, 'key-1', T0);
      await expect(idem().complete(USER, 'key-1', T0, RESPONSE)).rejects.toMatchObject({ code: 'idempotency_key_in_flight' });
      expect(await idem().read(USER, 'key-1')).toBeNull();
    });

    it('claim on a free key takes it: claimed', async () => {
      expect(await idem().claim(claimOf())).toStrictEqual({ outcome: 'claimed', progress: null });
    });

    it('claim on a key held inside its lease with the same fingerprint: in_flight with the lease time left', async () => {
      await idem().claim(claimOf());
      expect(await idem().claim(claimOf())).toStrictEqual({ outcome: 'in_flight', retryAfterMs: LEASE_MS });
      const outcome = await idem().claim(claimOf({ now: later(10_000) }));
      expect(outcome).toStrictEqual({ outcome: 'in_flight', retryAfterMs: 20_000 });
      const last = await idem().claim(claimOf({ now: later(LEASE_MS - 1) }));
      expect(last).toStrictEqual({ outcome: 'in_flight', retryAfterMs: 1 });
    });

    it('claim on a key whose lease has run out: taken over, claimed (and held again by the new claim)', async () => {
      await idem().claim(claimOf());
      expect(await idem().claim(claimOf({ now: later(LEASE_MS + 1) }))).toStrictEqual({ outcome: 'claimed', progress: null });
      expect(await idem().claim(claimOf({ now: later(LEASE_MS + 1001) }))).toStrictEqual({
        outcome: 'in_flight',
        retryAfterMs: LEASE_MS - 1000,
      });
    });

    it('claim with another fingerprint on a key whose lease has run out: mismatch, the key is not taken over', async () => {
      await idem().claim(claimOf());
      const other = 'POST /posts {"title":"b"}';
      expect(await idem().claim(claimOf({ fingerprint: other, now: later(LEASE_MS + 1) }))).toStrictEqual({ outcome: 'mismatch' });
      expect(await idem().claim(claimOf({ fingerprint: other, now: later(10 * LEASE_MS) }))).toStrictEqual({ outcome: 'mismatch' });
      // The abandoned request's own retry still takes it over.
      expect(await idem().claim(claimOf({ now: later(10 * LEASE_MS + 1) }))).toStrictEqual({ outcome: 'claimed', progress: null });
    });

    it('claim with another fingerprint on a completed key past expiresAt takes it: an expired answer is forgotten', async () => {
      await idem().claim(claimOf());
      await idem().complete(USER, 'key-1', T0, RESPONSE);
      const expired = new Date(claimOf().expiresAt.getTime() + 1);
      expect(await idem().claim(claimOf({ fingerprint: 'POST /posts {"title":"b"}', now: expired }))).toStrictEqual({
        outcome: 'claimed',
        progress: null,
      });
      expect(await idem().read(USER, 'key-1')).toBeNull();
    });

    it('saveProgress keeps what the holding claim did; a takeover by the same request gets it back, a fresh claim none', async () => {
      await idem().claim(claimOf());
      await idem().saveProgress(USER, 'key-1', T0, '{"done":1}');
      await idem().saveProgress(USER, 'key-1', T0, '{"done":2}');
      const takeover = later(LEASE_MS + 1);
      expect(await idem().claim(claimOf({ now: takeover }))).toStrictEqual({ outcome: 'claimed', progress: '{"done":2}' });
      // The abandoned claim may no longer save; the new one may.
      await expect(idem().saveProgress(USER, 'key-1', T0, '{"done":3}')).rejects.toMatchObject({ code: 'idempotency_key_in_flight' });
      await idem().saveProgress(USER, 'key-1', takeover, '{"done":3}');
      await idem().complete(USER, 'key-1', takeover, RESPONSE);
      // Completed and then expired: the key is free, and what it saved is forgotten.
      const expired = new Date(claimOf().expiresAt.getTime() + 1);
      expect(await idem().claim(claimOf({ now: expired }))).toStrictEqual({ outcome: 'claimed', progress: null });
      expect(await idem().claim(claimOf({ key: 'fresh' }))).toStrictEqual({ outcome: 'claimed', progress: null });
    });

    it('saveProgress of a key released or never claimed throws IdempotencyKeyInFlightError', async () => {
      await expect(idem().saveProgress(USER, 'never', T0, 'x')).rejects.toMatchObject({ code: 'idempotency_key_in_flight' });
      await idem().claim(claimOf());
      await idem().release(USER, 'key-1', T0);
      await expect(idem().saveProgress(USER, 'key-1', T0, 'y')).rejects.toMatchObject({ code: 'idempotency_key_in_flight' });
    });

    it('release of a key with saved progress ends its lease at once: the same request takes it over with the progress, another is a mismatch', async () => {
      await idem().claim(claimOf());
      await idem().saveProgress(USER, 'key-1', T0, '{"done":1}');
      await idem().release(USER, 'key-1', T0);
      expect(await idem().claim(claimOf({ fingerprint: 'another body', now: later(1) }))).toStrictEqual({ outcome: 'mismatch' });
      expect(await idem().claim(claimOf({ now: later(1) }))).toStrictEqual({ outcome: 'claimed', progress: '{"done":1}' });
      await expect(idem().saveProgress(USER, 'key-1', T0, 'x')).rejects.toMatchObject({ code: 'idempotency_key_in_flight' });
    });

    it('claim on a held key with another fingerprint: mismatch', async () => {
      await idem().claim(claimOf());
      expect(await idem().claim(claimOf({ fingerprint: 'POST /posts {"title":"b"}' }))).toStrictEqual({
        outcome: 'mismatch',
      });
      // The mismatch did not take the key over.
      expect((await idem().claim(claimOf())).outcome).toBe('in_flight');
    });

    it('claim on a completed key with another fingerprint: mismatch', async () => {
      await idem().claim(claimOf());
      await idem().complete(USER, 'key-1', T0, RESPONSE);
      expect(await idem().claim(claimOf({ fingerprint: 'other', now: later(LEASE_MS * 10) }))).toStrictEqual({ outcome: 'mismatch' });
      expect(await idem().read(USER, 'key-1')).toStrictEqual(RESPONSE);
    });

    it('claim on a completed key with the same fingerprint: completed with the stored response, exactly', async () => {
      await idem().claim(claimOf());
      await idem().complete(USER, 'key-1', T0, RESPONSE);
      expect(await idem().claim(claimOf({ now: later(1) }))).toStrictEqual({
        outcome: 'completed',
        response: RESPONSE,
      });
      // Long after the lease: still completed, never taken over.
      expect(await idem().claim(claimOf({ now: later(LEASE_MS * 10) }))).toStrictEqual({
        outcome: 'completed',
        response: RESPONSE,
      });
    });

    it('of N concurrent claims of one free key exactly one is claimed (N = 10)', async () => {
      const outcomes = await Promise.all(times(10, () => idem().claim(claimOf())));
      expect(outcomes.filter((o) => o.outcome === 'claimed')).toHaveLength(1);
      expect(outcomes.filter((o) => o.outcome === 'in_flight')).toHaveLength(9);
    });

    it('keys are scoped to a user: two users may use the same key', async () => {
      await idem().claim(claimOf());
      expect(await idem().claim(claimOf({ userId: OTHER_USER, fingerprint: 'other' }))).toStrictEqual({
        outcome: 'claimed',
        progress: null,
      });
      await idem().complete(OTHER_USER, 'key-1', T0, { status: 200, headers: {}, body: 'other' });
      expect(await idem().read(USER, 'key-1')).toBeNull();
      expect((await idem().claim(claimOf())).outcome).toBe('in_flight');
      await idem().release(USER, 'key-1', T0);
      expect(await idem().read(OTHER_USER, 'key-1')).toStrictEqual({ status: 200, headers: {}, body: 'other' });
    });

    it('complete stores the response for a claimed key; read returns it', async () => {
      await idem().claim(claimOf());
      expect(await idem().read(USER, 'key-1')).toBeNull();
      await idem().complete(USER, 'key-1', T0, RESPONSE);
      expect(await idem().read(USER, 'key-1')).toStrictEqual(RESPONSE);
    });

    it('complete runs inside the caller’s transaction: it commits with the post, and rolls back with it', async () => {
      await idem().claim(claimOf());
      await idem().claim(claimOf({ key: 'key-2' }));
      await store().unitOfWork.run(async (repos) => {
        await repos.posts.create(newPost(1));
        await repos.idempotency.complete(USER, 'key-1', T0, RESPONSE);
      });
      await rejectionOf(
        store().unitOfWork.run(async (repos) => {
          await repos.posts.create(newPost(2));
          await repos.idempotency.complete(USER, 'key-2', T0, RESPONSE);
          throw new Error('rolled back');
        }),
      );
      expect(await idem().read(USER, 'key-1')).toStrictEqual(RESPONSE);
      expect(await store().posts.get(ulid(1))).not.toBeNull();
      expect(await idem().read(USER, 'key-2')).toBeNull();
      expect(await store().posts.get(ulid(2))).toBeNull();
    });

    it('read returns null for an unknown key', async () => {
      expect(await idem().read(USER, 'unknown')).toBeNull();
    });

    it('release frees a claimed key, so a retry can claim it again', async () => {
      await idem().claim(claimOf());
      await idem().release(USER, 'key-1', T0);
      expect(await idem().claim(claimOf({ now: later(1) }))).toStrictEqual({ outcome: 'claimed', progress: null });
      await idem().release(USER, 'key-1', later(1));
      expect(await idem().claim(claimOf({ fingerprint: 'a retry with another body' }))).toStrictEqual({
        outcome: 'claimed',
        progress: null,
      });
    });

    it('release does not touch a completed key', async () => {
      await idem().claim(claimOf());
      await idem().complete(USER, 'key-1', T0, RESPONSE);
      await idem().release(USER, 'key-1', T0);
      expect(await idem().read(USER, 'key-1')).toStrictEqual(RESPONSE);
      expect(await idem().claim(claimOf())).toStrictEqual({ outcome: 'completed', response: RESPONSE });
    });

    it('release of an unknown key does nothing', async () => {
      await idem().release(USER, 'unknown', T0);
      expect(await idem().claim(claimOf({ key: 'unknown' }))).toStrictEqual({ outcome: 'claimed', progress: null });
    });

    it('returns copies: mutating a stored or returned response does not change the record', async () => {
      const response: StoredResponse = { ...RESPONSE, headers: { ...RESPONSE.headers } };
      await idem().claim(claimOf());
      await idem().complete(USER, 'key-1', T0, response);
      response.headers.etag = 'changed';
      const read = (await idem().read(USER, 'key-1'))!;
      read.headers.etag = 'changed';
      read.body = 'changed';
      const claimed = await idem().claim(claimOf());
      if (claimed.outcome === 'completed') claimed.response.headers.location = 'changed';
      expect(await idem().read(USER, 'key-1')).toStrictEqual(RESPONSE);
    });

    it('purgeExpired deletes records with expiresAt at or before now, completed or abandoned, up to the limit', async () => {
      const EXPIRY = later(1_000_000);
      await idem().claim(claimOf({ key: 'done-old', expiresAt: EXPIRY }));
      await idem().complete(USER, 'done-old', T0, RESPONSE);
      await idem().claim(claimOf({ key: 'abandoned', expiresAt: new Date(EXPIRY.getTime() - 1) }));
      await idem().claim(claimOf({ key: 'done-young', expiresAt: new Date(EXPIRY.getTime() + 1) }));
      await idem().complete(USER, 'done-young', T0, RESPONSE);
      await idem().claim(claimOf({ key: 'other-user', userId: OTHER_USER, expiresAt: EXPIRY }));
      expect(await idem().purgeExpired(EXPIRY, 2)).toBe(2);
      expect(await idem().purgeExpired(EXPIRY, 2)).toBe(1);
      expect(await idem().purgeExpired(EXPIRY, 2)).toBe(0);
      expect(await idem().read(USER, 'done-old')).toBeNull();
      expect(await idem().read(USER, 'done-young')).toStrictEqual(RESPONSE);
      // The purged keys are free again; the kept one still answers.
      expect((await idem().claim(claimOf({ key: 'abandoned', now: later(LEASE_MS * 2) }))).outcome).toBe('claimed');
      expect((await idem().claim(claimOf({ key: 'done-young', now: later(LEASE_MS * 2) }))).outcome).toBe('completed');
    });

    it('purgeExpired refuses a limit that is not a positive integer (RangeError)', async () => {
      await expect(idem().purgeExpired(T0, 0)).rejects.toBeInstanceOf(RangeError);
    });
  });
}
