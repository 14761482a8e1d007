/**
 * What the component tests render the app over: a fake API behind src/client's fetch, answering
 * by `METHOD /path` and recording every request, and the app's providers and routes in a memory
 * router. Nothing is mocked inside the app: the session, the client and the query cache are real.
 */
import { render } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { AppProviders, createQueryClient } from '../app/providers';
import { AppRoutes } from '../app/routes';
import { createSession, REFRESH_TOKEN_KEY, type Session } from '../lib/session';

type Handler = (request: Request, url: URL) => Response | Promise<Response>;

const API = 'http://admin.test/api/v1';

export function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  const type = status >= 400 ? 'application/problem+json' : 'application/json';
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': type, ...headers } });
}

export function problem(status: number, kind: string, title: string, detail: string, extra: Record<string, unknown> = {}, headers = {}) {
  return json(status, { type: `https://margincms.dev/problems/${kind}`, title, status, detail, ...extra }, headers);
}

export function tokenPair(accessToken: string, refreshToken = `refresh-of-${accessToken}`) {
  return {
    accessToken,
    refreshToken,
    tokenType: 'Bearer',
    expiresIn: 900,
    refreshExpiresIn: 2592000,
    user: { id: '01JDQ7W3E5R7T9Y1V3N5Q7P9AS', email: 'ada@example.com', name: 'Ada Lovelace' },
  };
}

export function postSummary(id: string, title: string, status = 'draft') {
  return {
    id,
    title,
    slug: title.toLowerCase().replace(/\W+/g, '-'),
    excerpt: '',
    tags: [],
    status,
    version: 1,
    wordCount: 3,
    createdAt: '2026-01-02T10:00:00.000Z',
    updatedAt: '2026-01-02T10:00:00.000Z',
    publishedAt: null,
    publishAt: null,
  };
}

/** A fake API: `routes` answers by `METHOD /path` (below /api/v1); `requests` lists what came. */
export function fakeApi(routes: Record<string, Handler>) {
  const requests: { method: string; url: URL; authorization: string | null }[] = [];
  const fetch = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    requests.push({ method: request.method, url, authorization: request.headers.get('authorization') });
    const handler = routes[`${request.method} ${url.pathname.slice('/api/v1'.length)}`];
    if (!handler) return problem(404, 'not-found', 'Not Found', `No fake route for ${request.method} ${url.pathname}`);
    return handler(request, url);
  };
  return {
    fetch,
    requests,
    calls: (method: string, path: string) => requests.filter((r) => r.method === method && r.url.pathname === `/api/v1${path}`),
  };
}

/** The app at `path`, over `session`, in a data router as main.tsx makes it (in memory). */
export function renderApp(path: string, session: Session) {
  const router = createMemoryRouter([{ path: '*', element: <AppRoutes /> }], { initialEntries: [path] });
  return render(
    <AppProviders session={session} queryClient={createQueryClient()}>
      <RouterProvider router={router} />
    </AppProviders>,
  );
}

/** A session over `fetch`, signed in with `signedInAs` as its access token, in a browser that kept no other. */
export function sessionOver(fetch: (request: Request) => Promise<Response>, signedInAs?: string) {
  localStorage.removeItem(REFRESH_TOKEN_KEY);
  return createSession({
    baseUrl: API,
    fetch,
    ...(signedInAs ? { tokens: { accessToken: signedInAs, refreshToken: `refresh-of-${signedInAs}` } } : {}),
  });
}
