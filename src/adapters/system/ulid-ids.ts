import { monotonicFactory } from 'ulid';
import type { Clock, IdGenerator } from '../../domain/index.js';

/** ULIDs from the `ulid` package, monotonic within the process, timed by the given clock. */
export function createUlidIds(clock: Clock): IdGenerator {
  const next = monotonicFactory();
  return { next: () => next(clock.now().getTime()) };
}
