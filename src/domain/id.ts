/**
 * Source of entity ids: `next()` answers a new id, never one answered before.
 *
 * Post, user and event ids are ULIDs: 26 characters of Crockford base32 (10 for
 * the millisecond timestamp, 16 random), strictly increasing within a process
 * (monotonic, also within the same millisecond). Media ids are unguessable
 * instead: 26 lowercase base32 characters of 128 random bits, in no order.
 */
export interface IdGenerator {
  next(): string;
}

export const ULID_PATTERN = /^[0-9A-HJKMNP-TV-Z]{26}$/;

export function isUlid(s: string): boolean {
  return ULID_PATTERN.test(s);
}

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const TIME_LENGTH = 10;
const COUNTER_LENGTH = 16;
const MAX_TIME = 2 ** 48 - 1;
const MAX_COUNTER = 32n ** BigInt(COUNTER_LENGTH) - 1n;

function encodeBase32(value: bigint, length: number): string {
  let out = '';
  let rest = value;
  for (let i = 0; i < length; i += 1) {
    out = CROCKFORD[Number(rest % 32n)]! + out;
    rest /= 32n;
  }
  return out;
}

/**
 * Deterministic id generator for tests: ULID-shaped ids whose first 10
 * characters encode `timeMs` and whose last 16 are a counter starting at 0,
 * so ids sort in generation order.
 */
export class SequentialIds implements IdGenerator {
  readonly #timePart: string;
  #counter = 0n;

  constructor(timeMs = 0) {
    if (!Number.isInteger(timeMs) || timeMs < 0 || timeMs > MAX_TIME) {
      throw new RangeError(`ULID time must be an integer in [0, 2^48 - 1], got ${timeMs}`);
    }
    this.#timePart = encodeBase32(BigInt(timeMs), TIME_LENGTH);
  }

  next(): string {
    if (this.#counter > MAX_COUNTER) {
      throw new RangeError('SequentialIds counter exhausted');
    }
    const id = this.#timePart + encodeBase32(this.#counter, COUNTER_LENGTH);
    this.#counter += 1n;
    return id;
  }
}
