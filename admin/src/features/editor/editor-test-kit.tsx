/** What the editor's component tests share: a post, its fake API, and opening it in the app. */
import { screen } from '@testing-library/react';
import { fakeApi, json, renderApp, sessionOver } from '../../test/fake-api';

/** The editor route is loaded on demand: its first render waits for the chunk. */
export const LOAD = { timeout: 5000 };

export function post(overrides: Record<string, unknown> = {}) {
  return {
    id: '01A',
    title: 'Hello',
    slug: 'hello',
    excerpt: 'A first post.',
    body: 'Line one.\nLine two.\n',
    tags: ['intro'],
    status: 'draft',
    version: 3,
    wordCount: 4,
    createdAt: '2026-01-02T10:00:00.000Z',
    updatedAt: '2026-01-02T10:00:00.000Z',
    publishedAt: null,
    publishAt: null,
    coverImage: null,
    seo: { title: null, description: null, canonicalUrl: null },
    ...overrides,
  };
}

type Handler = (request: Request) => Response | Promise<Response>;

/** Records each write's If-Match, Idempotency-Key and JSON body, then answers with `answer(n, body)`. */
export function writes(answer: (n: number, body: Record<string, unknown>) => Response) {
  const seen: { ifMatch: string | null; key: string | null; body: Record<string, unknown> }[] = [];
  const handler = async (request: Request) => {
    const body = (await request.json()) as Record<string, unknown>;
    seen.push({ ifMatch: request.headers.get('if-match'), key: request.headers.get('idempotency-key'), body });
    return answer(seen.length, body);
  };
  /** The JSON bodies sent, in order. */
  const bodies = () => seen.map((write) => write.body);
  return { seen, bodies, handler };
}

/** Post 01A (as `opened`) in the editor over a fake API with `routes` besides. */
export async function openEditor(opened: Record<string, unknown>, routes: Record<string, Handler> = {}) {
  const api = fakeApi({
    'GET /posts/01A': () => json(200, post(opened), { etag: '"3"' }),
    'GET /tags': () => json(200, { items: [] }),
    'POST /preview': () => json(200, { html: '' }),
    ...routes,
  });
  renderApp('/posts/01A', sessionOver(api.fetch, 'access-1'));
  await screen.findByLabelText('Title', undefined, LOAD);
  return api;
}
