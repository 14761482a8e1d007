import { createContext, useContext, useSyncExternalStore, type ReactNode } from 'react';
import { createMarginClient, type MarginClient, type SessionTokens } from '../../../src/client/index.js';
import { browserSharedRefresh } from './shared-refresh';

/**
 * The signed-in user's session: the one API client of the app (src/client, with its bearer token,
 * its refresh on a 401 and its If-Match bookkeeping) and whether it holds tokens.
 *
 * Where the tokens live, and the threat each choice answers:
 * - The access token (15 minutes) stays in this tab's memory only, never in storage.
 * - The refresh token is kept in localStorage, so that a reload, a new tab or a bookmark finds the
 *   session. A script running in the page could read it there (XSS); the admin is served under a
 *   strict CSP (no inline or foreign script, a nonce per load), which is what keeps such a script
 *   out. Should one get a refresh token anyway, the server rotates it on every use and detects a
 *   reuse: the first of thief and user to refresh after the other ends the whole session family.
 * - Tabs share the token without ever spending it twice (which would look like that reuse): each
 *   refresh runs under one Web Lock and spends the token as the tab before it left it (src/client's
 *   SharedRefresh; shared-refresh.ts reads it from IndexedDB inside the lock). Where the Web Locks
 *   API is missing (a page served over plain HTTP to a host other than localhost), refreshes read
 *   the stored token first but are not serialised.
 * - Signing out (or a refused refresh) removes the stored token; the other tabs hear of it through
 *   the storage event and forget the session too. Signing in in one tab signs in the others.
 * No cookie is involved: the API takes bearer tokens only, so no request can be forged across sites.
 */
export interface Session {
  readonly client: MarginClient;
  /** Whether the client holds tokens (false after sign-out, or once a refresh is refused). */
  signedIn(): boolean;
  /** Calls `listener` whenever the tokens change (sign-in, refresh, sign-out); returns the unsubscribe. */
  subscribe(listener: () => void): () => void;
}

export interface SessionOptions {
  /** The API root; the server that served the app by default. */
  baseUrl?: string;
  /** For tests: the client's fetch. */
  fetch?: (request: Request) => Promise<Response>;
  /** For tests: a session already signed in (its refresh token stored as a sign-in stores it). */
  tokens?: SessionTokens;
}

/** The key of the refresh token in localStorage. */
export const REFRESH_TOKEN_KEY = 'margincms:refresh-token';

/** Storage that is disabled or full keeps the session in this tab's memory only. */
const stored = {
  read(): string | null {
    try {
      return localStorage.getItem(REFRESH_TOKEN_KEY);
    } catch {
      return null;
    }
  },
  write(token: string | null): void {
    try {
      if (token === null) localStorage.removeItem(REFRESH_TOKEN_KEY);
      else localStorage.setItem(REFRESH_TOKEN_KEY, token);
    } catch {
      // The session lives on in this tab's memory.
    }
  },
};

/** The refresh token as this browser's tabs share it, refreshed under one Web Lock (shared-refresh.ts). */
const sharedRefresh = browserSharedRefresh(stored.read);

export function createSession(options: SessionOptions = {}): Session {
  const listeners = new Set<() => void>();
  const notify = () => listeners.forEach((listener) => listener());
  if (options.tokens) {
    stored.write(options.tokens.refreshToken);
    sharedRefresh.keep(options.tokens.refreshToken);
  }
  const kept = stored.read();
  const tokens = options.tokens ?? (kept === null ? undefined : { accessToken: null, refreshToken: kept });
  const client = createMarginClient({
    baseUrl: options.baseUrl ?? `${window.location.origin}/api/v1`,
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(tokens ? { tokens } : {}),
    shared: sharedRefresh,
    onTokens: (pair) => {
      stored.write(pair?.refreshToken ?? null);
      sharedRefresh.keep(pair?.refreshToken ?? null);
      notify();
    },
  });
  // Another tab signed in or out (localStorage.clear() reports a null key).
  window.addEventListener('storage', (event) => {
    if (event.key !== REFRESH_TOKEN_KEY && event.key !== null) return;
    const token = stored.read();
    if (token === null) return client.resume(null);
    if (client.tokens) return;
    client.resume(token);
    notify();
  });
  return {
    client,
    signedIn: () => client.tokens !== null,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

const SessionContext = createContext<Session | null>(null);

/** The session of the context. */
function useSessionStore(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside <SessionProvider>');
  return session;
}

export function SessionProvider({ session, children }: { session: Session; children: ReactNode }) {
  return <SessionContext.Provider value={session}>{children}</SessionContext.Provider>;
}

/** The session of the app, and whether it is signed in (re-rendering when that changes). */
export function useSession(): { client: MarginClient; signedIn: boolean } {
  const session = useSessionStore();
  const signedIn = useSyncExternalStore(session.subscribe, session.signedIn);
  return { client: session.client, signedIn };
}
