export interface User {
  id: string;
  /** Stored lowercased; lookups fold case. */
  email: string;
  name: string;
  passwordHash: string;
  createdAt: Date;
  updatedAt: Date;
}

/**
 * Accounts.
 * - `upsert` creates a user, or replaces the name and password hash of the user with the same
 *   email (compared case-insensitively), and returns it as stored. Emails are stored lowercased.
 * - `getByEmail` folds case; `get` and `getByEmail` return null for an unknown user.
 * - `count` is the number of users.
 */
export interface UserRepository {
  upsert(user: User): Promise<User>;
  get(id: string): Promise<User | null>;
  getByEmail(email: string): Promise<User | null>;
  count(): Promise<number>;
}
