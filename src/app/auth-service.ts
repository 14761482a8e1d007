import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';
import {
  InvalidCredentialsError,
  InvalidRefreshTokenError,
  InvalidTokenError,
  TooManyAttemptsError,
  type AccessTokenClaims,
  type AccessTokens,
  type Clock,
  type IdGenerator,
  type LoginAttemptRepository,
  type PasswordHasher,
  type RefreshToken,
  type RefreshTokenRepository,
  type User,
  type UserRepository,
} from '../domain/index.js';

export interface TokenPair {
  accessToken: string;
  refreshToken: string;
  expiresIn: number;
  refreshExpiresIn: number;
  user: { id: string; email: string; name: string };
}

/**
 * Failed logins allowed within the window, per account at one address and per address whatever
 * the account (spraying many emails from one address); one more is a 429.
 */

export interface AuthServiceOptions {
  users: UserRepository;
  refreshTokens: RefreshTokenRepository;
  loginAttempts: LoginAttemptRepository;
  hasher: PasswordHasher;
  accessTokens: AccessTokens;
  clock: Clock;
  ids: IdGenerator;
  refreshTtlSeconds: number;
  /** A consumed refresh token presented again within this window replays its answer. */
  refreshGraceSeconds: number;
  /** Failed logins allowed per account at one address within the window; one more is a 429. */
  maxFailedLogins: number;
  /** Failed logins allowed per address, whatever the account, within the window. */
  maxFailedLoginsPerAddress: number;
  loginWindowSeconds: number;
  /** Verified when the email is unknown, so both failures cost the same. */
  dummyHash: string | Promise<string>;
  /** A server-side secret mixed into the replay key, so a database leak alone opens no replay. */
  replaySecret: Uint8Array;
}

/** The refresh token given to the client: 256 random bits, base64url. Only its hash is stored. */
function newRefreshToken(): string {
  return randomBytes(32).toString('base64url');
}

export function hashRefreshToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/**
 * The answer to a refresh, encrypted with a key derived from the refresh token it consumed: only
 * a client holding that token can read it back, so a lost answer can be replayed without storing
 * any token in the clear.
 */
function replayKey(oldToken: string, secret: Uint8Array): Buffer {
  return Buffer.from(hkdfSync('sha256', oldToken, secret, 'margin-cms refresh replay', 32));
}

function sealReplay(oldToken: string, secret: Uint8Array, pair: TokenPair): string {
  const key = replayKey(oldToken, secret);
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const sealed = Buffer.concat([cipher.update(JSON.stringify(pair), 'utf8'), cipher.final()]);
  return [iv, cipher.getAuthTag(), sealed].map((b) => b.toString('base64url')).join('.');
}

function openReplay(oldToken: string, secret: Uint8Array, replay: string): TokenPair | null {
  try {
    const [iv, tag, sealed] = replay.split('.').map((p) => Buffer.from(p, 'base64url'));
    if (!iv || !tag || !sealed) return null;
    const key = replayKey(oldToken, secret);
    const decipher = createDecipheriv('aes-256-gcm', key, iv);
    decipher.setAuthTag(tag);
    return JSON.parse(Buffer.concat([decipher.update(sealed), decipher.final()]).toString('utf8')) as TokenPair;
  } catch {
    return null;
  }
}

/** Login, single-use rotating refresh tokens with reuse detection, logout and bearer verification. */
export class AuthService {
  constructor(private readonly options: AuthServiceOptions) {}

  async login(email: string, password: string, address: string): Promise<TokenPair> {
    const { users, loginAttempts, hasher, clock } = this.options;
    const now = clock.now();
    const accountKey = `account:${email.trim().toLowerCase()}|${address}`;
    const addressKey = `address:${address}`;
    // Failures strictly within the last window: one exactly a window old no longer counts, so a
    // client that waits Retry-After seconds is let in.
    const since = new Date(now.getTime() - this.options.loginWindowSeconds * 1000 + 1);
    const refuse = (oldest: Date) => {
      const retryAt = oldest.getTime() + this.options.loginWindowSeconds * 1000;
      return new TooManyAttemptsError(Math.max(1, Math.ceil((retryAt - now.getTime()) / 1000)));
    };
    // Each attempt counts as a failure while it runs (a success takes it back), recorded and
    // counted in one atomic step: of a parallel burst, exactly as many as the limits leave room
    // for reach the password check, whichever process they reach.
    const byAddress = await loginAttempts.admit(addressKey, now, since, this.options.maxFailedLoginsPerAddress);
    if (!byAddress.admitted) throw refuse(byAddress.oldest);
    const byAccount = await loginAttempts.admit(accountKey, now, since, this.options.maxFailedLogins);
    if (!byAccount.admitted) throw refuse(byAccount.oldest);
    const user = await users.getByEmail(email);
    const valid = await hasher.verify(user?.passwordHash ?? (await this.options.dummyHash), password);
    if (!user || !valid) throw new InvalidCredentialsError();
    // A success clears the account's count at this address, and takes back its own attempt at the
    // address (other failures from the address stay: one good account does not reset a spray).
    await loginAttempts.clear(accountKey);
    await loginAttempts.forget(byAddress.attemptId);
    const refreshToken = newRefreshToken();
    const pair = await this.#pair(user, refreshToken, now);
    await this.options.refreshTokens.insert(this.#record(user.id, this.options.ids.next(), refreshToken, now));
    return pair;
  }

  /**
   * Consumes the refresh token and returns the next pair. A token consumed less than the grace
   * window ago answers the same pair again (`replayed`); older reuse revokes the family.
   */
  async refresh(refreshToken: string): Promise<{ pair: TokenPair; replayed: boolean }> {
    const { refreshTokens, users, clock } = this.options;
    const now = clock.now();
    const tokenHash = hashRefreshToken(refreshToken);
    // The token's user and family never change, so reading them first races with nothing: the
    // rotation below is what decides, atomically, whether this request consumes the token.
    const existing = await refreshTokens.find(tokenHash);
    if (!existing) throw new InvalidRefreshTokenError('unknown');
    const user = await users.get(existing.userId);
    if (!user) throw new InvalidRefreshTokenError('unknown user');
    const successorToken = newRefreshToken();
    const pair = await this.#pair(user, successorToken, now);
    const outcome = await refreshTokens.rotate(
      tokenHash,
      now,
      this.#record(user.id, existing.familyId, successorToken, now),
      sealReplay(refreshToken, this.options.replaySecret, pair),
    );
    switch (outcome.outcome) {
      case 'consumed':
        return { pair, replayed: false };
      case 'already_consumed': {
        const consumedAt = outcome.token.consumedAt?.getTime() ?? 0;
        const withinGrace = now.getTime() - consumedAt <= this.options.refreshGraceSeconds * 1000;
        const replay = withinGrace && outcome.token.replay ? openReplay(refreshToken, this.options.replaySecret, outcome.token.replay) : null;
        if (replay) return { pair: replay, replayed: true };
        await refreshTokens.revokeFamily(outcome.token.familyId, now);
        throw new InvalidRefreshTokenError('reused');
      }
      case 'revoked':
        throw new InvalidRefreshTokenError('revoked');
      case 'expired':
        throw new InvalidRefreshTokenError('expired');
      case 'unknown':
        throw new InvalidRefreshTokenError('unknown');
    }
  }

  /** Revokes the token's family; unknown tokens are ignored so logout cannot probe tokens. */
  async logout(refreshToken: string): Promise<void> {
    const token = await this.options.refreshTokens.find(hashRefreshToken(refreshToken));
    if (token) await this.options.refreshTokens.revokeFamily(token.familyId, this.options.clock.now());
  }

  authenticate(accessToken: string): Promise<AccessTokenClaims> {
    return this.options.accessTokens.verify(accessToken, this.options.clock.now());
  }

  /**
   * The user an access token was issued to. A token of a user that no longer exists is unusable
   * (`InvalidTokenError`); a failing store is not the token's fault and keeps its own error.
   */
  async me(userId: string): Promise<User> {
    const user = await this.options.users.get(userId);
    if (!user) throw new InvalidTokenError('unknown user');
    return user;
  }

  #record(userId: string, familyId: string, token: string, now: Date): RefreshToken {
    return {
      id: this.options.ids.next(),
      familyId,
      userId,
      tokenHash: hashRefreshToken(token),
      createdAt: now,
      expiresAt: new Date(now.getTime() + this.options.refreshTtlSeconds * 1000),
      consumedAt: null,
      revokedAt: null,
      replay: null,
    };
  }

  async #pair(user: User, refreshToken: string, now: Date): Promise<TokenPair> {
    const { token } = await this.options.accessTokens.issue({ userId: user.id, name: user.name }, now);
    return {
      accessToken: token,
      refreshToken,
      expiresIn: this.options.accessTokens.ttlSeconds,
      refreshExpiresIn: this.options.refreshTtlSeconds,
      user: { id: user.id, email: user.email, name: user.name },
    };
  }
}
