/**
 * Password hashing. `hash` returns a self-describing hash (algorithm and parameters included);
 * `verify` answers false, never throws, for a wrong password or a malformed hash, and does its
 * work off the event loop.
 */
export interface PasswordHasher {
  hash(password: string): Promise<string>;
  verify(hash: string, password: string): Promise<boolean>;
}

export interface AccessTokenClaims {
  userId: string;
  name: string;
  tokenId: string;
}

/**
 * Short-lived signed access tokens. `verify` throws `InvalidTokenError` for anything it does not
 * accept: a bad signature, another algorithm (`none` included), a wrong issuer or audience, or an
 * expired token (a few seconds of clock skew allowed). Instants come from the caller's clock.
 */
export interface AccessTokens {
  readonly ttlSeconds: number;
  issue(subject: { userId: string; name: string }, now: Date): Promise<{ token: string; tokenId: string }>;
  verify(token: string, now: Date): Promise<AccessTokenClaims>;
}

/**
 * The secrets of refresh tokens. `newToken` gives 256 random bits, base64url; `hash` is what is
 * stored instead of a token (the same token always hashes the same); `seal` encrypts an answer
 * so that only a holder of the token it names (with the server's secret) can read it back, and
 * `open` answers null, never throws, for text not sealed with that token or tampered with.
 */
export interface RefreshTokenSecrets {
  newToken(): string;
  hash(token: string): string;
  seal(token: string, text: string): string;
  open(token: string, sealed: string): string | null;
}
