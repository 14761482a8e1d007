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
