/**
 * Password hashing. `hash` returns a self-describing hash (algorithm and parameters included);
 * `verify` answers false, never throws, for a wrong password or a malformed hash, and does its
 * work off the event loop.
 */
export interface PasswordHasher {
  hash(password: string): Promise<string>;
  verify(hash: string, password: string): Promise<boolean>;
}

/**
 * Which passwords an account may have. `problem` answers why not, as a phrase that follows "the
 * password" ("must be at least 12 characters", "is too easy to guess (a common password)"), or null
 * when it may: at least `passwordProblem`'s length, and not a common, repeated, sequential or
 * otherwise quickly guessed password, nor one made of `context` (the account's email and name).
 */
export interface PasswordPolicy {
  problem(password: string, context: readonly string[]): Promise<string | null>;
}

export interface AccessTokenClaims {
  userId: string;
  name: string;
  tokenId: string;
  /** The user's session version when the token was issued (0 when the token carries none). */
  sessionVersion: number;
}

/**
 * Short-lived signed access tokens. `verify` throws `InvalidTokenError` for anything it does not
 * accept: a bad signature, another algorithm (`none` included), a wrong issuer or audience, or an
 * expired token (a few seconds of clock skew allowed). Instants come from the caller's clock.
 */
export interface AccessTokens {
  readonly ttlSeconds: number;
  issue(subject: { userId: string; name: string; sessionVersion: number }, now: Date): Promise<{ token: string; tokenId: string }>;
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
