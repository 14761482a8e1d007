import { describe, expect, it } from 'vitest';
import type { NewUser, User, UserRepository } from '../../domain/ports/user-repository.js';
import { type MakeStore, ulid, useStore } from './fixtures.js';

const T1 = new Date('2026-03-04T05:06:07.891Z');
const T2 = new Date('2026-03-05T06:07:08.912Z');

function user(n: number, overrides: Partial<NewUser> = {}): NewUser {
  return {
    id: ulid(n),
    email: `user${n}@example.com`,
    name: `User ${n}`,
    passwordHash: `$argon2id$hash-${n}`,
    createdAt: T1,
    updatedAt: T1,
    ...overrides,
  };
}

export function describeUserRepositoryContract(make: MakeStore): void {
  describe('UserRepository', () => {
    const store = useStore(make);
    const users = (): UserRepository => store().users;

    it('upsert creates a user with session version 0 and returns it as stored, email lowercased', async () => {
      const created = await users().upsert(user(1, { email: 'Ada.Lovelace@Example.COM' }));
      const expected: User = { ...user(1, { email: 'ada.lovelace@example.com' }), sessionVersion: 0 };
      expect(created).toStrictEqual(expected);
      expect(await users().get(ulid(1))).toStrictEqual(expected);
      expect(await users().count()).toBe(1);
    });

    it('upsert replaces the name and password hash of the user with the same email, compared case-insensitively', async () => {
      await users().upsert(user(1, { email: 'ada@example.com' }));
      const replaced = await users().upsert(
        user(2, { email: 'ADA@Example.com', name: 'Ada L.', passwordHash: 'new-hash', createdAt: T2, updatedAt: T2 }),
      );
      expect(replaced.id).toBe(ulid(1));
      expect(replaced.email).toBe('ada@example.com');
      expect(replaced.name).toBe('Ada L.');
      expect(replaced.passwordHash).toBe('new-hash');
      expect(replaced.createdAt.getTime()).toBe(T1.getTime());
      expect(await users().count()).toBe(1);
      expect(await users().get(ulid(2))).toBeNull();
      const stored = await users().get(ulid(1));
      expect(stored).toMatchObject({ email: 'ada@example.com', name: 'Ada L.', passwordHash: 'new-hash' });
    });

    it('getByEmail folds case', async () => {
      await users().upsert(user(1, { email: 'Grace@Example.com' }));
      for (const email of ['grace@example.com', 'GRACE@EXAMPLE.COM', 'Grace@Example.com']) {
        expect((await users().getByEmail(email))?.id, email).toBe(ulid(1));
      }
      expect((await users().getByEmail('GRACE@EXAMPLE.COM'))?.email).toBe('grace@example.com');
    });

    it('get and getByEmail return null for an unknown user', async () => {
      expect(await users().get(ulid(404))).toBeNull();
      expect(await users().getByEmail('nobody@example.com')).toBeNull();
      await users().upsert(user(1));
      expect(await users().get(ulid(404))).toBeNull();
      expect(await users().getByEmail('user1@example.co')).toBeNull();
    });

    it('count is the number of users', async () => {
      expect(await users().count()).toBe(0);
      await users().upsert(user(1));
      await users().upsert(user(2));
      await users().upsert(user(3, { email: 'USER1@example.com' }));
      expect(await users().count()).toBe(2);
    });

    it('returns copies: mutating an input or a result does not change the stored user', async () => {
      const input = user(1, { createdAt: new Date(T1), updatedAt: new Date(T1) });
      const created = await users().upsert(input);
      input.name = 'input';
      input.createdAt.setUTCFullYear(1990);
      created.name = 'created';
      created.updatedAt.setUTCFullYear(1991);
      const got = (await users().get(ulid(1)))!;
      got.email = 'changed@example.com';
      expect(await users().get(ulid(1))).toStrictEqual({ ...user(1), sessionVersion: 0 });
      expect(await users().getByEmail('changed@example.com')).toBeNull();
    });

    it("upsert of an existing email ends the user's sessions: its session version goes up by one", async () => {
      await users().upsert(user(1));
      await users().upsert(user(2));
      const reset = await users().upsert(user(3, { email: 'USER1@example.com', passwordHash: 'new-hash' }));
      expect(reset.sessionVersion).toBe(1);
      expect(await users().sessionVersion(ulid(1))).toBe(1);
      expect((await users().upsert(user(4, { email: 'user1@example.com' }))).sessionVersion).toBe(2);
      expect(await users().sessionVersion(ulid(2))).toBe(0);
    });

    it("sessionVersion is the user's session version, null for an unknown user", async () => {
      await users().upsert(user(1));
      expect(await users().sessionVersion(ulid(1))).toBe(0);
      expect(await users().sessionVersion(ulid(404))).toBeNull();
    });

    it("endSessions raises the session version by one and returns it; another user's stays", async () => {
      await users().upsert(user(1));
      await users().upsert(user(2));
      expect(await users().endSessions(ulid(1))).toBe(1);
      expect(await users().endSessions(ulid(1))).toBe(2);
      expect(await users().sessionVersion(ulid(1))).toBe(2);
      expect((await users().get(ulid(1)))?.sessionVersion).toBe(2);
      expect((await users().getByEmail('user1@example.com'))?.sessionVersion).toBe(2);
      expect(await users().sessionVersion(ulid(2))).toBe(0);
    });

    it('endSessions of an unknown user is null and changes nothing', async () => {
      await users().upsert(user(1));
      expect(await users().endSessions(ulid(404))).toBeNull();
      expect(await users().sessionVersion(ulid(404))).toBeNull();
      expect(await users().count()).toBe(1);
    });

    it('endSessions called concurrently is never lost: ten calls raise the version by ten', async () => {
      await users().upsert(user(1));
      const versions = await Promise.all(Array.from({ length: 10 }, () => users().endSessions(ulid(1))));
      expect([...versions].sort((a, b) => a! - b!)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      expect(await users().sessionVersion(ulid(1))).toBe(10);
    });
  });
}
