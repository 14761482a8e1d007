import { describe, expect, it } from 'vitest';
import type {
  RefreshToken,
  RefreshTokenRepository,
} from '../../domain/ports/refresh-token-repository.js';
import { type MakeStore, times, ulid, useStore } from './fixtures.js';

const CREATED = new Date('2026-03-04T05:06:07.891Z');
const EXPIRES = new Date('2026-03-11T05:06:07.891Z');
const USE = new Date('2026-03-05T10:00:00.123Z');

function token(n: number, overrides: Partial<RefreshToken> = {}): RefreshToken {
  return {
    id: ulid(n),
    familyId: ulid(1000),
    userId: ulid(2000),
    tokenHash: `hash-${n}`,
    createdAt: CREATED,
    expiresAt: EXPIRES,
    consumedAt: null,
    revokedAt: null,
    ...overrides,
  };
}

export function describeRefreshTokenRepositoryContract(make: MakeStore): void {
  describe('RefreshTokenRepository', () => {
    const store = useStore(make);
    const tokens = (): RefreshTokenRepository => store().refreshTokens;

    it('consume marks an unconsumed, unrevoked, unexpired token consumed at `at` and returns consumed', async () => {
      await tokens().insert(token(1));
      expect(await tokens().consume('hash-1', USE)).toStrictEqual({
        outcome: 'consumed',
        token: token(1, { consumedAt: USE }),
      });
    });

    it('a token is single use: a second consume is already_consumed and keeps the first consumedAt', async () => {
      await tokens().insert(token(1));
      await tokens().consume('hash-1', USE);
      const second = await tokens().consume('hash-1', new Date(USE.getTime() + 1000));
      expect(second).toStrictEqual({ outcome: 'already_consumed', token: token(1, { consumedAt: USE }) });
    });

    it('of two concurrent consumes of one token exactly one is consumed and the other already_consumed', async () => {
      await tokens().insert(token(1));
      const outcomes = await Promise.all([tokens().consume('hash-1', USE), tokens().consume('hash-1', USE)]);
      expect(outcomes.map((o) => o.outcome).sort()).toEqual(['already_consumed', 'consumed']);
    });

    it('of ten concurrent consumes of one token exactly one is consumed', async () => {
      await tokens().insert(token(1));
      const outcomes = await Promise.all(
        times(10, (i) => tokens().consume('hash-1', new Date(USE.getTime() + i))),
      );
      expect(outcomes.filter((o) => o.outcome === 'consumed')).toHaveLength(1);
      expect(outcomes.filter((o) => o.outcome === 'already_consumed')).toHaveLength(9);
      const winner = outcomes.find((o) => o.outcome === 'consumed');
      for (const o of outcomes) {
        if (o.outcome === 'already_consumed' && winner?.outcome === 'consumed') {
          expect(o.token.consumedAt).toEqual(winner.token.consumedAt);
        }
      }
    });

    it('a revoked token is revoked, and consuming it changes nothing', async () => {
      const revokedAt = new Date('2026-03-05T00:00:00.001Z');
      await tokens().insert(token(1, { revokedAt }));
      const expected = { outcome: 'revoked', token: token(1, { revokedAt }) };
      expect(await tokens().consume('hash-1', USE)).toStrictEqual(expected);
      expect(await tokens().consume('hash-1', USE)).toStrictEqual(expected);
    });

    it('an expired token is expired, and consuming it changes nothing', async () => {
      await tokens().insert(token(1, { expiresAt: new Date('2026-03-05T09:59:59.999Z') }));
      const expected = {
        outcome: 'expired',
        token: token(1, { expiresAt: new Date('2026-03-05T09:59:59.999Z') }),
      };
      expect(await tokens().consume('hash-1', USE)).toStrictEqual(expected);
      expect(await tokens().consume('hash-1', USE)).toStrictEqual(expected);
    });

    it('an unknown hash is unknown', async () => {
      expect(await tokens().consume('nope', USE)).toStrictEqual({ outcome: 'unknown' });
      await tokens().insert(token(1));
      expect(await tokens().consume('hash-', USE)).toStrictEqual({ outcome: 'unknown' });
      expect(await tokens().consume('HASH-1', USE)).toStrictEqual({ outcome: 'unknown' });
    });

    it('revokeFamily revokes every token of the family that is not yet revoked, and no other family', async () => {
      const earlier = new Date('2026-03-04T12:00:00.000Z');
      const at = new Date('2026-03-05T08:00:00.500Z');
      await tokens().insert(token(1));
      await tokens().insert(token(2, { consumedAt: earlier }));
      await tokens().insert(token(3, { revokedAt: earlier }));
      await tokens().insert(token(4, { familyId: ulid(1001) }));
      await tokens().revokeFamily(ulid(1000), at);
      expect(await tokens().consume('hash-1', USE)).toStrictEqual({
        outcome: 'revoked',
        token: token(1, { revokedAt: at }),
      });
      const second = await tokens().consume('hash-2', USE);
      expect(second.outcome === 'revoked' || second.outcome === 'already_consumed').toBe(true);
      if (second.outcome !== 'unknown') {
        expect(second.token).toStrictEqual(token(2, { consumedAt: earlier, revokedAt: at }));
      }
      expect(await tokens().consume('hash-3', USE)).toStrictEqual({
        outcome: 'revoked',
        token: token(3, { revokedAt: earlier }),
      });
      expect(await tokens().consume('hash-4', USE)).toStrictEqual({
        outcome: 'consumed',
        token: token(4, { familyId: ulid(1001), consumedAt: USE }),
      });
    });

    it('stored tokens are copies: mutating the inserted token changes nothing', async () => {
      const input = token(1, { createdAt: new Date(CREATED), expiresAt: new Date(EXPIRES) });
      await tokens().insert(input);
      input.expiresAt.setUTCFullYear(2000);
      input.tokenHash = 'changed';
      expect(await tokens().consume('hash-1', USE)).toStrictEqual({
        outcome: 'consumed',
        token: token(1, { consumedAt: USE }),
      });
    });
  });
}
