// @vitest-environment jsdom
import { act } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { fakeApi, json, problem, sessionOver, tokenPair } from '../test/fake-api';
import { createSession, REFRESH_TOKEN_KEY } from './session';

afterEach(() => localStorage.clear());

const API = 'http://admin.test/api/v1';

/** What another tab of this browser does to localStorage reaches this one as a storage event. */
function fromAnotherTab(change: () => void) {
  change();
  act(() => void window.dispatchEvent(new StorageEvent('storage', { key: REFRESH_TOKEN_KEY, storageArea: localStorage })));
}

const meAs = (accessToken: string) => (request: Request) =>
  request.headers.get('authorization') === `Bearer ${accessToken}`
    ? json(200, tokenPair(accessToken).user)
    : problem(401, 'unauthorized', 'Unauthorized', 'The access token is missing, invalid or expired.');

describe('the session kept in this browser', () => {
  it('a sign-in keeps the refresh token (never the access token) in localStorage', async () => {
    const api = fakeApi({ 'POST /auth/login': () => json(200, tokenPair('access-1')) });
    const session = sessionOver(api.fetch);
    await session.client.login('ada@example.com', 'correct horse battery staple');
    expect({ ...localStorage }).toEqual({ [REFRESH_TOKEN_KEY]: 'refresh-of-access-1' });
  });

  it('a reload (a new session over the same storage) is signed in, and its first request refreshes with the kept token', async () => {
    const api = fakeApi({
      'POST /auth/refresh': async (request) =>
        (await request.json()).refreshToken === 'refresh-of-access-1'
          ? json(200, tokenPair('access-2'))
          : problem(401, 'invalid-refresh-token', 'Invalid refresh token', 'The refresh token is not valid.'),
      'GET /auth/me': meAs('access-2'),
    });
    sessionOver(api.fetch, 'access-1');
    const reloaded = createSession({ baseUrl: API, fetch: api.fetch });
    expect(reloaded.signedIn()).toBe(true);

    const me = await reloaded.client.api.GET('/auth/me');
    expect(me.response.status).toBe(200);
    expect(api.requests.map((r) => `${r.method} ${r.url.pathname}`)).toEqual(['POST /api/v1/auth/refresh', 'GET /api/v1/auth/me']);
    expect(localStorage.getItem(REFRESH_TOKEN_KEY)).toBe('refresh-of-access-2');
  });

  it('a refresh refused (the session ended on the server) signs out and removes the kept token', async () => {
    const api = fakeApi({
      'POST /auth/refresh': () => problem(401, 'invalid-refresh-token', 'Invalid refresh token', 'The refresh token is not valid.'),
      'GET /auth/me': meAs('never'),
    });
    sessionOver(api.fetch, 'access-1');
    const reloaded = createSession({ baseUrl: API, fetch: api.fetch });
    expect(reloaded.signedIn()).toBe(true);
    expect((await reloaded.client.api.GET('/auth/me')).response.status).toBe(401);
    expect(api.calls('POST', '/auth/refresh')).toHaveLength(1);
    expect(reloaded.signedIn()).toBe(false);
    expect(localStorage.getItem(REFRESH_TOKEN_KEY)).toBeNull();
  });

  it('signing out in another tab (the kept token removed) signs this tab out without a request', () => {
    const api = fakeApi({});
    const session = sessionOver(api.fetch, 'access-1');
    let told = 0;
    session.subscribe(() => (told += 1));
    fromAnotherTab(() => localStorage.removeItem(REFRESH_TOKEN_KEY));
    expect(session.signedIn()).toBe(false);
    expect(told).toBe(1);
    expect(api.requests).toEqual([]);
  });

  it('signing in in another tab signs this signed-out tab in', () => {
    const api = fakeApi({});
    const session = sessionOver(api.fetch);
    expect(session.signedIn()).toBe(false);
    fromAnotherTab(() => localStorage.setItem(REFRESH_TOKEN_KEY, 'refresh-of-access-9'));
    expect(session.signedIn()).toBe(true);
    expect(session.client.tokens).toEqual({ accessToken: null, refreshToken: 'refresh-of-access-9' });
  });
});
