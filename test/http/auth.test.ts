/**
 * Authentication over HTTP, on every store: login, access tokens, rotating refresh tokens with
 * reuse detection and the grace-window replay, logout, bearer auth on every protected operation
 * (derived from the bundle), login throttling shared through the database, CORS, body limit,
 * security headers and the bare 500.
 */
import { createHash, randomBytes } from 'node:crypto';
import { SignJWT, UnsecuredJWT, decodeJwt, decodeProtectedHeader } from 'jose';
import { describe, expect, it } from 'vitest';
import { createArgon2PasswordHasher } from '../../src/adapters/crypto/argon2-password-hasher.js';
import { createMemoryStore } from '../../src/adapters/memory/store.js';
import type { Contract } from '../../src/adapters/http/contract.js';
import { UnavailableError, type PasswordHasher, type Store, type UserRepository } from '../../src/domain/index.js';
import { createLogger } from '../../src/log.js';
import { describeOnEveryStore, type MakeStore } from '../support/stores.js';
import { ADMIN, FixedClock, JWT_SECRET, json, testContract, testServer, url, type TestServerOptions } from '../support/http.js';
import { createZxcvbnPasswordPolicy } from '../../src/adapters/crypto/zxcvbn-password-policy.js';
import { createOrResetUser } from '../../src/app/users.js';

const passwords = createZxcvbnPasswordPolicy();

const START = new Date('2026-12-01T10:00:00.000Z');
const START_SECONDS = START.getTime() / 1000;
const ULID = '01JDQ8Z4M6X2V7K9T3N5R8W1YB';
const PROBLEMS = 'https://margincms.dev/problems/';
const PUBLIC_OPERATIONS = [
  'getAtomFeed',
  'getContentPost',
  'getContentPostBySlug',
  'getContentPreview',
  'getHealth',
  'getMediaFile',
  'getReadiness',
  'getRssFeed',
  'getSitemap',
  'listContentPosts',
  'listContentTags',
  'login',
  'logout',
  'refreshTokens',
];
const CHALLENGE = 'Bearer realm="margin-cms", error="invalid_token"';
/** RFC 6750 §3.1: a request without credentials gets no error code. */
const NO_CREDENTIALS = 'Bearer realm="margin-cms"';

type Server = Awaited<ReturnType<typeof testServer>> & { clock: FixedClock; store: Store };

/** The app over a store (a fresh one unless given) with a FixedClock (at START unless given). */
async function serve(make: MakeStore, options: Partial<TestServerOptions> & { clock?: FixedClock } = {}): Promise<Server> {
  const clock = options.clock ?? new FixedClock(START);
  const store = options.store ?? (await make());
  const server = await testServer({ ...options, store, clock });
  return { ...server, clock, store };
}

function postJson(server: Server, path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return server.fetch(url(path), {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

function login(server: Server, email: string, password: string, from?: string): Promise<Response> {
  return postJson(server, '/auth/login', { email, password }, from ? { 'x-forwarded-for': from } : {});
}

function refresh(server: Server, refreshToken: string): Promise<Response> {
  return postJson(server, '/auth/refresh', { refreshToken });
}

function logout(server: Server, refreshToken: string): Promise<Response> {
  return postJson(server, '/auth/logout', { refreshToken });
}

function logoutAll(server: Server, accessToken: string): Promise<Response> {
  return server.fetch(url('/auth/logout-all'), { method: 'POST', headers: { authorization: `Bearer ${accessToken}` } });
}

function me(server: Server, accessToken: string): Promise<Response> {
  return server.fetch(url('/auth/me'), { headers: { authorization: `Bearer ${accessToken}` } });
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Every operation of the bundle that requires the bearer token, as a request without a body. */
function protectedRequests(contract: Contract): { label: string; method: string; path: string }[] {
  return contract.routes
    .filter((route) => route.requiresAuth)
    .map((route) => ({
      label: `${route.operationId} (${route.method.toUpperCase()} ${route.path})`,
      method: route.method.toUpperCase(),
      path: route.path.replace('{version}', '1').replace(/\{[^}]+\}/g, ULID),
    }));
}

/** Asserts that every protected operation answers 401 with the bearer challenge to this header. */
async function expectEveryProtectedOperationRefuses(server: Server, authorization: string | null, challenge = CHALLENGE): Promise<void> {
  const requests = protectedRequests(server.contract);
  expect(requests.length).toBeGreaterThan(10);
  for (const request of requests) {
    const response = await server.fetch(url(request.path), {
      method: request.method,
      headers: authorization === null ? {} : { authorization },
    });
    expect(response.status, request.label).toBe(401);
    expect(response.headers.get('www-authenticate'), request.label).toBe(challenge);
    expect(response.headers.get('content-type'), request.label).toBe('application/problem+json');
    expect((await json(response)).type, request.label).toBe(`${PROBLEMS}unauthorized`);
  }
}

/** Claims as the server issues them, for forging variants. */
function claims(server: Server) {
  return { sub: server.admin.id, name: ADMIN.name, iat: START_SECONDS, exp: START_SECONDS + 900, jti: 'forged' };
}

async function signed(
  server: Server,
  { secret = JWT_SECRET, alg = 'HS256', iss = 'margin-cms', aud = 'margin-cms-api' } = {},
): Promise<string> {
  const c = claims(server);
  return new SignJWT({ name: c.name })
    .setProtectedHeader({ alg, typ: 'JWT' })
    .setSubject(c.sub)
    .setIssuer(iss)
    .setAudience(aud)
    .setIssuedAt(c.iat)
    .setExpirationTime(c.exp)
    .setJti(c.jti)
    .sign(secret);
}

/** An argon2id hasher that records what it was asked to verify. */
function countingHasher(): PasswordHasher & { verified: string[] } {
  const inner = createArgon2PasswordHasher();
  const verified: string[] = [];
  return {
    verified,
    hash: (password) => inner.hash(password),
    verify(hash, password) {
      verified.push(hash);
      return inner.verify(hash, password);
    },
  };
}

/** The PHC parameters of an argon2 hash, e.g. `argon2id m=19456,t=2,p=1`. */
function phcParams(hash: string): string {
  const [, algorithm, , params] = hash.split('$');
  return `${algorithm} ${params}`;
}

async function addUser(server: Server, email: string, name: string, password: string) {
  const now = server.clock.now();
  return server.store.users.upsert({
    id: server.ids.next(),
    email,
    name,
    passwordHash: await server.hasher.hash(password),
    createdAt: now,
    updatedAt: now,
  });
}

describe('the bundle', () => {
  it('leaves only health, readiness, login, refresh, logout and the Content API (preview links included) without bearer auth', async () => {
    const contract = await testContract();
    expect(
      contract.routes
        .filter((r) => !r.requiresAuth)
        .map((r) => r.operationId)
        .sort(),
    ).toEqual(PUBLIC_OPERATIONS);
  });
});

describeOnEveryStore('auth', (make) => {
  describe('login', () => {
    it('answers 200 with a Bearer pair, expiresIn and the user', async () => {
      const server = await serve(make);
      const response = await login(server, ADMIN.email, ADMIN.password);
      expect(response.status).toBe(200);
      expect(response.headers.get('cache-control')).toBe('no-store');
      const body = await json(response);
      expect(body).toEqual({
        accessToken: expect.any(String),
        refreshToken: expect.any(String),
        tokenType: 'Bearer',
        expiresIn: 900,
        refreshExpiresIn: 30 * 86400,
        user: { id: server.admin.id, email: ADMIN.email, name: ADMIN.name },
      });
    });

    it('issues an HS256 access token with sub, iat, exp (iat + 900), jti, iss and aud', async () => {
      const server = await serve(make);
      const { accessToken } = await json(await login(server, ADMIN.email, ADMIN.password));
      expect(decodeProtectedHeader(accessToken)).toEqual({ alg: 'HS256', typ: 'JWT' });
      const payload = decodeJwt(accessToken);
      expect(payload).toMatchObject({ sub: server.admin.id, iss: 'margin-cms', aud: 'margin-cms-api', iat: START_SECONDS });
      expect(payload.exp! - payload.iat!).toBe(900);
      expect(payload.jti).toEqual(expect.stringMatching(/^\S{16,}$/));
      const second = decodeJwt((await json(await login(server, ADMIN.email, ADMIN.password))).accessToken);
      expect(second.jti).not.toBe(payload.jti);
    });

    it('issues a refresh token of 256 random bits and stores only its hash', async () => {
      const server = await serve(make);
      const { refreshToken } = await json(await login(server, ADMIN.email, ADMIN.password));
      expect(Buffer.from(refreshToken, 'base64url')).toHaveLength(32);
      expect(await server.store.refreshTokens.find(refreshToken)).toBeNull();
      const stored = await server.store.refreshTokens.find(sha256(refreshToken));
      expect(stored).toMatchObject({ userId: server.admin.id, consumedAt: null, revokedAt: null });
      expect(stored!.expiresAt.getTime() - START.getTime()).toBe(30 * 86400 * 1000);
    });

    it('folds the case of the email (200)', async () => {
      const server = await serve(make);
      expect((await login(server, ADMIN.email.toUpperCase(), ADMIN.password)).status).toBe(200);
    });

    it('answers an unknown email and a wrong password with the same 401 after one argon2id verify each', async () => {
      const hasher = countingHasher();
      const server = await serve(make, { hasher });
      const wrongPassword = await login(server, ADMIN.email, 'not the password');
      const unknownEmail = await login(server, 'nobody@example.com', ADMIN.password);
      expect(wrongPassword.status).toBe(401);
      expect(unknownEmail.status).toBe(401);
      const [a, b] = [await json(wrongPassword), await json(unknownEmail)];
      expect(a).toEqual(b);
      expect(a).toMatchObject({ type: `${PROBLEMS}invalid-credentials`, status: 401, instance: '/api/v1/auth/login' });
      expect(wrongPassword.headers.get('www-authenticate')).toBe(unknownEmail.headers.get('www-authenticate'));

      // The same work: one verify each, the unknown email against a dummy hash of the same cost.
      expect(hasher.verified).toHaveLength(2);
      const [againstAdmin, againstDummy] = hasher.verified as [string, string];
      expect(againstAdmin).toBe(server.admin.passwordHash);
      expect(againstDummy).not.toBe(server.admin.passwordHash);
      expect(phcParams(againstDummy)).toBe(phcParams(againstAdmin));
      expect(phcParams(againstDummy)).toBe('argon2id m=19456,t=2,p=1');
    });
  });

  describe('bearer auth', () => {
    it('answers every protected operation of the bundle without a token with 401 and a challenge without an error code (RFC 6750 §3.1)', async () => {
      const server = await serve(make);
      await expectEveryProtectedOperationRefuses(server, null, NO_CREDENTIALS);
      await expectEveryProtectedOperationRefuses(server, 'Basic YWRhOnB3', NO_CREDENTIALS);
      await expectEveryProtectedOperationRefuses(server, 'Bearer', NO_CREDENTIALS);
    });

    it('answers every protected operation with 401 for a token signed with another secret', async () => {
      const server = await serve(make);
      await expectEveryProtectedOperationRefuses(
        server,
        `Bearer ${await signed(server, { secret: new TextEncoder().encode('x'.repeat(40)) })}`,
      );
    });

    it('answers every protected operation with 401 for a valid token whose payload was edited', async () => {
      const server = await serve(make);
      const { accessToken } = await json(await login(server, ADMIN.email, ADMIN.password));
      const [header, payload, signature] = (accessToken as string).split('.') as [string, string, string];
      const edited = { ...JSON.parse(Buffer.from(payload, 'base64url').toString()), sub: ULID };
      await expectEveryProtectedOperationRefuses(
        server,
        `Bearer ${header}.${Buffer.from(JSON.stringify(edited)).toString('base64url')}.${signature}`,
      );
    });

    it('answers every protected operation with 401 for an alg:none token', async () => {
      const server = await serve(make);
      const c = claims(server);
      const unsecured = new UnsecuredJWT({ name: c.name })
        .setSubject(c.sub)
        .setIssuer('margin-cms')
        .setAudience('margin-cms-api')
        .setIssuedAt(c.iat)
        .setExpirationTime(c.exp)
        .setJti(c.jti)
        .encode();
      expect(decodeProtectedHeader(unsecured).alg).toBe('none');
      await expectEveryProtectedOperationRefuses(server, `Bearer ${unsecured}`);
    });

    it('answers every protected operation with 401 for another HMAC algorithm, a wrong aud or a wrong iss', async () => {
      const server = await serve(make);
      // The same secret: only the algorithm, audience or issuer is wrong.
      expect((await me(server, await signed(server))).status).toBe(200);
      await expectEveryProtectedOperationRefuses(server, `Bearer ${await signed(server, { alg: 'HS512' })}`);
      await expectEveryProtectedOperationRefuses(server, `Bearer ${await signed(server, { aud: 'another-api' })}`);
      await expectEveryProtectedOperationRefuses(server, `Bearer ${await signed(server, { iss: 'someone-else' })}`);
    });

    it('accepts an access token a few seconds past exp and answers every protected operation with 401 after that', async () => {
      const server = await serve(make);
      const { accessToken } = await json(await login(server, ADMIN.email, ADMIN.password));
      server.clock.advance(903_000);
      expect((await me(server, accessToken)).status).toBe(200);
      server.clock.advance(3_000);
      const response = await me(server, accessToken);
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe(CHALLENGE);
      await expectEveryProtectedOperationRefuses(server, `Bearer ${accessToken}`);
    });

    it('answers the public operations without a token', async () => {
      const server = await serve(make);
      expect((await server.fetch(url('/healthz'))).status).toBe(200);
      expect((await server.fetch(url('/readyz'))).status).toBe(200);
    });
  });

  describe('getMe', () => {
    it("answers 200 with the token's user", async () => {
      const server = await serve(make);
      const grace = await addUser(server, 'grace@example.com', 'Grace Hopper', 'another long password');
      const { accessToken } = await json(await login(server, 'grace@example.com', 'another long password'));
      const response = await me(server, accessToken);
      expect(response.status).toBe(200);
      expect(await json(response)).toEqual({ id: grace.id, email: 'grace@example.com', name: 'Grace Hopper' });
    });

    it("records the token's user as the actor of the activity event", async () => {
      const server = await serve(make);
      const grace = await addUser(server, 'grace@example.com', 'Grace Hopper', 'another long password');
      const { accessToken } = await json(await login(server, 'grace@example.com', 'another long password'));
      const authorization = `Bearer ${accessToken}`;
      const created = await postJson(server, '/posts', { title: 'Actors' }, { authorization });
      expect(created.status).toBe(201);
      const activity = await json(await server.fetch(url('/activity'), { headers: { authorization } }));
      expect(activity.items).toHaveLength(1);
      expect(activity.items[0].actor).toEqual({ id: grace.id, name: 'Grace Hopper' });
    });
  });

  describe('getMe when the store fails', () => {
    it('answers 503, not 401, when the store is unavailable, so clients are not logged out', async () => {
      const inner = await make();
      let failing = false;
      const users: UserRepository = {
        upsert: (user) => inner.users.upsert(user),
        get: async (id) => {
          if (failing) throw new UnavailableError(2);
          return inner.users.get(id);
        },
        getByEmail: (email) => inner.users.getByEmail(email),
        sessionVersion: (id) => inner.users.sessionVersion(id),
        endSessions: (id) => inner.users.endSessions(id),
        count: () => inner.users.count(),
      };
      const server = await serve(make, { store: { ...inner, users } });
      const { accessToken } = await json(await login(server, ADMIN.email, ADMIN.password));
      failing = true;
      const response = await me(server, accessToken);
      expect(response.status).toBe(503);
      expect(response.headers.get('www-authenticate')).toBeNull();
      expect(response.headers.get('retry-after')).toBe('2');
    });
  });

  describe('refreshTokens', () => {
    it('exchanges a refresh token for a new pair (200) whose access token works', async () => {
      const server = await serve(make);
      const first = await json(await login(server, ADMIN.email, ADMIN.password));
      server.clock.advance(60_000);
      const response = await refresh(server, first.refreshToken);
      expect(response.status).toBe(200);
      expect(response.headers.get('idempotent-replayed')).toBeNull();
      expect(response.headers.get('cache-control')).toBe('no-store');
      const next = await json(response);
      expect(next).toMatchObject({ tokenType: 'Bearer', expiresIn: 900, user: { id: server.admin.id } });
      expect(next.refreshToken).not.toBe(first.refreshToken);
      expect(next.accessToken).not.toBe(first.accessToken);
      expect(decodeJwt(next.accessToken).iat).toBe(START_SECONDS + 60);
      expect((await me(server, next.accessToken)).status).toBe(200);
    });

    it('answers a retry within the grace window with the very same pair and Idempotent-Replayed: true, and the new refresh token still works', async () => {
      const server = await serve(make);
      const first = await json(await login(server, ADMIN.email, ADMIN.password));
      const issued = await json(await refresh(server, first.refreshToken));
      server.clock.advance(9_000);
      const retry = await refresh(server, first.refreshToken);
      expect(retry.status).toBe(200);
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      expect(await json(retry)).toEqual(issued);
      const next = await refresh(server, issued.refreshToken);
      expect(next.status).toBe(200);
      expect(next.headers.get('idempotent-replayed')).toBeNull();
      expect((await me(server, (await json(next)).accessToken)).status).toBe(200);
    });

    it('honours a configured grace window (0 s: any reuse is theft, 401)', async () => {
      const server = await serve(make, { refreshGraceSeconds: 0 });
      const first = await json(await login(server, ADMIN.email, ADMIN.password));
      const issued = await json(await refresh(server, first.refreshToken));
      server.clock.advance(1);
      expect((await refresh(server, first.refreshToken)).status).toBe(401);
      expect((await refresh(server, issued.refreshToken)).status).toBe(401);
    });

    it('answers a reused refresh token after the grace window with 401 and revokes the whole family', async () => {
      const server = await serve(make);
      const first = await json(await login(server, ADMIN.email, ADMIN.password));
      const otherLogin = await json(await login(server, ADMIN.email, ADMIN.password));
      const issued = await json(await refresh(server, first.refreshToken));
      server.clock.advance(11_000);

      const reuse = await refresh(server, first.refreshToken);
      expect(reuse.status).toBe(401);
      expect(await json(reuse)).toMatchObject({ type: `${PROBLEMS}invalid-refresh-token`, status: 401 });

      // The successor, from the same login, is revoked too …
      const successor = await refresh(server, issued.refreshToken);
      expect(successor.status).toBe(401);
      expect((await json(successor)).type).toBe(`${PROBLEMS}invalid-refresh-token`);
      expect((await server.store.refreshTokens.find(sha256(issued.refreshToken)))?.revokedAt).toEqual(server.clock.now());
      // … and the original token stays refused, even as a retry.
      expect((await refresh(server, first.refreshToken)).status).toBe(401);
      // Another login of the same user is another family, untouched.
      expect((await refresh(server, otherLogin.refreshToken)).status).toBe(200);
    });

    it('issues exactly one pair to parallel refreshes with one token: one answer is new, the others replay it', async () => {
      const server = await serve(make);
      let token: string = (await json(await login(server, ADMIN.email, ADMIN.password))).refreshToken;
      for (let round = 0; round < 5; round++) {
        const responses = await Promise.all([refresh(server, token), refresh(server, token), refresh(server, token)]);
        expect(responses.map((r) => r.status)).toEqual([200, 200, 200]);
        const bodies = await Promise.all(responses.map((r) => json(r)));
        expect(new Set(bodies.map((b) => JSON.stringify(b))).size).toBe(1);
        expect(responses.filter((r) => r.headers.get('idempotent-replayed') === null)).toHaveLength(1);
        expect(responses.filter((r) => r.headers.get('idempotent-replayed') === 'true')).toHaveLength(2);
        const issued = bodies[0].refreshToken as string;
        expect(await server.store.refreshTokens.find(sha256(issued))).toMatchObject({ consumedAt: null, revokedAt: null });
        token = issued;
      }
      // The last successor is the one live token of the family.
      expect((await refresh(server, token)).status).toBe(200);
    });

    it('answers a refresh token past its 30 days with 401', async () => {
      const server = await serve(make);
      const a = await json(await login(server, ADMIN.email, ADMIN.password));
      const b = await json(await login(server, ADMIN.email, ADMIN.password));
      server.clock.advance(30 * 86400_000 - 1_000);
      expect((await refresh(server, a.refreshToken)).status).toBe(200);
      server.clock.advance(2_000);
      const expired = await refresh(server, b.refreshToken);
      expect(expired.status).toBe(401);
      expect((await json(expired)).type).toBe(`${PROBLEMS}invalid-refresh-token`);
    });

    it('answers an unknown refresh token with 401', async () => {
      const server = await serve(make);
      const response = await refresh(server, randomBytes(32).toString('base64url'));
      expect(response.status).toBe(401);
      expect((await json(response)).type).toBe(`${PROBLEMS}invalid-refresh-token`);
    });
  });

  describe('logout', () => {
    it('answers 204 for a known, an unknown and a garbage refresh token', async () => {
      const server = await serve(make);
      const { refreshToken } = await json(await login(server, ADMIN.email, ADMIN.password));
      for (const token of [refreshToken, randomBytes(32).toString('base64url'), '!!not a token!!', refreshToken]) {
        const response = await logout(server, token);
        expect(response.status).toBe(204);
        expect(await response.text()).toBe('');
      }
    });

    it('revokes the whole family: the token, its successors and a retry within the grace window answer 401', async () => {
      const server = await serve(make);
      const first = await json(await login(server, ADMIN.email, ADMIN.password));
      const otherLogin = await json(await login(server, ADMIN.email, ADMIN.password));
      const issued = await json(await refresh(server, first.refreshToken));
      expect((await logout(server, first.refreshToken)).status).toBe(204);
      expect((await refresh(server, issued.refreshToken)).status).toBe(401);
      expect((await refresh(server, first.refreshToken)).status).toBe(401);
      expect((await refresh(server, otherLogin.refreshToken)).status).toBe(200);
    });

    it('revokes a token that was never used (refresh afterwards is 401)', async () => {
      const server = await serve(make);
      const { refreshToken } = await json(await login(server, ADMIN.email, ADMIN.password));
      expect((await logout(server, refreshToken)).status).toBe(204);
      expect((await refresh(server, refreshToken)).status).toBe(401);
    });
  });

  describe('ending every session', () => {
    /** Every token of `pairs` is dead: each access token gets 401 SessionEnded, each refresh token 401. */
    async function expectEnded(server: Server, pairs: { accessToken: string; refreshToken: string }[]) {
      for (const [i, pair] of pairs.entries()) {
        const refused = await me(server, pair.accessToken);
        expect(refused.status, `access token ${i}`).toBe(401);
        expect(refused.headers.get('www-authenticate')).toBe(CHALLENGE);
        expect(await json(refused)).toMatchObject({
          type: `${PROBLEMS}unauthorized`,
          detail: 'The session of this access token has ended; log in again.',
        });
        expect((await refresh(server, pair.refreshToken)).status, `refresh token ${i}`).toBe(401);
      }
    }

    /** A fresh login works: its access token reads /auth/me and its refresh token refreshes (200). */
    async function expectFreshLoginWorks(server: Server, password: string) {
      const fresh = await login(server, ADMIN.email, password);
      expect(fresh.status).toBe(200);
      const pair = await json(fresh);
      expect((await me(server, pair.accessToken)).status).toBe(200);
      const next = await refresh(server, pair.refreshToken);
      expect(next.status).toBe(200);
      expect((await me(server, (await json(next)).accessToken)).status).toBe(200);
    }

    it('logoutAll answers 204 and ends every session: old access tokens and refresh tokens of every login get 401, a new login works (200)', async () => {
      const server = await serve(make);
      const phone = await json(await login(server, ADMIN.email, ADMIN.password));
      const laptop = await json(await login(server, ADMIN.email, ADMIN.password));
      // A rotated pair of the laptop's login, and the phone's token verified (and remembered) once.
      const rotated = await json(await refresh(server, laptop.refreshToken));
      expect((await me(server, phone.accessToken)).status).toBe(200);
      const ended = await logoutAll(server, phone.accessToken);
      expect(ended.status).toBe(204);
      expect(await ended.text()).toBe('');
      await expectEnded(server, [phone, rotated]);
      expect((await me(server, laptop.accessToken)).status).toBe(401);
      // The token that ended the sessions cannot end them again.
      expect((await logoutAll(server, phone.accessToken)).status).toBe(401);
      await expectFreshLoginWorks(server, ADMIN.password);
    });

    it("leaves another user's sessions alive (200)", async () => {
      const server = await serve(make);
      await addUser(server, 'grace@example.com', 'Grace Hopper', 'another long password');
      const grace = await json(await login(server, 'grace@example.com', 'another long password'));
      const admin = await json(await login(server, ADMIN.email, ADMIN.password));
      expect((await logoutAll(server, admin.accessToken)).status).toBe(204);
      expect((await me(server, grace.accessToken)).status).toBe(200);
      expect((await refresh(server, grace.refreshToken)).status).toBe(200);
    });

    it('ends the sessions in every app instance over one database: a token another instance verified before gets 401 there on its next request', async () => {
      const store = await make();
      const clock = new FixedClock(START);
      const one = await serve(make, { store, clock });
      const two = await serve(make, { store, clock });
      const pair = await json(await login(one, ADMIN.email, ADMIN.password));
      expect((await me(two, pair.accessToken)).status).toBe(200);
      expect((await logoutAll(one, pair.accessToken)).status).toBe(204);
      await expectEnded(two, [pair]);
    });

    it('a password reset (createOrResetUser, as make user runs it) ends every session: old tokens get 401, the old password 401, the new one logs in (200)', async () => {
      const server = await serve(make);
      const first = await json(await login(server, ADMIN.email, ADMIN.password));
      const second = await json(await login(server, ADMIN.email, ADMIN.password));
      expect((await me(server, first.accessToken)).status).toBe(200);
      const deps = {
        users: server.store.users,
        refreshTokens: server.store.refreshTokens,
        hasher: server.hasher,
        passwords,
        ids: server.ids,
        clock: server.clock,
      };
      const reset = await createOrResetUser(deps, { email: ADMIN.email, name: ADMIN.name, password: 'a new and long passphrase' });
      expect(reset.created).toBe(false);
      await expectEnded(server, [first, second]);
      expect((await login(server, ADMIN.email, ADMIN.password)).status).toBe(401);
      await expectFreshLoginWorks(server, 'a new and long passphrase');
    });

    it('a refresh token rotated under the old session version is refused (401) even if its family escaped revocation', async () => {
      const server = await serve(make);
      const pair = await json(await login(server, ADMIN.email, ADMIN.password));
      // The session version goes up without the refresh tokens being revoked: what a rotation
      // racing with the revocation would leave behind.
      expect(await server.store.users.endSessions(server.admin.id)).toBe(1);
      expect((await refresh(server, pair.refreshToken)).status).toBe(401);
    });
  });

  describe('login throttling', () => {
    const HOME = '203.0.113.7';

    async function failFiveTimes(server: Server, email = ADMIN.email, from = HOME) {
      for (let i = 0; i < 5; i++) {
        const response = await login(server, email, `wrong password ${i}`, from);
        expect(response.status, `failure ${i + 1}`).toBe(401);
      }
    }

    it('answers the 6th login within 15 minutes with 429 and Retry-After, even with the right password', async () => {
      const server = await serve(make, { trustProxy: true });
      await failFiveTimes(server);
      server.clock.advance(60_000);
      const throttled = await login(server, ADMIN.email, ADMIN.password, HOME);
      expect(throttled.status).toBe(429);
      const retryAfter = throttled.headers.get('retry-after');
      expect(retryAfter).toMatch(/^[1-9]\d*$/);
      expect(Number(retryAfter)).toBe(840);
      expect(await json(throttled)).toMatchObject({ type: `${PROBLEMS}too-many-attempts`, status: 429 });
    });

    it("counts the account across every address it never logged in from: the owner's known address still logs in (200), a new one gets 429, another account 200", async () => {
      const server = await serve(make, { trustProxy: true });
      await addUser(server, 'grace@example.com', 'Grace Hopper', 'another long password');
      const KNOWN = '198.51.100.1';
      expect((await login(server, ADMIN.email, ADMIN.password, KNOWN)).status).toBe(200);
      await failFiveTimes(server);
      const throttled = await login(server, ADMIN.email, ADMIN.password, HOME);
      expect(throttled.status).toBe(429);
      expect((await json(throttled)).detail).toBe('Too many failed logins for this account; try again in 900 seconds.');
      expect((await login(server, ADMIN.email, ADMIN.password, '192.0.2.50')).status).toBe(429);
      expect((await login(server, ADMIN.email, ADMIN.password, KNOWN)).status).toBe(200);
      expect((await login(server, 'grace@example.com', 'another long password', HOME)).status).toBe(200);
      // The email's case does not make another account.
      expect((await login(server, ADMIN.email.toUpperCase(), ADMIN.password, '192.0.2.51')).status).toBe(429);
    });

    it('bounds guessing spread over many addresses: 30 failures from 6 addresses, then a wrong password from a 7th gets 429 with Retry-After; the owner from an address that logged in before gets 200', async () => {
      const server = await serve(make, { trustProxy: true, loginThrottle: { maxFailures: 30 } });
      const KNOWN = '198.51.100.1';
      expect((await login(server, ADMIN.email, ADMIN.password, KNOWN)).status).toBe(200);
      for (let a = 0; a < 6; a++) {
        for (let i = 0; i < 5; i++) {
          server.clock.advance(1_000);
          expect((await login(server, ADMIN.email, `guess ${a}.${i}`, `203.0.113.${10 + a}`)).status, `address ${a}, guess ${i}`).toBe(401);
        }
      }
      const throttled = await login(server, ADMIN.email, 'guess 7', '203.0.113.17');
      expect(throttled.status).toBe(429);
      // The oldest of the 30 was 29 seconds ago.
      expect(throttled.headers.get('retry-after')).toBe('871');
      expect((await login(server, ADMIN.email, ADMIN.password, '203.0.113.18')).status).toBe(429);
      expect((await login(server, ADMIN.email, ADMIN.password, KNOWN)).status).toBe(200);
    });

    it('holds a known address to its own count: 5 failures from it get 429 there (with the address limit untouched), the account still logs in from another known address (200)', async () => {
      const server = await serve(make, { trustProxy: true });
      const OFFICE = '198.51.100.2';
      for (const from of [HOME, OFFICE]) expect((await login(server, ADMIN.email, ADMIN.password, from)).status).toBe(200);
      await failFiveTimes(server);
      expect((await login(server, ADMIN.email, ADMIN.password, HOME)).status).toBe(429);
      expect((await login(server, ADMIN.email, ADMIN.password, OFFICE)).status).toBe(200);
    });

    it('counts an IPv6 /64 as one address: 20 failures from 20 addresses in it, then 429 from a 21st of it; another /64 is not affected', async () => {
      const server = await serve(make, { trustProxy: true });
      for (let i = 0; i < 20; i++) {
        expect((await login(server, `user${i}@example.com`, 'guess', `2001:db8:0:1::${(i + 1).toString(16)}`)).status, `address ${i}`).toBe(
          401,
        );
      }
      const throttled = await login(server, 'user99@example.com', 'guess', '2001:db8:0:1:ffff:ffff:ffff:ffff');
      expect(throttled.status).toBe(429);
      expect((await json(throttled)).detail).toMatch(/^Too many failed logins from this address; try again in \d+ seconds\.$/);
      expect((await login(server, 'user99@example.com', 'guess', '2001:db8:0:2::1')).status).toBe(401);
    });

    it('takes the address from the last X-Forwarded-For entry, so client-supplied entries cannot dodge the throttle', async () => {
      const server = await serve(make, { trustProxy: true });
      for (let i = 0; i < 5; i++) {
        expect((await login(server, ADMIN.email, 'wrong', `203.0.113.${i}, ${HOME}`)).status).toBe(401);
      }
      expect((await login(server, ADMIN.email, ADMIN.password, `192.0.2.99, ${HOME}`)).status).toBe(429);
    });

    it('throttles unknown emails like known ones (429 on the 6th)', async () => {
      const server = await serve(make, { trustProxy: true });
      await failFiveTimes(server, 'nobody@example.com');
      expect((await login(server, 'nobody@example.com', 'whatever', HOME)).status).toBe(429);
    });

    it('resets the count after a successful login', async () => {
      const server = await serve(make, { trustProxy: true });
      for (let i = 0; i < 4; i++) expect((await login(server, ADMIN.email, 'wrong', HOME)).status).toBe(401);
      expect((await login(server, ADMIN.email, ADMIN.password, HOME)).status).toBe(200);
      await failFiveTimes(server);
      expect((await login(server, ADMIN.email, ADMIN.password, HOME)).status).toBe(429);
    });

    it('lets the account log in again (200) once the Retry-After has passed', async () => {
      const server = await serve(make, { trustProxy: true });
      await failFiveTimes(server);
      const throttled = await login(server, ADMIN.email, ADMIN.password, HOME);
      expect(throttled.status).toBe(429);
      expect(throttled.headers.get('retry-after')).toBe('900');
      server.clock.advance(899_000);
      expect((await login(server, ADMIN.email, ADMIN.password, HOME)).status).toBe(429);
      server.clock.advance(1_000);
      expect((await login(server, ADMIN.email, ADMIN.password, HOME)).status).toBe(200);
    });

    it('throttles a parallel flood: of 12 concurrent wrong logins exactly 5 reach the password check (401), the others get 429', async () => {
      const hasher = countingHasher();
      const server = await serve(make, { trustProxy: true, hasher });
      const responses = await Promise.all(Array.from({ length: 12 }, (_, i) => login(server, ADMIN.email, `guess ${i}`, HOME)));
      const statuses = responses.map((r) => r.status);
      expect(statuses.filter((s) => s !== 401 && s !== 429)).toEqual([]);
      expect(statuses.filter((s) => s === 401)).toHaveLength(5);
      expect(hasher.verified).toHaveLength(5);
      expect((await login(server, ADMIN.email, ADMIN.password, HOME)).status).toBe(429);
    });

    it('throttles one address spraying many accounts: 20 failures in the window, then 429 for any email from it', async () => {
      const hasher = countingHasher();
      const server = await serve(make, { trustProxy: true, hasher });
      for (let i = 0; i < 20; i++) expect((await login(server, `user${i}@example.com`, 'guess', HOME)).status, `email ${i}`).toBe(401);
      expect((await login(server, 'user99@example.com', 'guess', HOME)).status).toBe(429);
      expect((await login(server, ADMIN.email, ADMIN.password, HOME)).status).toBe(429);
      expect(hasher.verified).toHaveLength(20);
      // Another address is not affected.
      expect((await login(server, ADMIN.email, ADMIN.password, '198.51.100.1')).status).toBe(200);
    });

    it('does not let a good login from an address reset the failures sprayed from it', async () => {
      const server = await serve(make, { trustProxy: true });
      for (let i = 0; i < 19; i++) expect((await login(server, `user${i}@example.com`, 'guess', HOME)).status).toBe(401);
      expect((await login(server, ADMIN.email, ADMIN.password, HOME)).status).toBe(200);
      expect((await login(server, 'user50@example.com', 'guess', HOME)).status).toBe(401);
      expect((await login(server, 'user51@example.com', 'guess', HOME)).status).toBe(429);
    });

    it('shares the count between two app instances over one database', async () => {
      const store = await make();
      const clock = new FixedClock(START);
      const one = await serve(make, { store, clock, trustProxy: true });
      const two = await serve(make, { store, clock, trustProxy: true });
      for (let i = 0; i < 3; i++) expect((await login(one, ADMIN.email, 'wrong', HOME)).status).toBe(401);
      for (let i = 0; i < 2; i++) expect((await login(two, ADMIN.email, 'wrong', HOME)).status).toBe(401);
      expect((await login(one, ADMIN.email, ADMIN.password, HOME)).status).toBe(429);
      expect((await login(two, ADMIN.email, ADMIN.password, HOME)).status).toBe(429);
    });
  });
});

describe('transport', () => {
  // What the HTTP layer does whatever the store: run once, on the memory store.
  const make: MakeStore = async () => createMemoryStore();

  const ORIGIN = 'https://blog.example.com';

  async function preflight(server: Server, origin: string): Promise<Response> {
    return server.app.fetch(
      new Request(url('/posts/01JDQ8Z4M6X2V7K9T3N5R8W1YB'), {
        method: 'OPTIONS',
        headers: {
          origin,
          'access-control-request-method': 'PATCH',
          'access-control-request-headers': 'authorization, content-type, if-match',
        },
      }),
    );
  }

  it('answers a CORS preflight from an allowed origin with the allowed methods and headers', async () => {
    const server = await serve(make, { corsOrigins: [ORIGIN, 'http://localhost:5173'] });
    const response = await preflight(server, ORIGIN);
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    const allowHeaders = response.headers
      .get('access-control-allow-headers')!
      .toLowerCase()
      .split(/\s*,\s*/);
    for (const header of ['authorization', 'content-type', 'if-match', 'if-none-match', 'idempotency-key', 'prefer']) {
      expect(allowHeaders).toContain(header);
    }
    const allowMethods = response.headers.get('access-control-allow-methods')!.split(/\s*,\s*/);
    for (const method of ['GET', 'POST', 'PATCH', 'DELETE']) expect(allowMethods).toContain(method);
    // The preflight is Hono's answer, not ours: it still gets the base headers of the path.
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('cache-control')).toBe('private, no-cache');
    expect(
      response.headers
        .get('vary')
        ?.split(/\s*,\s*/)
        .filter((name) => name.toLowerCase() === 'origin'),
    ).toHaveLength(1);
  });

  it('exposes ETag, Location, Retry-After and Idempotent-Replayed to an allowed origin', async () => {
    const server = await serve(make, { corsOrigins: [ORIGIN] });
    const response = await server.fetch(url('/healthz'), { headers: { origin: ORIGIN } });
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect(response.headers.get('vary')).toMatch(/origin/i);
    const exposed = response.headers
      .get('access-control-expose-headers')!
      .toLowerCase()
      .split(/\s*,\s*/);
    for (const header of ['etag', 'location', 'retry-after', 'idempotent-replayed']) expect(exposed).toContain(header);
  });

  it('lets an allowed origin read error answers and the docs: 401, 404, 405, 413 and the bundle carry its CORS headers', async () => {
    const server = await serve(make, { corsOrigins: [ORIGIN], bodyLimitBytes: 2048 });
    const fromOrigin = { origin: ORIGIN };
    const answers = {
      401: await server.fetch(url('/posts'), { headers: fromOrigin }),
      404: await server.fetch(url('/nothing-here'), { headers: fromOrigin }),
      405: await server.fetch(url('/healthz'), { method: 'DELETE', headers: fromOrigin }),
      413: await server.fetch(url('/auth/login'), {
        method: 'POST',
        headers: { ...fromOrigin, 'content-type': 'application/json' },
        body: JSON.stringify({ email: ADMIN.email, password: 'x'.repeat(3000) }),
      }),
      // Not an operation of the contract: fetched past the contract check.
      200: await server.app.fetch(new Request(url('/openapi.json'), { headers: fromOrigin })),
    };
    for (const [status, response] of Object.entries(answers)) {
      expect(response.status, status).toBe(Number(status));
      expect(response.headers.get('access-control-allow-origin'), status).toBe(ORIGIN);
      expect(response.headers.get('access-control-expose-headers'), status).toMatch(/etag/i);
      const vary = response.headers.get('vary')?.split(/\s*,\s*/) ?? [];
      expect(
        vary.filter((name) => name.toLowerCase() === 'origin'),
        status,
      ).toHaveLength(1);
      // The base headers survive the middleware's rebuilding of the answer.
      expect(response.headers.get('x-content-type-options'), status).toBe('nosniff');
    }
    expect(answers[401].headers.get('content-type')).toBe('application/problem+json');
    expect(answers[405].headers.get('allow')).toBe('GET, HEAD, OPTIONS');
  });

  it('gives a disallowed origin no Access-Control-Allow-Origin', async () => {
    const server = await serve(make, { corsOrigins: [ORIGIN] });
    const response = await preflight(server, 'https://evil.example.com');
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
    const simple = await server.fetch(url('/healthz'), { headers: { origin: 'https://evil.example.com' } });
    expect(simple.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('answers a body over the configured limit with 413', async () => {
    const server = await serve(make, { bodyLimitBytes: 2048 });
    const small = await login(server, ADMIN.email, 'x'.repeat(1000));
    expect(small.status).toBe(401);
    const large = await postJson(server, '/auth/login', { email: ADMIN.email, password: 'x'.repeat(3000) });
    expect(large.status).toBe(413);
    expect(await json(large)).toMatchObject({ type: `${PROBLEMS}payload-too-large`, status: 413 });
  });

  it('answers a body over the default 1 MiB with 413', async () => {
    const server = await serve(make);
    const large = await postJson(server, '/auth/refresh', { refreshToken: 'x'.repeat(1024 * 1024) });
    expect(large.status).toBe(413);
    expect((await json(large)).type).toBe(`${PROBLEMS}payload-too-large`);
  });

  it('sends security headers that suit a JSON API, and no-store on auth answers', async () => {
    const server = await serve(make);
    const responses = [
      await login(server, ADMIN.email, ADMIN.password),
      await login(server, ADMIN.email, 'wrong'),
      await server.fetch(url('/healthz')),
      await server.fetch(url('/posts')),
    ];
    for (const response of responses) {
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
      expect(response.headers.get('x-frame-options')).toBe('DENY');
      expect(response.headers.get('referrer-policy')).toBe('no-referrer');
      expect(response.headers.get('strict-transport-security')).toMatch(/max-age=\d+/);
      expect(response.headers.get('x-powered-by')).toBeNull();
    }
    expect(responses[0]!.headers.get('cache-control')).toBe('no-store');
    expect(responses[1]!.headers.get('cache-control')).toBe('no-store');
  });

  it('answers an unexpected error with a bare 500 problem carrying the request id it was logged under', async () => {
    const inner = await make();
    const users: UserRepository = {
      upsert: (user) => inner.users.upsert(user),
      get: (id) => inner.users.get(id),
      getByEmail: async () => {
        throw new Error('relation "users" does not exist');
      },
      sessionVersion: (id) => inner.users.sessionVersion(id),
      endSessions: (id) => inner.users.endSessions(id),
      count: () => inner.users.count(),
    };
    const lines: string[] = [];
    const server = await serve(make, { store: { ...inner, users }, logger: createLogger('error', (line) => lines.push(line)) });
    const response = await login(server, ADMIN.email, ADMIN.password);
    expect(response.status).toBe(500);
    const text = await response.text();
    const body = JSON.parse(text);
    expect(Object.keys(body).sort()).toEqual(['detail', 'instance', 'requestId', 'status', 'title', 'type']);
    expect(body).toMatchObject({ type: `${PROBLEMS}internal-error`, status: 500, instance: '/api/v1/auth/login' });
    expect(body.requestId).toMatch(/^[0-9a-f-]{36}$/);
    for (const leak of ['relation', 'does not exist', 'users', 'Error', '.ts', ' at ']) expect(text).not.toContain(leak);
    const logged = lines.map((line) => JSON.parse(line)).find((entry) => entry.requestId === body.requestId);
    expect(logged).toMatchObject({ level: 'error', error: { message: 'relation "users" does not exist' } });
  });
});
