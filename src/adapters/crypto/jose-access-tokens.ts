import { randomUUID } from 'node:crypto';
import { SignJWT, errors, jwtVerify } from 'jose';
import { InvalidTokenError, type AccessTokens } from '../../domain/index.js';

export interface JoseAccessTokenOptions {
  /** At least 32 bytes. */
  secret: Uint8Array;
  issuer: string;
  audience: string;
  ttlSeconds: number;
  clockToleranceSeconds?: number;
}

const ALGORITHM = 'HS256';

/** HS256 JWTs through jose, with sub, name, iat, exp, jti, iss and aud; the algorithm is pinned. */
export function createJoseAccessTokens(options: JoseAccessTokenOptions): AccessTokens {
  if (options.secret.byteLength < 32) throw new Error('the JWT secret must be at least 32 bytes');
  const { secret, issuer, audience, ttlSeconds } = options;
  return {
    ttlSeconds,
    async issue(subject, now) {
      const tokenId = randomUUID();
      const iat = Math.floor(now.getTime() / 1000);
      const token = await new SignJWT({ name: subject.name })
        .setProtectedHeader({ alg: ALGORITHM, typ: 'JWT' })
        .setSubject(subject.userId)
        .setIssuer(issuer)
        .setAudience(audience)
        .setIssuedAt(iat)
        .setExpirationTime(iat + ttlSeconds)
        .setJti(tokenId)
        .sign(secret);
      return { token, tokenId };
    },
    async verify(token, now) {
      try {
        const { payload } = await jwtVerify(token, secret, {
          algorithms: [ALGORITHM],
          issuer,
          audience,
          currentDate: now,
          clockTolerance: options.clockToleranceSeconds ?? 5,
          requiredClaims: ['sub', 'iat', 'exp', 'jti'],
        });
        if (typeof payload.sub !== 'string' || typeof payload.jti !== 'string') throw new InvalidTokenError('malformed');
        return { userId: payload.sub, name: typeof payload.name === 'string' ? payload.name : '', tokenId: payload.jti };
      } catch (error) {
        if (error instanceof InvalidTokenError) throw error;
        if (error instanceof errors.JWTExpired) throw new InvalidTokenError('expired');
        throw new InvalidTokenError(error instanceof errors.JOSEError ? error.code : 'malformed');
      }
    },
  };
}
