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
  /**
   * Goes up by one each time every session of the user ends (a password reset, a logout
   * everywhere): tokens issued under an older version are dead.
   */
  sessionVersion: number;
}

/** A user as `upsert` is given it: the store keeps the session version. */
export type NewUser = Omit<User, 'sessionVersion'>;

/**
 * Accounts.
 * - `upsert` creates a user (session version 0), or replaces the name and password hash of the
 *   user with the same email (compared case-insensitively) and ends that user's sessions (its
 *   session version goes up by one), and returns it as stored. Emails are stored lowercased.
 * - `getByEmail` folds case; `get` and `getByEmail` return null for an unknown user.
 * - `sessionVersion(id)` is the user's session version, null for an unknown user.
 * - `endSessions(id)` raises the user's session version by one and returns the new one, or null
 *   (changing nothing) for an unknown user. Concurrent calls are never lost: N of them raise it by N.
 * - `count` is the number of users.
 */
export interface UserRepository {
  upsert(user: NewUser): Promise<User>;
  get(id: string): Promise<User | null>;
  getByEmail(email: string): Promise<User | null>;
  sessionVersion(id: string): Promise<number | null>;
  endSessions(id: string): Promise<number | null>;
  count(): Promise<number>;
}
