import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import type { ReactNode } from 'react';
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

export function AppProviders({ session, queryClient, children }: { session: Session; queryClient: QueryClient; children: ReactNode }) {
  return (
    <SessionProvider session={session}>
      <QueryClientProvider client={queryClient}>{children}</QueryClientProvider>
    </SessionProvider>
  );
}
