/**
 * The typed client against the real app (every response checked against the contract): login and
 * CRUD, If-Match from the last ETag, an Idempotency-Key per create, and one refresh then one retry
 * on 401.
 */
import { strFromU8, unzipSync, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { ADMIN, FixedClock, testServer } from '../../test/support/http.js';
import { describeOnEveryStore, type MakeStore } from '../../test/support/stores.js';
import { createMemoryStore } from '../adapters/memory/store.js';
import { createMarginClient, type MarginClientOptions, type SharedRefresh, type TokenPair } from './index.js';

const BASE_URL = 'http://localhost/api/v1';
const START = new Date('2026-12-01T10:00:00.000Z');
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

type Intercept = (request: Request, respond: (request: Request) => Promise<Response>) => Promise<Response>;

/** The app over a store, with a fetch that records each request and a factory of clients over it. */
async function serve(make: MakeStore, options: { accessTokenTtlSeconds?: number; refreshGraceSeconds?: number } = {}) {
  const clock = new FixedClock(START);
  const server = await testServer({ store: await make(), clock, ...options });
  const calls: string[] = [];
  let intercept: Intercept | undefined;
  const respond = (request: Request) => server.fetch(request);
  const fetch = (request: Request): Promise<Response> => {
    calls.push(`${request.method} ${new URL(request.url).pathname.replace('/api/v1', '')}`);
    return intercept ? intercept(request, respond) : respond(request);
  };
  const refreshes = () => calls.filter((call) => call === 'POST /auth/refresh').length;
  const newClient = (extra: Partial<MarginClientOptions> = {}) => createMarginClient({ baseUrl: BASE_URL, fetch, ...extra });
  /** A client that has logged in as the admin. */
  const signedIn = async (extra: Partial<MarginClientOptions> = {}) => {
    const client = newClient(extra);
    const { response } = await client.login(ADMIN.email, ADMIN.password);
    expect(response.status).toBe(200);
    return client;
  };
  const setIntercept = (next: Intercept | undefined) => {
    intercept = next;
  };
  return { server, clock, calls, refreshes, newClient, signedIn, setIntercept };
}

describeOnEveryStore('createMarginClient', (make) => {
  it('logs in, then creates, reads, updates, restores and deletes a post with the bearer token', async () => {
    const seen: (TokenPair | null)[] = [];
    const { newClient } = await serve(make);
    const client = newClient({ onTokens: (pair) => seen.push(pair) });

    const login = await client.login(ADMIN.email, ADMIN.password);
    expect(login.response.status).toBe(200);
    expect(seen).toEqual([login.data]);
    expect(client.tokens).toEqual({ accessToken: login.data?.accessToken, refreshToken: login.data?.refreshToken });

    const me = await client.api.GET('/auth/me');
    expect(me.data?.email).toBe(ADMIN.email);

    const created = await client.createPost({ title: 'Hello', body: 'One two three.' });
    expect(created.response.status).toBe(201);
    const id = created.data!.id;
    expect(client.etagOf(id)).toBe('"1"');

    const read = await client.getPost(id);
    expect(read.data?.title).toBe('Hello');

    const updated = await client.updatePost(id, { title: 'Hello again' });
    expect(updated.response.status).toBe(200);
    expect(updated.data?.version).toBe(2);
    expect(client.etagOf(id)).toBe('"2"');

    const restored = await client.restoreRevision(id, 1);
    expect(restored.response.status).toBe(200);
    expect(restored.data).toMatchObject({ title: 'Hello', version: 3 });
    expect(client.etagOf(id)).toBe('"3"');

    const deleted = await client.deletePost(id);
    expect(deleted.response.status).toBe(204);
    expect(client.etagOf(id)).toBeUndefined();
    expect((await client.getPost(id)).response.status).toBe(404);

    const logout = await client.logout();
    expect(logout?.response.status).toBe(204);
    expect(client.tokens).toBeNull();
    expect(seen.at(-1)).toBeNull();
  });

  it('updatePost after getPost sends the ETag it returned (200)', async () => {
    const { signedIn } = await serve(make);
    const author = await signedIn();
    const id = (await author.createPost({ title: 'Draft' })).data!.id;

    const editor = await signedIn();
    expect(editor.etagOf(id)).toBeUndefined();
    await editor.getPost(id);
    expect(editor.etagOf(id)).toBe('"1"');
    const updated = await editor.updatePost(id, { status: 'published' });
    expect(updated.response.status).toBe(200);
    expect(updated.data?.version).toBe(2);
  });

  it('updatePost without an ETag seen leaves If-Match out and the server answers 428', async () => {
    const { signedIn } = await serve(make);
    const author = await signedIn();
    const id = (await author.createPost({ title: 'Draft' })).data!.id;

    const stranger = await signedIn();
    const result = await stranger.updatePost(id, { title: 'Blind write' });
    expect(result.response.status).toBe(428);
  });

  it('updatePost after another client changed the post answers 412 with current, then succeeds on retry (200)', async () => {
    const { signedIn } = await serve(make);
    const mine = await signedIn();
    const theirs = await signedIn();
    const id = (await mine.createPost({ title: 'Shared', tags: ['a'] })).data!.id;
    await theirs.getPost(id);
    expect((await theirs.updatePost(id, { tags: ['a', 'b'] })).response.status).toBe(200);

    const stale = await mine.updatePost(id, { title: 'Mine' });
    expect(stale.response.status).toBe(412);
    const current = stale.error && 'current' in stale.error ? stale.error.current : undefined;
    expect(current).toMatchObject({ version: 2, tags: ['a', 'b'] });
    expect(mine.etagOf(id)).toBe('"2"');

    const merged = await mine.updatePost(id, { title: 'Mine', tags: current!.tags });
    expect(merged.response.status).toBe(200);
    expect(merged.data).toMatchObject({ title: 'Mine', tags: ['a', 'b'], version: 3 });
  });

  it('deletePost with a stale ETag answers 412, then deletes after it (204)', async () => {
    const { signedIn } = await serve(make);
    const mine = await signedIn();
    const theirs = await signedIn();
    const id = (await mine.createPost({ title: 'Doomed' })).data!.id;
    await theirs.getPost(id);
    await theirs.updatePost(id, { title: 'Renamed' });

    expect((await mine.deletePost(id)).response.status).toBe(412);
    expect((await mine.deletePost(id)).response.status).toBe(204);
  });

  it('createPost sends a fresh Idempotency-Key per call: two creates make two posts (201)', async () => {
    const { signedIn } = await serve(make);
    const client = await signedIn();
    const first = await client.createPost({ title: 'Same' });
    const second = await client.createPost({ title: 'Same' });

    expect(first.idempotencyKey).toMatch(UUID);
    expect(second.idempotencyKey).toMatch(UUID);
    expect(second.idempotencyKey).not.toBe(first.idempotencyKey);
    expect(second.data?.id).not.toBe(first.data?.id);
    expect(second.response.headers.get('idempotent-replayed')).not.toBe('true');
    expect((await client.api.GET('/posts')).data?.items).toHaveLength(2);
  });

  it('createPost with the same key twice makes one post; the second answer is replayed (201)', async () => {
    const { signedIn } = await serve(make);
    const client = await signedIn();
    const first = await client.createPost({ title: 'Once' });
    const retry = await client.createPost({ title: 'Once' }, { idempotencyKey: first.idempotencyKey });

    expect(retry.response.status).toBe(201);
    expect(retry.idempotencyKey).toBe(first.idempotencyKey);
    expect(retry.data?.id).toBe(first.data?.id);
    expect(first.response.headers.get('idempotent-replayed')).not.toBe('true');
    expect(retry.response.headers.get('idempotent-replayed')).toBe('true');
    expect((await client.api.GET('/posts')).data?.items).toHaveLength(1);
  });
});

describeOnEveryStore('createMarginClient: the site as a zip', (make) => {
  const zipOf = (files: Record<string, string>) =>
    new Blob([zipSync(Object.fromEntries(Object.entries(files).map(([path, text]) => [path, new TextEncoder().encode(text)])))]);

  it('exportSite answers the archive as a Blob named as Content-Disposition says, laid out and filtered as asked (200)', async () => {
    const { signedIn, calls } = await serve(make);
    const client = await signedIn();
    await client.createPost({ title: 'Kept', status: 'published', tags: ['go'] });
    await client.createPost({ title: 'Left out' });

    const result = await client.exportSite({ layout: 'hugo', status: ['published'], tag: 'go' });
    expect(result.response.status).toBe(200);
    expect(result.data?.filename).toBe('margin-export-2026-12-01.zip');
    const entries = unzipSync(new Uint8Array(await result.data!.archive.arrayBuffer()));
    expect(Object.keys(entries)).toEqual(['content/posts/kept.md', 'manifest.json']);
    expect(strFromU8(entries['content/posts/kept.md']!)).toContain('title: Kept');
    expect(calls.at(-1)).toBe('GET /export');
  });

  it('exportSite answers the problem of a refused filter (422)', async () => {
    const { signedIn } = await serve(make);
    const result = await (await signedIn()).exportSite({ tag: 'x'.repeat(41) });
    expect(result.response.status).toBe(422);
    expect(result.error).toMatchObject({ errors: [{ pointer: '/query/tag' }] });
  });

  it('importSite sends the zip as the raw body: a dry run reports the file and writes nothing, apply creates the post (200)', async () => {
    const { signedIn } = await serve(make);
    const client = await signedIn();
    const archive = zipOf({ 'posts/hello.md': '---\ntitle: Hello from a zip\n---\nThe body.\n' });

    const dry = await client.importSite(archive, 'dry-run');
    expect(dry.response.status).toBe(200);
    expect(dry.data).toMatchObject({
      mode: 'dry-run',
      counts: { files: 1, create: 1 },
      items: [{ path: 'posts/hello.md', action: 'create' }],
    });
    expect((await client.api.GET('/posts')).data?.items).toHaveLength(0);

    const applied = await client.importSite(archive, 'apply');
    expect(applied.data).toMatchObject({ mode: 'apply', counts: { create: 1 } });
    expect((await client.api.GET('/posts')).data?.items.map((post) => post.title)).toEqual(['Hello from a zip']);
  });

  it('importSite answers the problem when the body is not a zip (422 archive-refused)', async () => {
    const { signedIn } = await serve(make);
    const result = await (await signedIn()).importSite(new Blob(['not a zip']), 'dry-run');
    expect(result.response.status).toBe(422);
    expect(result.error?.type).toMatch(/archive-refused$/);
  });
});

describe('createMarginClient on 401', () => {
  const memory: MakeStore = async () => createMemoryStore();
  const TWO_MINUTES = 2 * 60 * 1000;

  it('refreshes once and retries, so an expired access token goes unnoticed (200)', async () => {
    const seen: (TokenPair | null)[] = [];
    const { server, clock, refreshes, newClient } = await serve(memory, { accessTokenTtlSeconds: 60 });
    const first = await server.login();
    const client = newClient({ tokens: first, onTokens: (pair) => seen.push(pair) });
    clock.advance(TWO_MINUTES);

    const me = await client.api.GET('/auth/me');
    expect(me.response.status).toBe(200);
    expect(refreshes()).toBe(1);
    expect(seen).toHaveLength(1);
    expect(seen[0]?.accessToken).not.toBe(first.accessToken);
    expect(seen[0]?.refreshToken).not.toBe(first.refreshToken);
    expect(client.tokens).toEqual({ accessToken: seen[0]?.accessToken, refreshToken: seen[0]?.refreshToken });
  });

  it('refreshes once for three concurrent requests refused together and retries each, body included (200)', async () => {
    const seen: (TokenPair | null)[] = [];
    const { clock, refreshes, signedIn, setIntercept } = await serve(memory, { accessTokenTtlSeconds: 60 });
    const client = await signedIn({ onTokens: (pair) => seen.push(pair) });
    const id = (await client.createPost({ title: 'Before' })).data!.id;
    seen.length = 0;
    clock.advance(TWO_MINUTES);

    // Hold every 401 until all three requests have one, so that they are refused together.
    let refused = 0;
    let releaseAll: () => void = () => undefined;
    const allRefused = new Promise<void>((resolve) => {
      releaseAll = resolve;
    });
    setIntercept(async (request, respond) => {
      const response = await respond(request);
      if (response.status === 401) {
        refused += 1;
        if (refused === 3) releaseAll();
        await allRefused;
      }
      return response;
    });

    const [me, read, updated] = await Promise.all([
      client.api.GET('/auth/me'),
      client.getPost(id),
      client.updatePost(id, { title: 'After' }),
    ]);
    expect(refused).toBe(3);
    expect(me.response.status).toBe(200);
    expect(read.response.status).toBe(200);
    expect(updated.response.status).toBe(200);
    expect(updated.data).toMatchObject({ title: 'After', version: 2 });
    expect(refreshes()).toBe(1);
    expect(seen).toHaveLength(1);
    expect(seen[0]?.accessToken).toBe(client.tokens?.accessToken);
  });

  it('resends the same zip after the refresh, so an import with an expired access token goes through (200)', async () => {
    const { clock, refreshes, signedIn } = await serve(memory, { accessTokenTtlSeconds: 60 });
    const client = await signedIn();
    clock.advance(TWO_MINUTES);
    const archive = new Blob([zipSync({ 'late.md': new TextEncoder().encode('---\ntitle: Late\n---\nBody.\n') })]);

    const applied = await client.importSite(archive, 'apply');
    expect(applied.response.status).toBe(200);
    expect(applied.data?.items).toMatchObject([{ path: 'late.md', action: 'create', slug: 'late' }]);
    expect(refreshes()).toBe(1);
  });

  it('answers 401 and clears the tokens when the refresh token was revoked elsewhere, refreshing once', async () => {
    const seen: (TokenPair | null)[] = [];
    const { server, clock, refreshes, signedIn } = await serve(memory, { accessTokenTtlSeconds: 60 });
    const client = await signedIn({ onTokens: (pair) => seen.push(pair) });
    const { refreshToken } = client.tokens!;
    expect((await server.client.POST('/auth/logout', { body: { refreshToken } })).response.status).toBe(204);
    clock.advance(TWO_MINUTES);

    const me = await client.api.GET('/auth/me');
    expect(me.response.status).toBe(401);
    expect(refreshes()).toBe(1);
    expect(client.tokens).toBeNull();
    expect(seen.at(-1)).toBeNull();

    const again = await client.api.GET('/auth/me');
    expect(again.response.status).toBe(401);
    expect(refreshes()).toBe(1);
  });

  it('never refreshes for login, refresh or logout (401 from login)', async () => {
    const { server, calls, refreshes, newClient } = await serve(memory);
    const client = newClient({ tokens: await server.login() });

    const wrong = await client.login(ADMIN.email, 'not the password');
    expect(wrong.response.status).toBe(401);
    expect(refreshes()).toBe(0);
    expect(calls).toEqual(['POST /auth/login']);
  });

  it('sends no bearer token and never refreshes when signed out (401)', async () => {
    const { refreshes, newClient } = await serve(memory);
    const client = newClient();
    const me = await client.api.GET('/auth/me');
    expect(me.response.status).toBe(401);
    expect(refreshes()).toBe(0);
    expect(await client.logout()).toBeUndefined();
  });
});

/** A refresh token shared as a browser's tabs share it: one stored value, one lock (a promise chain). */
function sharedStore(initial: string | null) {
  let stored = initial;
  let queue: Promise<unknown> = Promise.resolve();
  const shared: SharedRefresh = {
    read: () => stored,
    exclusive<T>(task: () => Promise<T>): Promise<T> {
      const run = queue.then(task);
      queue = run.catch(() => undefined);
      return run;
    },
  };
  const onTokens = (pair: TokenPair | null) => {
    stored = pair?.refreshToken ?? null;
  };
  return { shared, onTokens, stored: () => stored, remove: () => (stored = null) };
}

describe('createMarginClient sharing its refresh token between holders (browser tabs)', () => {
  const memory: MakeStore = async () => createMemoryStore();
  const TWO_MINUTES = 2 * 60 * 1000;

  it('takes up a session from a refresh token alone: the first request refreshes, then goes with the new access token (200)', async () => {
    const { server, refreshes, calls, newClient } = await serve(memory);
    const { refreshToken } = await server.login();
    const store = sharedStore(refreshToken);
    const client = newClient({ tokens: { accessToken: null, refreshToken }, ...store });

    const me = await client.api.GET('/auth/me');
    expect(me.response.status).toBe(200);
    expect(calls).toEqual(['POST /auth/refresh', 'GET /auth/me']);
    expect(refreshes()).toBe(1);
    expect(store.stored()).toBe(client.tokens?.refreshToken);
    expect(store.stored()).not.toBe(refreshToken);
  });

  it('two holders refused together refresh one after the other, each spending the token as stored: both 200, and the session lives on', async () => {
    // No grace window: a token spent twice is a reuse at once, and ends the session family.
    const { server, clock, refreshes, newClient, setIntercept } = await serve(memory, {
      accessTokenTtlSeconds: 60,
      refreshGraceSeconds: 0,
    });
    const first = await server.login();
    // Each refresh a second after the one before, so a token spent twice is spent past the grace window.
    setIntercept((request, respond) => {
      if (new URL(request.url).pathname.endsWith('/auth/refresh')) clock.advance(1000);
      return respond(request);
    });
    const store = sharedStore(first.refreshToken);
    const tabs = [newClient({ tokens: first, ...store }), newClient({ tokens: first, ...store })];
    clock.advance(TWO_MINUTES);

    const answers = await Promise.all(tabs.map((tab) => tab.api.GET('/auth/me')));
    expect(answers.map((answer) => answer.response.status)).toEqual([200, 200]);
    expect(refreshes()).toBe(2);
    expect(tabs.map((tab) => tab.tokens !== null)).toEqual([true, true]);

    // Past another expiry, the first tab (whose own refresh token is spent) refreshes with the stored one.
    clock.advance(TWO_MINUTES);
    const later = await Promise.all(tabs.map((tab) => tab.api.GET('/auth/me')));
    expect(later.map((answer) => answer.response.status)).toEqual([200, 200]);
    expect(refreshes()).toBe(4);
  });

  it('answers 401 without refreshing once another holder signed out (the stored token removed), and forgets the tokens', async () => {
    const seen: (TokenPair | null)[] = [];
    const { server, clock, refreshes, newClient } = await serve(memory, { accessTokenTtlSeconds: 60 });
    const first = await server.login();
    const store = sharedStore(first.refreshToken);
    const client = newClient({ tokens: first, shared: store.shared, onTokens: (pair) => seen.push(pair) });
    store.remove();
    clock.advance(TWO_MINUTES);

    const me = await client.api.GET('/auth/me');
    expect(me.response.status).toBe(401);
    expect(refreshes()).toBe(0);
    expect(client.tokens).toBeNull();
    expect(seen).toEqual([null]);
  });

  it('resume(null) forgets the session without a request; resume(token) does not replace a session held', async () => {
    const { server, calls, newClient } = await serve(memory);
    const first = await server.login();
    const client = newClient({ tokens: first });
    client.resume('another refresh token');
    expect(client.tokens).toEqual({ accessToken: first.accessToken, refreshToken: first.refreshToken });
    client.resume(null);
    expect(client.tokens).toBeNull();
    expect(calls).toEqual([]);
  });
});
