import { createContext, useContext, useSyncExternalStore, type ReactNode } from 'react';
import { createMarginClient, type MarginClient, type SessionTokens } from '../../../src/client/index.js';

/**
 * The signed-in user's session: the one API client of the app (src/client, with its bearer token,
 * its single refresh on a 401 and its If-Match bookkeeping) and whether it holds tokens.
 *
 * Where the tokens live: in that client's memory only (a private field of its TokenSession), never
 * in localStorage, sessionStorage, IndexedDB or a cookie. XSS is the threat (#30): anything a
 * script can read from storage, an injected script can read and send away, and the refresh token
 * is good for 30 days. In memory it lives as long as the tab; a reload or a new tab asks to sign
 * in again. That is the price, and the strict CSP (no inline or foreign script) is the other half
 * of the defence.
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
  /** For tests: a session already signed in. */
  tokens?: SessionTokens;
}

export function createSession(options: SessionOptions = {}): Session {
  const listeners = new Set<() => void>();
  const client = createMarginClient({
    baseUrl: options.baseUrl ?? `${window.location.origin}/api/v1`,
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.tokens ? { tokens: options.tokens } : {}),
    onTokens: () => listeners.forEach((listener) => listener()),
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
