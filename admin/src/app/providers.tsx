import { focusManager, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { useEffect, type ReactNode } from 'react';
import { SessionProvider, type Session } from '../lib/session';

/**
 * Focus, for the queries that refetch on it (the editor's post): a tab coming back into view, as
 * TanStack Query counts it, and also a window regaining focus, as when the author comes back from
 * another window with this tab still visible.
 */
function countWindowFocus(): void {
  focusManager.setEventListener((onFocus) => {
    const listener = () => onFocus();
    window.addEventListener('visibilitychange', listener);
    window.addEventListener('focus', listener);
    return () => {
      window.removeEventListener('visibilitychange', listener);
      window.removeEventListener('focus', listener);
    };
  });
}

/** The query cache of the app: server state lives here, one key factory per resource. */
export function createQueryClient(): QueryClient {
  countWindowFocus();
  return new QueryClient({
    defaultOptions: {
      // An API error is an answer (a problem), not a blip: it is shown, not retried.
      queries: { retry: false, staleTime: 10_000, refetchOnWindowFocus: false },
    },
  });
}

/** The session and the query cache; what one user's session read is dropped when it ends. */
export function AppProviders({ session, queryClient, children }: { session: Session; queryClient: QueryClient; children: ReactNode }) {
  useEffect(
    () =>
      session.subscribe(() => {
        if (!session.signedIn()) queryClient.clear();
      }),
    [session, queryClient],
  );
  return (
    <SessionProvider session={session}>
      <QueryClientProvider client={queryClient}>{children}</QueryClientProvider>
    </SessionProvider>
  );
}
