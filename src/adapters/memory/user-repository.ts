import { DuplicateIdError } from '../../domain/errors.js';
import type { NewUser, User, UserRepository } from '../../domain/ports/user-repository.js';
import { copyDate, type MemoryData, type Session } from './state.js';

function copyUser(u: User): User {
  return {
    id: u.id,
    email: u.email,
    name: u.name,
    passwordHash: u.passwordHash,
    createdAt: copyDate(u.createdAt),
    updatedAt: copyDate(u.updatedAt),
    sessionVersion: u.sessionVersion,
  };
}

function byEmail(data: MemoryData, email: string): User | undefined {
  const folded = email.toLowerCase();
  for (const user of data.users.values()) {
    if (user.email === folded) return user;
  }
  return undefined;
}

export class MemoryUserRepository implements UserRepository {
  readonly #session: Session;

  constructor(session: Session) {
    this.#session = session;
  }

  upsert(user: NewUser): Promise<User> {
    return this.#session.exec((data) => {
      const existing = byEmail(data, user.email);
      if (existing !== undefined) {
        existing.name = user.name;
        existing.passwordHash = user.passwordHash;
        existing.updatedAt = copyDate(user.updatedAt);
        existing.sessionVersion += 1;
        return copyUser(existing);
      }
      if (data.users.has(user.id)) throw new DuplicateIdError(user.id);
      const stored = copyUser({ ...user, email: user.email.toLowerCase(), sessionVersion: 0 });
      data.users.set(stored.id, stored);
      return copyUser(stored);
    });
  }

  get(id: string): Promise<User | null> {
    return this.#session.exec((data) => {
      const user = data.users.get(id);
      return user === undefined ? null : copyUser(user);
    });
  }

  getByEmail(email: string): Promise<User | null> {
    return this.#session.exec((data) => {
      const user = byEmail(data, email);
      return user === undefined ? null : copyUser(user);
    });
  }

  sessionVersion(id: string): Promise<number | null> {
    return this.#session.exec((data) => data.users.get(id)?.sessionVersion ?? null);
  }

  endSessions(id: string): Promise<number | null> {
    return this.#session.exec((data) => {
      const user = data.users.get(id);
      if (user === undefined) return null;
      user.sessionVersion += 1;
      return user.sessionVersion;
    });
  }

  count(): Promise<number> {
    return this.#session.exec((data) => data.users.size);
  }
}
