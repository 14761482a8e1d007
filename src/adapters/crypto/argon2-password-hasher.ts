import { hash, verify } from '@node-rs/argon2';

/** `Algorithm.Argon2id` of @node-rs/argon2 (a const enum, which isolated modules cannot read). */
const ARGON2ID = 2;
import type { PasswordHasher } from '../../domain/index.js';

/** OWASP's minimum for argon2id: 19 MiB, 2 iterations, 1 lane. */
export const ARGON2ID_PARAMS = { algorithm: ARGON2ID, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

/** argon2id through @node-rs/argon2, whose hash and verify run on the libuv thread pool. */
export function createArgon2PasswordHasher(
  params: { memoryCost: number; timeCost: number; parallelism: number } = ARGON2ID_PARAMS,
): PasswordHasher {
  const options = { ...params, algorithm: ARGON2ID };
  return {
    hash: (password) => hash(password, options),
    async verify(stored, password) {
      try {
        return await verify(stored, password);
      } catch {
        return false;
      }
    },
  };
}
