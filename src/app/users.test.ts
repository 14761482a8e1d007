import { describe, expect, it } from 'vitest';
import { createZxcvbnPasswordPolicy } from '../adapters/crypto/zxcvbn-password-policy.js';
import { createMemoryStore } from '../adapters/memory/store.js';
import { FixedClock, SequentialIds, ValidationError, type PasswordHasher } from '../domain/index.js';
import { createOrResetUser } from './users.js';

const hasher: PasswordHasher = {
  hash: async (password) => `hashed:${password}`,
  verify: async (hash, password) => hash === `hashed:${password}`,
};

const passwords = createZxcvbnPasswordPolicy();

function deps() {
  const store = createMemoryStore();
  return {
    users: store.users,
    refreshTokens: store.refreshTokens,
    hasher,
    passwords,
    ids: new SequentialIds(1),
    clock: new FixedClock(new Date('2026-01-01T00:00:00.000Z')),
  };
}

describe('createOrResetUser', () => {
  it('creates the user, then resets the name and password of the same email whatever its case', async () => {
    const d = deps();
    const first = await createOrResetUser(d, { email: 'ada@example.com', name: 'Ada', password: 'correct horse battery' });
    expect(first.created).toBe(true);

    const again = await createOrResetUser(d, { email: 'ADA@example.com', name: 'Ada L.', password: 'another long password' });

    expect(again.created).toBe(false);
    expect(again.user).toMatchObject({
      id: first.user.id,
      email: 'ada@example.com',
      name: 'Ada L.',
      passwordHash: 'hashed:another long password',
    });
    expect(await d.users.count()).toBe(1);
  });

  it('refuses a password under 12 characters and stores nothing', async () => {
    const d = deps();
    const short = createOrResetUser(d, { email: 'ada@example.com', name: 'Ada', password: 'elevenchars' });
    await expect(short).rejects.toBeInstanceOf(ValidationError);
    await expect(short).rejects.toMatchObject({ issues: [{ pointer: '/password' }] });
    expect(await d.users.count()).toBe(0);
  });

  it('refuses a long password that is repeated or common, at /password, and changes nothing', async () => {
    const d = deps();
    await createOrResetUser(d, { email: 'ada@example.com', name: 'Ada', password: 'correct horse battery' });
    for (const password of ['aaaaaaaaaaaa', 'password1234', 'ada@example.com']) {
      const weak = createOrResetUser(d, { email: 'ada@example.com', name: 'Ada', password });
      await expect(weak, password).rejects.toMatchObject({
        issues: [{ pointer: '/password', message: expect.stringMatching(/^is too easy to guess/) }],
      });
    }
    expect((await d.users.getByEmail('ada@example.com'))?.passwordHash).toBe('hashed:correct horse battery');
    expect(await d.users.count()).toBe(1);
  });

  it("a reset ends the user's sessions: its session version goes up and its refresh tokens are revoked; another user's stay", async () => {
    const d = deps();
    const { user: ada } = await createOrResetUser(d, { email: 'ada@example.com', name: 'Ada', password: 'correct horse battery' });
    const { user: grace } = await createOrResetUser(d, { email: 'grace@example.com', name: 'Grace', password: 'another good password' });
    const token = (n: number, userId: string) => ({
      id: `T${n}`,
      familyId: `F${n}`,
      userId,
      tokenHash: `h${n}`,
      createdAt: d.clock.now(),
      expiresAt: new Date('2026-02-01T00:00:00.000Z'),
      consumedAt: null,
      revokedAt: null,
      replay: null,
      sessionVersion: 0,
    });
    await d.refreshTokens.insert(token(1, ada.id));
    await d.refreshTokens.insert(token(2, grace.id));
    const reset = await createOrResetUser(d, { email: 'ada@example.com', name: 'Ada', password: 'another long password' });
    expect(reset.user.sessionVersion).toBe(1);
    expect((await d.refreshTokens.find('h1'))?.revokedAt).toEqual(d.clock.now());
    expect((await d.refreshTokens.find('h2'))?.revokedAt).toBeNull();
    expect(await d.users.sessionVersion(grace.id)).toBe(0);
  });
});
