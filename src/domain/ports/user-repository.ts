/** The shortest password an account may have, in UTF-16 code units (JavaScript's `length`). */
const PASSWORD_MIN_LENGTH = 12;

/** Why `password` cannot be an account's ("must be at least 12 characters"), or null when it can. */
export function passwordProblem(password: string): string | null {
  return password.length < PASSWORD_MIN_LENGTH ? `must be at least ${PASSWORD_MIN_LENGTH} characters` : null;
}

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
