import type { components } from '../../generated/api.js';

/** The pair login and refresh answer with. */
export type TokenPair = components['schemas']['TokenPair'];
/** The part of a pair the client needs to resume a session (for example from storage). */
export type SessionTokens = Pick<TokenPair, 'accessToken' | 'refreshToken'>;

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
   * Returns an access token to retry with after `rejected` was refused, or null when there is none
   * (no session, or the refresh failed). Refreshes at most once per access token.
   */
  async renew(rejected: string): Promise<string | null> {
    const current = this.#tokens;
    if (!current) return null;
    if (current.accessToken !== rejected) return current.accessToken;
    this.#inFlight ??= this.#refresh(current.refreshToken).finally(() => {
      this.#inFlight = null;
    });
    return this.#inFlight;
  }

  async #refresh(refreshToken: string): Promise<string | null> {
    let outcome: RefreshOutcome;
    try {
      outcome = await this.#options.refresh(refreshToken);
    } catch {
      outcome = 'failed';
    }
    // A login or logout while the refresh ran wins over its answer.
    if (this.#tokens?.refreshToken !== refreshToken) return this.#tokens?.accessToken ?? null;
    if (outcome === 'failed') return null;
    if (outcome === 'rejected') {
      this.clear();
      return null;
    }
    this.set(outcome.pair);
    return outcome.pair.accessToken;
  }
}
