import type { components } from '../../generated/api.js';

/** The pair login and refresh answer with. */
export type TokenPair = components['schemas']['TokenPair'];
/**
 * The part of a pair the client needs to resume a session (for example from storage). Without an
 * access token (null: a session taken up from a stored refresh token alone), the first protected
 * request refreshes before it is sent.
 */
export type SessionTokens = Pick<TokenPair, 'refreshToken'> & { accessToken: string | null };

/**
 * A refresh token shared by several holders of one session (a browser's tabs, over localStorage):
 * each refresh runs alone and spends the token as stored at that moment, so two holders never
 * spend one token twice (which the server takes for theft and ends the session family).
 */
export interface SharedRefresh {
  /** The refresh token stored now, or null when the session was ended (here or by another holder). */
  read(): string | null;
  /**
   * Runs `task` while no other holder runs one (the Web Locks API in a browser) and answers its
   * result. The new token is stored from `onTokens`, which runs inside the task.
   */
  exclusive<T>(task: () => Promise<T>): Promise<T>;
}

/**
 * What a refresh attempt came to: a new pair, `rejected` when the server refused the refresh token
 * (it is spent, revoked or expired, so the session is over), or `failed` when the server could not
 * answer (network error, 5xx), which leaves the tokens in place for a later attempt.
 */
type RefreshOutcome = { pair: TokenPair } | 'rejected' | 'failed';

export interface TokenSessionOptions {
  tokens?: SessionTokens | undefined;
  /** Called with every new pair (login, refresh) and with null when the tokens are cleared. */
  onTokens?: ((pair: TokenPair | null) => void) | undefined;
  /** Exchanges a refresh token for a new pair; must not go through the refreshing middleware. */
  refresh: (refreshToken: string) => Promise<RefreshOutcome>;
  /** Where the refresh token is shared with other holders; each refresh then reads it inside the lock. */
  shared?: SharedRefresh | undefined;
}

/**
 * The tokens of one signed-in user, and the single-flight refresh: callers that were refused with
 * the same access token share one refresh request, and a caller refused with a token that has
 * since been replaced gets the current one without refreshing again.
 */
export class TokenSession {
  #tokens: SessionTokens | null;
  #inFlight: Promise<string | null> | null = null;
  readonly #options: TokenSessionOptions;

  constructor(options: TokenSessionOptions) {
    this.#options = options;
    this.#tokens = options.tokens ? { accessToken: options.tokens.accessToken, refreshToken: options.tokens.refreshToken } : null;
  }

  get tokens(): SessionTokens | null {
    return this.#tokens ? { ...this.#tokens } : null;
  }

  get accessToken(): string | null {
    return this.#tokens?.accessToken ?? null;
  }

  /**
   * Takes up a session from a refresh token another holder stored (its access token fetched by the
   * first request), or, with null, forgets the tokens without telling the server: the session was
   * ended elsewhere. A session already held is kept when given a token. Only the forgetting calls
   * `onTokens` (with null); the caller knows of the token it gave.
   */
  resume(refreshToken: string | null): void {
    if (refreshToken === null) return this.clear();
    if (this.#tokens) return;
    this.#tokens = { accessToken: null, refreshToken };
  }

  set(pair: TokenPair): void {
    this.#tokens = { accessToken: pair.accessToken, refreshToken: pair.refreshToken };
    this.#options.onTokens?.(pair);
  }

  clear(): void {
    if (!this.#tokens) return;
    this.#tokens = null;
    this.#options.onTokens?.(null);
  }

  /**
   * Returns an access token to retry with after `rejected` was refused (or to send at all, when
   * `rejected` is the null of a session without one), or null when there is none (no session, or
   * the refresh failed). Refreshes at most once per access token.
   */
  async renew(rejected: string | null): Promise<string | null> {
    const current = this.#tokens;
    if (!current) return null;
    if (current.accessToken !== rejected) return current.accessToken;
    this.#inFlight ??= this.#refresh(current.refreshToken).finally(() => {
      this.#inFlight = null;
    });
    return this.#inFlight;
  }

  #refresh(held: string): Promise<string | null> {
    const shared = this.#options.shared;
    if (!shared) return this.#spend(held, held);
    // Inside the lock the stored token is the one to spend: another holder may have spent `held`.
    return shared
      .exclusive(() => {
        const stored = shared.read();
        if (stored !== null) return this.#spend(held, stored);
        // Signed out elsewhere meanwhile.
        if (this.#tokens?.refreshToken === held) this.clear();
        return Promise.resolve(this.#tokens?.accessToken ?? null);
      })
      .catch(() => null);
  }

  /** Spends `refreshToken` for the session that held `held` when the refresh began. */
  async #spend(held: string, refreshToken: string): Promise<string | null> {
    let outcome: RefreshOutcome;
    try {
      outcome = await this.#options.refresh(refreshToken);
    } catch {
      outcome = 'failed';
    }
    // A login or logout while the refresh ran wins over its answer.
    if (this.#tokens?.refreshToken !== held) return this.#tokens?.accessToken ?? null;
    if (outcome === 'failed') return null;
    if (outcome === 'rejected') {
      this.clear();
      return null;
    }
    this.set(outcome.pair);
    return outcome.pair.accessToken;
  }
}
