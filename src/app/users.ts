import {
  ValidationError,
  type Clock,
  type IdGenerator,
  type PasswordHasher,
  type PasswordPolicy,
  type RefreshTokenRepository,
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
 * this name and password: one upsert decides, so two at once never make two users. A reset ends
 * every session of the user: the upsert raises its session version (every access and refresh
 * token issued before is refused from then on, in every process), and its refresh tokens are
 * revoked.
 * @throws ValidationError at `/password` for a password the policy refuses (checked with the
 *   account's email and name, so neither makes a password)
 */
export async function createOrResetUser(
  deps: {
    users: UserRepository;
    refreshTokens: RefreshTokenRepository;
    hasher: PasswordHasher;
    passwords: PasswordPolicy;
    ids: IdGenerator;
    clock: Clock;
  },
  account: UserAccount,
): Promise<{ user: User; created: boolean }> {
  const problem = await deps.passwords.problem(account.password, [account.email, account.name]);
  if (problem !== null) throw new ValidationError([{ pointer: '/password', message: problem }]);
  const now = deps.clock.now();
  const id = deps.ids.next();
  const passwordHash = await deps.hasher.hash(account.password);
  const user = await deps.users.upsert({ id, email: account.email, name: account.name, passwordHash, createdAt: now, updatedAt: now });
  // Our new id came back when the email was free.
  const created = user.id === id;
  if (!created) await deps.refreshTokens.revokeUser(user.id, now);
  return { user, created };
}
