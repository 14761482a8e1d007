import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { useEffect, type ReactNode } from 'react';
import { SessionProvider, type Session } from '../lib/session';

/** The query cache of the app: server state lives here, one key factory per resource. */
export function createQueryClient(): QueryClient {
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
