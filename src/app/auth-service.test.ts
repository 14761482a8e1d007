import { describe, expect, it } from 'vitest';
import { createJoseAccessTokens } from '../adapters/crypto/jose-access-tokens.js';
import { createRefreshTokenSecrets } from '../adapters/crypto/refresh-token-secrets.js';
import { createMemoryStore } from '../adapters/memory/store.js';
import { FixedClock, InvalidTokenError, SequentialIds, type PasswordHasher, type UserRepository } from '../domain/index.js';
import { AuthService } from './auth-service.js';

const secret = new TextEncoder().encode('0123456789abcdef0123456789abcdef');
const hasher: PasswordHasher = {
  hash: async (password) => `hashed:${password}`,
  verify: async (hash, password) => hash === `hashed:${password}`,
};

/** A service over a memory store whose session-version reads are counted, and held while `hold` is set. */
async function setup() {
  const store = createMemoryStore();
  const clock = new FixedClock(new Date('2026-12-01T10:00:00.000Z'));
  const user = await store.users.upsert({
    id: '01JDQ7W3E5R7T9Y1V3N5Q7P9AS',
    email: 'ada@example.com',
    name: 'Ada',
    passwordHash: 'hashed:correct horse battery',
    createdAt: clock.now(),
    updatedAt: clock.now(),
  });
  const reads = { count: 0, hold: null as Promise<void> | null };
  const users: UserRepository = {
    ...store.users,
    upsert: (u) => store.users.upsert(u),
    get: (id) => store.users.get(id),
    getByEmail: (email) => store.users.getByEmail(email),
    endSessions: (id) => store.users.endSessions(id),
    count: () => store.users.count(),
    sessionVersion: async (id) => {
      reads.count += 1;
      const version = await store.users.sessionVersion(id);
      if (reads.hold) await reads.hold;
      return version;
    },
  };
  const auth = new AuthService({
    users,
    refreshTokens: store.refreshTokens,
    loginAttempts: store.loginAttempts,
    unitOfWork: store.unitOfWork,
    refreshSecrets: createRefreshTokenSecrets(secret),
    hasher,
    accessTokens: createJoseAccessTokens({ secret, issuer: 'margin-cms', audience: 'margin-cms-api', ttlSeconds: 900 }),
    clock,
    ids: new SequentialIds(1),
    refreshTtlSeconds: 86400,
    refreshGraceSeconds: 10,
    maxFailedLogins: 5,
    maxFailedLoginsPerAddress: 20,
    loginWindowSeconds: 900,
    dummyHash: 'hashed:dummy',
  });
  const { accessToken } = await auth.login(user.email, 'correct horse battery', '192.0.2.1');
  // Verified once, so that the token adapter answers it from memory from now on.
  await auth.authenticate(accessToken);
  reads.count = 0;
  return { auth, reads, accessToken, user };
}

/** Resolves once `reads.count` reaches `n`. */
async function readsReach(reads: { count: number }, n: number) {
  while (reads.count < n) await new Promise((resolve) => setImmediate(resolve));
}

describe('AuthService.authenticate', () => {
  it("shares one session-version read among a user's concurrent requests, and reads afresh once it has settled", async () => {
    const { auth, reads, accessToken } = await setup();
    let release = () => undefined as void;
    reads.hold = new Promise<void>((resolve) => (release = resolve));
    const first = auth.authenticate(accessToken);
    await readsReach(reads, 1);
    const others = Array.from({ length: 9 }, () => auth.authenticate(accessToken));
    await new Promise((resolve) => setImmediate(resolve));
    reads.hold = null;
    release();
    await Promise.all([first, ...others]);
    expect(reads.count).toBe(1);
    await auth.authenticate(accessToken);
    expect(reads.count).toBe(2);
  });

  it('never lets a request after a logoutAll of this process share a read sent before it: the request is refused (session ended)', async () => {
    const { auth, reads, accessToken, user } = await setup();
    let release = () => undefined as void;
    reads.hold = new Promise<void>((resolve) => (release = resolve));
    // A read of version 0 is in flight when the sessions end.
    const before = auth.authenticate(accessToken);
    await readsReach(reads, 1);
    reads.hold = null;
    await auth.logoutAll(user.id);
    const after = auth.authenticate(accessToken).catch((e: unknown) => e);
    release();
    await expect(before).resolves.toMatchObject({ userId: user.id });
    const refused = await after;
    expect(refused).toBeInstanceOf(InvalidTokenError);
    expect((refused as InvalidTokenError).reason).toBe('session ended');
    expect(reads.count).toBe(2);
  });
});
