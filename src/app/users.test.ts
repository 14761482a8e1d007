import { describe, expect, it } from 'vitest';
import { createMemoryStore } from '../adapters/memory/store.js';
import { FixedClock, SequentialIds, ValidationError, type PasswordHasher } from '../domain/index.js';
import { createOrResetUser } from './users.js';

const hasher: PasswordHasher = {
  hash: async (password) => `hashed:${password}`,
  verify: async (hash, password) => hash === `hashed:${password}`,
};

function deps() {
  return {
    users: createMemoryStore().users,
    hasher,
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
});
