import { beforeEach, describe, expect, it, vi } from 'vitest';
import { InvalidTokenError } from '../../domain/index.js';

// Counts jose's verifications, so the tests can tell a remembered token from a verified one.
const jwtVerify = vi.hoisted(() => ({ calls: 0 }));
vi.mock('jose', async (importOriginal) => {
  const jose = await importOriginal<typeof import('jose')>();
  return {
    ...jose,
    jwtVerify: (...args: Parameters<typeof jose.jwtVerify>) => {
      jwtVerify.calls += 1;
      return jose.jwtVerify(...args);
    },
  };
});

const { createJoseAccessTokens } = await import('./jose-access-tokens.js');

const secret = new TextEncoder().encode('0123456789abcdef0123456789abcdef');
const now = new Date('2026-12-01T10:00:00.000Z');
const subject = { userId: '01JDQ7W3E5R7T9Y1V3N5Q7P9AS', name: 'Ada', sessionVersion: 2 };
const options = { secret, issuer: 'margin-cms', audience: 'margin-cms-api', ttlSeconds: 900 };

describe('jose access tokens: verified-token memory', () => {
  beforeEach(() => {
    jwtVerify.calls = 0;
  });

  it('verifies a token with jose once, then answers the same claims from memory', async () => {
    const tokens = createJoseAccessTokens(options);
    const { token, tokenId } = await tokens.issue(subject, now);
    for (let i = 0; i < 5; i++) {
      expect(await tokens.verify(token, new Date(now.getTime() + i * 1000))).toEqual({
        userId: subject.userId,
        name: 'Ada',
        tokenId,
        sessionVersion: 2,
      });
    }
    expect(jwtVerify.calls).toBe(1);
  });

  it('refuses a remembered token once it expires, with the same skew jose allows', async () => {
    const tokens = createJoseAccessTokens(options);
    const { token } = await tokens.issue(subject, now);
    await tokens.verify(token, now);
    await expect(tokens.verify(token, new Date(now.getTime() + 904_999))).resolves.toBeDefined();
    const error = await tokens.verify(token, new Date(now.getTime() + 905_000)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidTokenError);
    expect((error as InvalidTokenError).reason).toBe('expired');
    expect(jwtVerify.calls).toBe(1);
  });

  it('verifies a token that differs from a remembered one by one character afresh, and refuses it', async () => {
    const tokens = createJoseAccessTokens(options);
    const { token } = await tokens.issue(subject, now);
    await tokens.verify(token, now);
    // The signature's first character carries six bits of it; its last carries two unused bits,
    // which base64url decoders ignore (an edit there can leave the signature as it was).
    const at = token.lastIndexOf('.') + 1;
    const edited = token.slice(0, at) + (token[at] === 'A' ? 'B' : 'A') + token.slice(at + 1);
    await expect(tokens.verify(edited, now)).rejects.toBeInstanceOf(InvalidTokenError);
    expect(jwtVerify.calls).toBe(2);
  });

  it('never remembers a refused token', async () => {
    const tokens = createJoseAccessTokens(options);
    const other = createJoseAccessTokens({ ...options, secret: new TextEncoder().encode('x'.repeat(32)) });
    const { token } = await other.issue(subject, now);
    await expect(tokens.verify(token, now)).rejects.toBeInstanceOf(InvalidTokenError);
    await expect(tokens.verify(token, now)).rejects.toBeInstanceOf(InvalidTokenError);
    expect(jwtVerify.calls).toBe(2);
  });

  it('forgets the oldest token when full, and verifies it again with jose', async () => {
    const tokens = createJoseAccessTokens({ ...options, verifiedCacheSize: 2 });
    const issued = await Promise.all([1, 2, 3].map(() => tokens.issue(subject, now)));
    for (const { token } of issued) await tokens.verify(token, now);
    expect(jwtVerify.calls).toBe(3);
    await tokens.verify(issued[2]!.token, now);
    await tokens.verify(issued[1]!.token, now);
    expect(jwtVerify.calls).toBe(3);
    await tokens.verify(issued[0]!.token, now);
    expect(jwtVerify.calls).toBe(4);
  });
});
