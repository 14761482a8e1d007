import {
  passwordProblem,
  ValidationError,
  type Clock,
  type IdGenerator,
  type PasswordHasher,
  type User,
  type UserRepository,
} from '../domain/index.js';

export interface UserAccount {
  email: string;
  name: string;
  password: string;
}

/**
 * Creates the user with this email, or gives the existing one (emails compare case-insensitively)
 * this name and password: one upsert decides, so two at once never make two users.
 * @throws ValidationError at `/password` for a password `passwordProblem` refuses
 */
export async function createOrResetUser(
  deps: { users: UserRepository; hasher: PasswordHasher; ids: IdGenerator; clock: Clock },
  account: UserAccount,
): Promise<{ user: User; created: boolean }> {
  const problem = passwordProblem(account.password);
  if (problem !== null) throw new ValidationError([{ pointer: '/password', message: problem }]);
  const now = deps.clock.now();
  const id = deps.ids.next();
  const passwordHash = await deps.hasher.hash(account.password);
  const user = await deps.users.upsert({ id, email: account.email, name: account.name, passwordHash, createdAt: now, updatedAt: now });
  // Our new id came back when the email was free.
  return { user, created: user.id === id };
}
