import { randomFillSync } from 'node:crypto';
import { monotonicFactory } from 'ulid';
import type { Clock, IdGenerator } from '../../domain/index.js';

/** ULIDs from the `ulid` package, monotonic within the process, timed by the given clock. */
export function createUlidIds(clock: Clock): IdGenerator {
  const next = monotonicFactory(pooledRandom());
  return { next: () => next(clock.now().getTime()) };
}

/**
 * The `ulid` package's default PRNG, one cryptographically strong byte ÷ 256 per character, with
 * the bytes drawn from the system 4 KiB at a time instead of one system call per character.
 */
export function pooledRandom(poolBytes = 4096): () => number {
  const pool = new Uint8Array(poolBytes);
  let next = poolBytes;
  return () => {
    if (next === poolBytes) {
      randomFillSync(pool);
      next = 0;
    }
    return pool[next++]! / 256;
  };
}
