import { randomBytes } from 'node:crypto';
import type { IdGenerator } from '../../domain/index.js';

/** RFC 4648 base32, lowercase: the 32 characters of a media id. */
const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

/**
 * Unguessable ids: 128 random bits (`crypto.randomBytes`) written as 26 characters of lowercase
 * base32 (`[a-z2-7]`), the last one carrying 3 bits and two zero bits. Neither sequential nor
 * time-ordered, so an id tells nothing of when it was made or of the ids beside it.
 */
export function randomIds(): IdGenerator {
  return { next: () => base32(randomBytes(16)) };
}

function base32(bytes: Uint8Array): string {
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = ((buffer << 8) | byte) & 0xfff;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += BASE32[(buffer >> bits) & 31]!;
    }
  }
  if (bits > 0) out += BASE32[(buffer << (5 - bits)) & 31]!;
  return out;
}
