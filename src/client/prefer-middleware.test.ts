/**
 * preferMiddleware: the client's `Prefer` for the Prism mock, chosen per request. Against the mock
 * of the contract (scripts/mock.mjs, as `make mock` runs it), and against a recording fetch for
 * what the mock cannot show (which requests carry the header).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPrism, type PrismMock } from '../../test/support/prism.js';
import { createMarginClient, preferMiddleware, type PreferAnswer } from './index.js';

const DRAFT_ID = '01JDQ8Z4M6X2V7K9T3N5R8W1YB';

/** A chooser that hands `value` to the next change (not a GET) only, as the admin's panel does. */
function nextChange(value: string) {
  let armed: string | undefined = value;
  return (request: Request) => {
    if (request.method === 'GET' || armed === undefined) return undefined;
    const chosen = armed;
    armed = undefined;
    return chosen;
  };
}

describe('preferMiddleware against the mock', () => {
  let mock: PrismMock;
  beforeAll(async () => {
    mock = await startPrism();
  }, 60_000);
  afterAll(() => mock?.stop());

  it('makes the next save answer the 412 example, with its current post and ETag, and the save after it 200', async () => {
    const answers: PreferAnswer[] = [];
    const client = createMarginClient({ baseUrl: mock.baseUrl });
    expect((await client.login('ada@example.com', 'any password at all')).response.status).toBe(200);
    client.api.use(preferMiddleware(nextChange('code=412'), { onAnswer: (answer) => answers.push(answer) }));
    const read = await client.getPost(DRAFT_ID);
    expect(read.data).toMatchObject({ id: DRAFT_ID, version: 1 });
    expect(client.etagOf(DRAFT_ID)).toBe('"1"');

    const stale = await client.updatePost(DRAFT_ID, { title: 'Mine' });
    expect(stale.response.status).toBe(412);
    expect(stale.error && 'current' in stale.error && stale.error.current).toMatchObject({ id: DRAFT_ID, version: 2 });
    expect(client.etagOf(DRAFT_ID)).toBe('"2"');
    expect(answers).toEqual([{ method: 'PATCH', path: '/posts/{id}', prefer: 'code=412', status: 412 }]);

    const saved = await client.updatePost(DRAFT_ID, { title: 'Mine' });
    expect(saved.response.status).toBe(200);
    expect(answers).toHaveLength(1);
  });

  it('picks a named example with example=<Name>', async () => {
    const client = createMarginClient({ baseUrl: mock.baseUrl, tokens: { accessToken: 'a', refreshToken: 'r' } });
    client.api.use(preferMiddleware((request) => (request.method === 'GET' ? 'example=PostPublished' : undefined)));
    const read = await client.getPost(DRAFT_ID);
    expect(read.data).toMatchObject({ status: 'published', version: 4 });
  });
});

describe('preferMiddleware', () => {
  /** A client whose fetch records the Prefer of each request and answers 204. */
  function recording() {
    const seen: (string | null)[] = [];
    const client = createMarginClient({
      baseUrl: 'http://localhost/api/v1',
      tokens: { accessToken: 'a', refreshToken: 'r' },
      fetch: (request) => {
        seen.push(request.headers.get('prefer'));
        return Promise.resolve(new Response(null, { status: 204 }));
      },
    });
    return { client, seen };
  }

  it('sends no Prefer when the chooser gives none', async () => {
    const { client, seen } = recording();
    client.api.use(preferMiddleware(() => undefined));
    await client.deletePost(DRAFT_ID, { ifMatch: '"1"' });
    expect(seen).toEqual([null]);
  });

  it('leaves a Prefer the caller set, without asking the chooser', async () => {
    const { client, seen } = recording();
    let asked = 0;
    client.api.use(preferMiddleware(() => (asked++, 'code=503')));
    await client.api.DELETE('/posts/{id}', {
      params: { path: { id: DRAFT_ID }, header: { 'If-Match': '"1"' } },
      headers: { Prefer: 'code=404' },
    });
    expect(seen).toEqual(['code=404']);
    expect(asked).toBe(0);
  });

  it('reports a request that got no answer with a null status', async () => {
    const answers: PreferAnswer[] = [];
    const client = createMarginClient({
      baseUrl: 'http://localhost/api/v1',
      tokens: { accessToken: 'a', refreshToken: 'r' },
      fetch: () => Promise.reject(new TypeError('fetch failed')),
    });
    client.api.use(preferMiddleware(() => 'code=503', { onAnswer: (answer) => answers.push(answer) }));
    await expect(client.getPost(DRAFT_ID)).rejects.toThrow('fetch failed');
    expect(answers).toEqual([{ method: 'GET', path: '/posts/{id}', prefer: 'code=503', status: null }]);
  });
});
