import { randomUUID } from 'node:crypto';
import { SignJWT, errors, jwtVerify } from 'jose';
import { InvalidTokenError, type AccessTokenClaims, type AccessTokens } from '../../domain/index.js';

export interface JoseAccessTokenOptions {
  /** At least 32 bytes. */
  secret: Uint8Array;
  issuer: string;
  audience: string;
  ttlSeconds: number;
  clockToleranceSeconds?: number;
  /** Most verified tokens remembered at once (default 10,000); 0 verifies every call. */
  verifiedCacheSize?: number;
}

const ALGORITHM = 'HS256';

/**
 * HS256 JWTs through jose, with sub, name, sv (the session version), iat, exp, jti, iss and aud;
 * the algorithm is pinned.
 *
 * The key is imported into WebCrypto once, and a token whose signature and claims jose accepted
 * is remembered (by its exact text) until it expires, so that a client sending the same token on
 * every request pays the HMAC once: a later call only checks `exp` against `now`, exactly as jose
 * does. A token that differs by one character is a different key and is verified afresh.
 */
export function createJoseAccessTokens(options: JoseAccessTokenOptions): AccessTokens {
  if (options.secret.byteLength < 32) throw new Error('the JWT secret must be at least 32 bytes');
  const { issuer, audience, ttlSeconds } = options;
  const tolerance = options.clockToleranceSeconds ?? 5;
  const key = crypto.subtle.importKey('raw', new Uint8Array(options.secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
  const verified = new VerifiedTokens(options.verifiedCacheSize ?? 10_000);

  /** jose's rule: expired once `exp <= now - tolerance`, `now` in whole seconds. */
  const expiredAt = (exp: number, now: Date) => exp <= Math.floor(now.getTime() / 1000) - tolerance;

  return {
    ttlSeconds,
    async issue(subject, now) {
      const tokenId = randomUUID();
      const iat = Math.floor(now.getTime() / 1000);
      const token = await new SignJWT({ name: subject.name, sv: subject.sessionVersion })
        .setProtectedHeader({ alg: ALGORITHM, typ: 'JWT' })
        .setSubject(subject.userId)
        .setIssuer(issuer)
        .setAudience(audience)
        .setIssuedAt(iat)
        .setExpirationTime(iat + ttlSeconds)
        .setJti(tokenId)
        .sign(await key);
      return { token, tokenId };
    },
    async verify(token, now) {
      const known = verified.get(token);
      if (known !== undefined) {
        if (expiredAt(known.exp, now)) {
          verified.delete(token);
          throw new InvalidTokenError('expired');
        }
        return known.claims;
      }
      try {
        const { payload } = await jwtVerify(token, await key, {
          algorithms: [ALGORITHM],
          issuer,
          audience,
          currentDate: now,
          clockTolerance: tolerance,
          requiredClaims: ['sub', 'iat', 'exp', 'jti'],
        });
        if (typeof payload.sub !== 'string' || typeof payload.jti !== 'string' || typeof payload.exp !== 'number') {
          throw new InvalidTokenError('malformed');
        }
        // A token issued before session versions existed has none: version 0, every user's first.
        const sv = payload.sv ?? 0;
        if (typeof sv !== 'number' || !Number.isSafeInteger(sv) || sv < 0) throw new InvalidTokenError('malformed');
        const claims = Object.freeze({
          userId: payload.sub,
          name: typeof payload.name === 'string' ? payload.name : '',
          tokenId: payload.jti,
          sessionVersion: sv,
        });
        verified.set(token, { claims, exp: payload.exp });
        return claims;
      } catch (error) {
        if (error instanceof InvalidTokenError) throw error;
        if (error instanceof errors.JWTExpired) throw new InvalidTokenError('expired');
        throw new InvalidTokenError(error instanceof errors.JOSEError ? error.code : 'malformed');
      }
    },
  };
}

/** Tokens jose accepted, oldest first; the oldest is forgotten when the cache is full. */
class VerifiedTokens {
  readonly #entries = new Map<string, { claims: AccessTokenClaims; exp: number }>();

  constructor(private readonly capacity: number) {}

  get(token: string) {
    return this.#entries.get(token);
  }

  set(token: string, entry: { claims: AccessTokenClaims; exp: number }): void {
    if (this.capacity === 0) return;
    if (this.#entries.size >= this.capacity) this.#entries.delete(this.#entries.keys().next().value!);
    this.#entries.set(token, entry);
  }

  delete(token: string): void {
    this.#entries.delete(token);
  }
}
