import { describe, expect, it } from 'vitest';
import type { RefreshToken, RefreshTokenRepository } from '../../domain/ports/refresh-token-repository.js';
import { type MakeStore, times, ulid, useStore } from './fixtures.js';

const CREATED = new Date('2026-03-04T05:06:07.891Z');
const EXPIRES = new Date('2026-03-11T05:06:07.891Z');
const USE = new Date('2026-03-05T10:00:00.123Z');
const FAMILY = ulid(1000);

function token(n: number, overrides: Partial<RefreshToken> = {}): RefreshToken {
  return {
    id: ulid(n),
    familyId: FAMILY,
    userId: ulid(2000),
    tokenHash: `hash-${n}`,
    createdAt: CREATED,
    expiresAt: EXPIRES,
    consumedAt: null,
    revokedAt: null,
    replay: null,
    sessionVersion: 0,
    ...overrides,
  };
}

/** The token a rotation attempt `n` would insert. */
function successor(n: number, familyId = FAMILY): RefreshToken {
  return token(500 + n, { tokenHash: `next-${n}`, familyId, createdAt: USE });
}

export function describeRefreshTokenRepositoryContract(make: MakeStore): void {
  describe('RefreshTokenRepository', () => {
    const store = useStore(make);
    const tokens = (): RefreshTokenRepository => store().refreshTokens;
    const rotate = (hash: string, n = 1, at = USE, familyId = FAMILY) => tokens().rotate(hash, at, successor(n, familyId), `replay-${n}`);

    it('rotate consumes an unconsumed, unrevoked, unexpired token at `at`, stores the replay and inserts the successor in the family', async () => {
      await tokens().insert(token(1));
      expect(await rotate('hash-1')).toStrictEqual({
        outcome: 'consumed',
        token: token(1, { consumedAt: USE, replay: 'replay-1' }),
      });
      expect(await tokens().find('next-1')).toStrictEqual(successor(1));
      expect(await tokens().find('hash-1')).toStrictEqual(token(1, { consumedAt: USE, replay: 'replay-1' }));
    });

    it('a token is single use: a second rotation is already_consumed with the first consumedAt and replay, and inserts nothing', async () => {
      await tokens().insert(token(1));
      await rotate('hash-1', 1);
      const second = await rotate('hash-1', 2, new Date(USE.getTime() + 1000));
      expect(second).toStrictEqual({ outcome: 'already_consumed', token: token(1, { consumedAt: USE, replay: 'replay-1' }) });
      expect(await tokens().find('next-2')).toBeNull();
    });

    it('of two concurrent rotations of one token exactly one is consumed and only its successor exists', async () => {
      await tokens().insert(token(1));
      const outcomes = await Promise.all([rotate('hash-1', 1), rotate('hash-1', 2)]);
      expect(outcomes.map((o) => o.outcome).sort()).toEqual(['already_consumed', 'consumed']);
      const successors = await Promise.all([tokens().find('next-1'), tokens().find('next-2')]);
      expect(successors.filter((s) => s !== null)).toHaveLength(1);
    });

    it('of ten concurrent rotations of one token exactly one is consumed; the others see its consumedAt and replay', async () => {
      await tokens().insert(token(1));
      const outcomes = await Promise.all(times(10, (i) => rotate('hash-1', i + 1, new Date(USE.getTime() + i))));
      const winners = outcomes.filter((o) => o.outcome === 'consumed');
      expect(winners).toHaveLength(1);
      expect(outcomes.filter((o) => o.outcome === 'already_consumed')).toHaveLength(9);
      const winner = winners[0]!;
      for (const o of outcomes) {
        if (o.outcome === 'already_consumed' && winner.outcome === 'consumed') {
          expect(o.token.consumedAt).toEqual(winner.token.consumedAt);
          expect(o.token.replay).toBe(winner.token.replay);
        }
      }
      const found = await Promise.all(times(10, (i) => tokens().find(`next-${i + 1}`)));
      expect(found.filter((s) => s !== null)).toHaveLength(1);
    });

    it('a revoked token is revoked, and rotating it changes nothing and inserts nothing', async () => {
      const revokedAt = new Date('2026-03-05T00:00:00.001Z');
      await tokens().insert(token(1, { revokedAt }));
      const expected = { outcome: 'revoked', token: token(1, { revokedAt }) };
      expect(await rotate('hash-1', 1)).toStrictEqual(expected);
      expect(await rotate('hash-1', 2)).toStrictEqual(expected);
      expect(await tokens().find('next-1')).toBeNull();
    });

    it('an expired token (expiresAt <= at) is expired, and rotating it changes nothing', async () => {
      await tokens().insert(token(1, { expiresAt: USE }));
      const expected = { outcome: 'expired', token: token(1, { expiresAt: USE }) };
      expect(await rotate('hash-1', 1)).toStrictEqual(expected);
      expect(await rotate('hash-1', 2)).toStrictEqual(expected);
      expect(await tokens().find('next-1')).toBeNull();
    });

    it('an unknown hash is unknown; hashes match exactly', async () => {
      expect(await rotate('nope')).toStrictEqual({ outcome: 'unknown' });
      await tokens().insert(token(1));
      expect(await rotate('hash-', 2)).toStrictEqual({ outcome: 'unknown' });
      expect(await rotate('HASH-1', 3)).toStrictEqual({ outcome: 'unknown' });
      expect(await tokens().find('HASH-1')).toBeNull();
    });

    it('revokeFamily revokes every token of the family that is not yet revoked, successors included, and no other family', async () => {
      const earlier = new Date('2026-03-04T12:00:00.000Z');
      const at = new Date('2026-03-05T11:00:00.500Z');
      await tokens().insert(token(1));
      await tokens().insert(token(2, { consumedAt: earlier }));
      await tokens().insert(token(3, { revokedAt: earlier }));
      await tokens().insert(token(4, { familyId: ulid(1001) }));
      await tokens().insert(token(5));
      await rotate('hash-5', 5);
      await tokens().revokeFamily(FAMILY, at);
      expect(await tokens().find('hash-1')).toStrictEqual(token(1, { revokedAt: at }));
      expect(await tokens().find('hash-2')).toStrictEqual(token(2, { consumedAt: earlier, revokedAt: at }));
      expect(await tokens().find('hash-3')).toStrictEqual(token(3, { revokedAt: earlier }));
      expect(await tokens().find('next-5')).toStrictEqual({ ...successor(5), revokedAt: at });
      expect((await rotate('hash-1', 6)).outcome).toBe('revoked');
      expect(await rotate('hash-4', 7, USE, ulid(1001))).toStrictEqual({
        outcome: 'consumed',
        token: token(4, { familyId: ulid(1001), consumedAt: USE, replay: 'replay-7' }),
      });
    });

    it("revokeUser revokes every token of every family of the user that is not yet revoked, and no other user's", async () => {
      const earlier = new Date('2026-03-04T12:00:00.000Z');
      const at = new Date('2026-03-05T11:00:00.500Z');
      const other = ulid(2001);
      await tokens().insert(token(1));
      await tokens().insert(token(2, { familyId: ulid(1001), consumedAt: earlier }));
      await tokens().insert(token(3, { familyId: ulid(1002), revokedAt: earlier }));
      await tokens().insert(token(4, { familyId: ulid(1003), userId: other }));
      await tokens().insert(token(5));
      await rotate('hash-5', 5);
      await tokens().revokeUser(ulid(2000), at);
      expect(await tokens().find('hash-1')).toStrictEqual(token(1, { revokedAt: at }));
      expect(await tokens().find('hash-2')).toStrictEqual(token(2, { familyId: ulid(1001), consumedAt: earlier, revokedAt: at }));
      expect(await tokens().find('hash-3')).toStrictEqual(token(3, { familyId: ulid(1002), revokedAt: earlier }));
      expect(await tokens().find('next-5')).toStrictEqual({ ...successor(5), revokedAt: at });
      expect((await rotate('hash-1', 6)).outcome).toBe('revoked');
      expect(await tokens().find('hash-4')).toStrictEqual(token(4, { familyId: ulid(1003), userId: other }));
    });

    it('a token keeps the session version it was inserted with, and a successor keeps its own', async () => {
      await tokens().insert(token(1, { sessionVersion: 3 }));
      expect((await tokens().find('hash-1'))?.sessionVersion).toBe(3);
      await tokens().rotate('hash-1', USE, token(501, { tokenHash: 'next-1', createdAt: USE, sessionVersion: 3 }), 'replay-1');
      expect((await tokens().find('next-1'))?.sessionVersion).toBe(3);
    });

    it('a duplicate id is a DuplicateIdError', async () => {
      await tokens().insert(token(1));
      await expect(tokens().insert(token(1, { tokenHash: 'other' }))).rejects.toMatchObject({ code: 'duplicate_id' });
    });

    it('stored tokens are copies: mutating the inserted token changes nothing', async () => {
      const input = token(1, { createdAt: new Date(CREATED), expiresAt: new Date(EXPIRES) });
      await tokens().insert(input);
      input.expiresAt.setUTCFullYear(2000);
      input.tokenHash = 'changed';
      expect(await tokens().find('hash-1')).toStrictEqual(token(1));
    });

    it('purgeExpired deletes expired and revoked tokens up to the limit, keeping live ones consumed or not', async () => {
      const NOW = new Date('2026-03-20T00:00:00.000Z');
      await tokens().insert(token(1, { expiresAt: new Date(NOW.getTime() - 1) }));
      await tokens().insert(token(2, { expiresAt: NOW }));
      await tokens().insert(token(3, { revokedAt: new Date('2026-03-05T00:00:00.000Z'), expiresAt: new Date('2026-04-01T00:00:00.000Z') }));
      await tokens().insert(token(4, { expiresAt: new Date('2026-04-01T00:00:00.000Z') }));
      await tokens().insert(token(5, { expiresAt: new Date('2026-04-01T00:00:00.000Z'), consumedAt: USE, replay: 'sealed' }));
      await tokens().insert(token(6, { expiresAt: new Date('2026-04-01T00:00:00.000Z'), revokedAt: new Date(NOW.getTime() + 1) }));
      expect(await tokens().purgeExpired(NOW, 2)).toBe(2);
      expect(await tokens().purgeExpired(NOW, 2)).toBe(1);
      expect(await tokens().purgeExpired(NOW, 2)).toBe(0);
      for (const n of [1, 2, 3]) expect(await tokens().find(`hash-${n}`)).toBeNull();
      for (const n of [4, 5, 6]) expect((await tokens().find(`hash-${n}`))?.id).toBe(ulid(n));
      expect((await tokens().find('hash-5'))?.replay).toBe('sealed');
    });

    it('forgetReplays clears the replays of tokens consumed strictly before the instant, up to the limit, and keeps the tokens', async () => {
      const BEFORE = new Date('2026-03-06T00:00:00.000Z');
      await tokens().insert(token(1, { consumedAt: USE, replay: 'one' }));
      await tokens().insert(token(2, { consumedAt: USE, replay: 'two' }));
      await tokens().insert(token(3, { consumedAt: BEFORE, replay: 'three' }));
      await tokens().insert(token(4));
      expect(await tokens().forgetReplays(BEFORE, 1)).toBe(1);
      expect(await tokens().forgetReplays(BEFORE, 5)).toBe(1);
      expect(await tokens().forgetReplays(BEFORE, 5)).toBe(0);
      expect((await tokens().find('hash-1'))?.replay).toBeNull();
      expect((await tokens().find('hash-2'))?.replay).toBeNull();
      expect((await tokens().find('hash-1'))?.consumedAt).toEqual(USE);
      expect((await tokens().find('hash-3'))?.replay).toBe('three');
      expect(await tokens().find('hash-4')).not.toBeNull();
    });

    it('purgeExpired and forgetReplays refuse a limit that is not a positive integer (RangeError)', async () => {
      for (const limit of [0, -1, 1.5]) {
        await expect(tokens().purgeExpired(USE, limit)).rejects.toBeInstanceOf(RangeError);
        await expect(tokens().forgetReplays(USE, limit)).rejects.toBeInstanceOf(RangeError);
      }
    });
  });
}
