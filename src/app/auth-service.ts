import {
  InvalidCredentialsError,
  InvalidRefreshTokenError,
  InvalidTokenError,
  loginNetwork,
  TooManyAttemptsError,
  type AccessTokenClaims,
  type AccessTokens,
  type Clock,
  type IdGenerator,
  type LoginAttemptRepository,
  type PasswordHasher,
  type RefreshToken,
  type RefreshTokenRepository,
  type RefreshTokenSecrets,
  type UnitOfWork,
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

export interface AuthServiceOptions {
  users: UserRepository;
  refreshTokens: RefreshTokenRepository;
  loginAttempts: LoginAttemptRepository;
  /** Rotations, and the revocation a reuse triggers, run in one unit. */
  unitOfWork: UnitOfWork;
  refreshSecrets: RefreshTokenSecrets;
  hasher: PasswordHasher;
  accessTokens: AccessTokens;
  clock: Clock;
  ids: IdGenerator;
  refreshTtlSeconds: number;
  /** A consumed refresh token presented again within this window replays its answer. */
  refreshGraceSeconds: number;
  /**
   * Failed logins allowed per account within the window, across every address that has never
   * logged in to it; one more is a 429. An address that has is held to its own count of this size.
   */
  maxFailedLogins: number;
  /** Failed logins allowed per address (an IPv6 /64), whatever the account, within the window. */
  maxFailedLoginsPerAddress: number;
  loginWindowSeconds: number;
  /** Verified when the email is unknown, so both failures cost the same. */
  dummyHash: string | Promise<string>;
}

/** Login, single-use rotating refresh tokens with reuse detection, logout and bearer verification. */
export class AuthService {
  /** Session-version lookups in flight, per user: concurrent requests of a user share one. */
  readonly #versionLookups = new Map<string, Promise<number | null>>();

  constructor(private readonly options: AuthServiceOptions) {}

  /**
   * Two limits, each counted atomically across processes: failures from the address (its /64 for
   * IPv6), whatever the account; and failures for the account from every address that has never
   * logged in to it, together, so that guessing from many addresses is bounded too. An address
   * that has logged in to the account before has its own count instead, so its owner is not
   * locked out by guesses from elsewhere.
   */
  async login(email: string, password: string, address: string): Promise<TokenPair> {
    const { users, loginAttempts, hasher, clock } = this.options;
    const now = clock.now();
    const account = email.trim().toLowerCase();
    const network = loginNetwork(address);
    const addressKey = `address:${network}`;
    // Failures strictly within the last window: one exactly a window old no longer counts, so a
    // client that waits Retry-After seconds is let in.
    const since = new Date(now.getTime() - this.options.loginWindowSeconds * 1000 + 1);
    const refuse = (oldest: Date, limit: 'address' | 'account') => {
      const retryAt = oldest.getTime() + this.options.loginWindowSeconds * 1000;
      return new TooManyAttemptsError(Math.max(1, Math.ceil((retryAt - now.getTime()) / 1000)), limit);
    };
    // Each attempt counts as a failure while it runs (a success takes it back), recorded and
    // counted in one atomic step: of a parallel burst, exactly as many as the limits leave room
    // for reach the password check, whichever process they reach.
    const byAddress = await loginAttempts.admit(addressKey, now, since, this.options.maxFailedLoginsPerAddress);
    if (!byAddress.admitted) throw refuse(byAddress.oldest, 'address');
    // Known only ever grows, so reading it before the atomic admit races with nothing that matters.
    const known = await loginAttempts.knownAddress(account, network);
    const accountKey = known ? `account:${account}|${network}` : `account:${account}`;
    const byAccount = await loginAttempts.admit(accountKey, now, since, this.options.maxFailedLogins);
    if (!byAccount.admitted) throw refuse(byAccount.oldest, 'account');
    const user = await users.getByEmail(email);
    const valid = await hasher.verify(user?.passwordHash ?? (await this.options.dummyHash), password);
    if (!user || !valid) throw new InvalidCredentialsError();
    // A success at a known address clears the account's count there; elsewhere it takes back only
    // its own attempt (the failures from other addresses stay: knowing the password is not proof
    // that they were this client's). It takes back its attempt at the address too (other failures
    // from the address stay: one good account does not reset a spray), and the address is known
    // from now on.
    if (known) await loginAttempts.clear(accountKey);
    else await loginAttempts.forget(byAccount.attemptId);
    await loginAttempts.forget(byAddress.attemptId);
    await loginAttempts.rememberAddress(account, network, now);
    const refreshToken = this.options.refreshSecrets.newToken();
    const pair = await this.#pair(user, refreshToken, now);
    await this.options.refreshTokens.insert(this.#record(user, this.options.ids.next(), refreshToken, now));
    return pair;
  }

  /**
   * Consumes the refresh token and returns the next pair. A token consumed less than the grace
   * window ago answers the same pair again (`replayed`); older reuse revokes the family.
   */
  async refresh(refreshToken: string): Promise<{ pair: TokenPair; replayed: boolean }> {
    const { refreshTokens, users, clock, refreshSecrets: secrets } = this.options;
    const now = clock.now();
    const tokenHash = secrets.hash(refreshToken);
    // The token's user and family never change, so reading them first races with nothing: the
    // rotation below is what decides, atomically, whether this request consumes the token.
    const existing = await refreshTokens.find(tokenHash);
    if (!existing) throw new InvalidRefreshTokenError('unknown');
    const user = await users.get(existing.userId);
    if (!user) throw new InvalidRefreshTokenError('unknown user');
    // The user's sessions ended after this token's login began (a password reset, logoutAll):
    // dead even if a rotation raced with their revocation.
    if (existing.sessionVersion !== user.sessionVersion) throw new InvalidRefreshTokenError('revoked');
    const successorToken = secrets.newToken();
    const pair = await this.#pair(user, successorToken, now);
    const successor = this.#record(user, existing.familyId, successorToken, now);
    const sealed = secrets.seal(refreshToken, JSON.stringify(pair));
    // One unit: the rotation, and on a reuse past the grace window the family's revocation.
    const result = await this.options.unitOfWork.run(
      async (repos): Promise<{ pair: TokenPair; replayed: boolean } | InvalidRefreshTokenError> => {
        const outcome = await repos.refreshTokens.rotate(tokenHash, now, successor, sealed);
        switch (outcome.outcome) {
          case 'consumed':
            return { pair, replayed: false };
          case 'already_consumed': {
            const consumedAt = outcome.token.consumedAt?.getTime() ?? 0;
            const withinGrace = now.getTime() - consumedAt <= this.options.refreshGraceSeconds * 1000;
            const replay = withinGrace && outcome.token.replay ? secrets.open(refreshToken, outcome.token.replay) : null;
            if (replay !== null) return { pair: JSON.parse(replay) as TokenPair, replayed: true };
            await repos.refreshTokens.revokeFamily(outcome.token.familyId, now);
            // Returned, not thrown: the revocation must commit.
            return new InvalidRefreshTokenError('reused');
          }
          case 'revoked':
          case 'expired':
          case 'unknown':
            return new InvalidRefreshTokenError(outcome.outcome);
        }
      },
    );
    if (result instanceof InvalidRefreshTokenError) throw result;
    return result;
  }

  /** Revokes the token's family; unknown tokens are ignored so logout cannot probe tokens. */
  async logout(refreshToken: string): Promise<void> {
    const token = await this.options.refreshTokens.find(this.options.refreshSecrets.hash(refreshToken));
    if (token) await this.options.refreshTokens.revokeFamily(token.familyId, this.options.clock.now());
  }

  /**
   * Ends every session of the user: the session version goes up first (from then on every access
   * token issued before is refused, and every refresh token of an older version too), then every
   * refresh token of the user is revoked.
   */
  async logoutAll(userId: string): Promise<void> {
    const version = await this.options.users.endSessions(userId);
    // A request from now on must not share a lookup that may have read the old version.
    this.#versionLookups.delete(userId);
    if (version === null) throw new InvalidTokenError('unknown user');
    await this.options.refreshTokens.revokeUser(userId, this.options.clock.now());
  }

  /**
   * The token's claims, once its signature and expiry check out (the token adapter remembers
   * verified tokens) and its session version is still the user's. The version is read from the
   * store for every request (one indexed read of one integer), never cached, so that a session
   * ended by any process is refused by every process from then on; requests of one user that
   * arrive while a read of theirs is in flight share it (under load a user's requests then cost
   * one read per round trip, not one each). A shared read was sent at most one round trip before
   * the request arrived; a logoutAll in this process stops sharing any read sent before it.
   */
  async authenticate(accessToken: string): Promise<AccessTokenClaims> {
    const claims = await this.options.accessTokens.verify(accessToken, this.options.clock.now());
    const current = await this.#sessionVersion(claims.userId);
    if (current === null) throw new InvalidTokenError('unknown user');
    if (current !== claims.sessionVersion) throw new InvalidTokenError('session ended');
    return claims;
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

  #sessionVersion(userId: string): Promise<number | null> {
    const inFlight = this.#versionLookups.get(userId);
    if (inFlight !== undefined) return inFlight;
    const lookup = this.options.users.sessionVersion(userId);
    this.#versionLookups.set(userId, lookup);
    const done = () => {
      if (this.#versionLookups.get(userId) === lookup) this.#versionLookups.delete(userId);
    };
    lookup.then(done, done);
    return lookup;
  }

  #record(user: User, familyId: string, token: string, now: Date): RefreshToken {
    return {
      id: this.options.ids.next(),
      familyId,
      userId: user.id,
      tokenHash: this.options.refreshSecrets.hash(token),
      createdAt: now,
      expiresAt: new Date(now.getTime() + this.options.refreshTtlSeconds * 1000),
      consumedAt: null,
      revokedAt: null,
      replay: null,
      sessionVersion: user.sessionVersion,
    };
  }

  async #pair(user: User, refreshToken: string, now: Date): Promise<TokenPair> {
    const { token } = await this.options.accessTokens.issue({ userId: user.id, name: user.name, sessionVersion: user.sessionVersion }, now);
    return {
      accessToken: token,
      refreshToken,
      expiresIn: this.options.accessTokens.ttlSeconds,
      refreshExpiresIn: this.options.refreshTtlSeconds,
      user: { id: user.id, email: user.email, name: user.name },
    };
  }
}
