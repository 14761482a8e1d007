import { createHmac } from 'node:crypto';
import { SignJWT, UnsecuredJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { InvalidTokenError } from '../../domain/index.js';
import { createJoseAccessTokens } from './jose-access-tokens.js';

const secret = new TextEncoder().encode('0123456789abcdef0123456789abcdef');
const tokens = createJoseAccessTokens({ secret, issuer: 'margin-cms', audience: 'margin-cms-api', ttlSeconds: 900 });
const now = new Date('2026-12-01T10:00:00.000Z');
const subject = { userId: '01JDQ7W3E5R7T9Y1V3N5Q7P9AS', name: 'Ada', sessionVersion: 2 };

async function rejection(promise: Promise<unknown>): Promise<InvalidTokenError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(InvalidTokenError);
  return error as InvalidTokenError;
}

describe('jose access tokens', () => {
  it('issues an HS256 token with sub, sv, iat, exp, jti, iss and aud that verifies', async () => {
    const { token, tokenId } = await tokens.issue(subject, now);
    const [header, payload] = token
      .split('.')
      .slice(0, 2)
      .map((p) => JSON.parse(Buffer.from(p, 'base64url').toString()));
    expect(header).toEqual({ alg: 'HS256', typ: 'JWT' });
    expect(payload).toMatchObject({
      sub: subject.userId,
      sv: 2,
      iss: 'margin-cms',
      aud: 'margin-cms-api',
      jti: tokenId,
      iat: now.getTime() / 1000,
      exp: now.getTime() / 1000 + 900,
    });
    expect(await tokens.verify(token, now)).toEqual({ userId: subject.userId, name: 'Ada', tokenId, sessionVersion: 2 });
  });

  it('rejects an expired token, allowing a few seconds of clock skew', async () => {
    const { token } = await tokens.issue(subject, now);
    await expect(tokens.verify(token, new Date(now.getTime() + 903_000))).resolves.toBeDefined();
    expect((await rejection(tokens.verify(token, new Date(now.getTime() + 906_000)))).reason).toBe('expired');
  });

  it('rejects a token signed with another secret', async () => {
    const other = createJoseAccessTokens({
      secret: new TextEncoder().encode('x'.repeat(32)),
      issuer: 'margin-cms',
      audience: 'margin-cms-api',
      ttlSeconds: 900,
    });
    const { token } = await other.issue(subject, now);
    await rejection(tokens.verify(token, now));
  });

  it('rejects alg none', async () => {
    const iat = Math.floor(now.getTime() / 1000);
    const unsecured = new UnsecuredJWT({})
      .setSubject(subject.userId)
      .setIssuer('margin-cms')
      .setAudience('margin-cms-api')
      .setIssuedAt(iat)
      .setExpirationTime(iat + 60)
      .setJti('x')
      .encode();
    await rejection(tokens.verify(unsecured, now));
  });

  it('rejects another HMAC algorithm even with the right secret', async () => {
    const iat = Math.floor(now.getTime() / 1000);
    const hs512 = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS512' })
      .setSubject('u')
      .setIssuer('margin-cms')
      .setAudience('margin-cms-api')
      .setIssuedAt(iat)
      .setExpirationTime(iat + 60)
      .setJti('x')
      .sign(secret);
    await rejection(tokens.verify(hs512, now));
  });

  it('rejects a wrong issuer or audience', async () => {
    for (const [issuer, audience] of [
      ['someone-else', 'margin-cms-api'],
      ['margin-cms', 'another-api'],
    ] as const) {
      const foreign = createJoseAccessTokens({ secret, issuer, audience, ttlSeconds: 900 });
      await rejection(tokens.verify((await foreign.issue(subject, now)).token, now));
    }
  });

  it('rejects a token whose payload was edited', async () => {
    const { token } = await tokens.issue(subject, now);
    const [h, p, s] = token.split('.');
    const payload = JSON.parse(Buffer.from(p!, 'base64url').toString());
    payload.sub = 'someone-else';
    const forged = [h, Buffer.from(JSON.stringify(payload)).toString('base64url'), s].join('.');
    await rejection(tokens.verify(forged, now));
    // and a correctly re-signed one with a guessed secret
    const guessed = createHmac('sha256', 'guess').update(`${h}.${p}`).digest('base64url');
    await rejection(tokens.verify(`${h}.${p}.${guessed}`, now));
  });

  it('reads a token without sv (issued before session versions) as session version 0, and refuses a malformed sv', async () => {
    const key = new Uint8Array(secret);
    const sign = (claims: Record<string, unknown>) =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setSubject(subject.userId)
        .setIssuer('margin-cms')
        .setAudience('margin-cms-api')
        .setIssuedAt(now.getTime() / 1000)
        .setExpirationTime(now.getTime() / 1000 + 900)
        .setJti('a-token-id')
        .sign(key);
    expect((await tokens.verify(await sign({ name: 'Ada' }), now)).sessionVersion).toBe(0);
    for (const sv of [-1, 1.5, '2'])
      expect((await rejection(tokens.verify(await sign({ name: 'Ada', sv }), now))).reason).toBe('malformed');
  });

  it('refuses a secret shorter than 32 bytes', () => {
    expect(() => createJoseAccessTokens({ secret: new Uint8Array(31), issuer: 'i', audience: 'a', ttlSeconds: 1 })).toThrow(/32 bytes/);
  });
});
