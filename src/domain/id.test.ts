import { describe, expect, it } from 'vitest';
import { isUlid, SequentialIds, ULID_PATTERN } from './id.js';

describe('isUlid', () => {
  it('accepts 26 Crockford base32 characters', () => {
    expect(isUlid('01ARZ3NDEKTSV4RRFFQ69G5FAV')).toBe(true);
  });

  it('rejects wrong lengths, lowercase and the excluded letters I, L, O, U', () => {
    for (const s of ['', '01ARZ3NDEKTSV4RRFFQ69G5FA', '01ARZ3NDEKTSV4RRFFQ69G5FAVX', '01arz3ndektsv4rrffq69g5fav']) {
      expect(isUlid(s), s).toBe(false);
    }
    for (const letter of ['I', 'L', 'O', 'U']) {
      expect(isUlid(`01ARZ3NDEKTSV4RRFFQ69G5FA${letter}`), letter).toBe(false);
    }
  });
});

describe('SequentialIds', () => {
  it('produces ids matching ULID_PATTERN', () => {
    const ids = new SequentialIds(Date.UTC(2024, 0, 1));
    for (let i = 0; i < 50; i += 1) {
      expect(ids.next()).toMatch(ULID_PATTERN);
    }
  });

  it('produces strictly increasing ids in string order', () => {
    const gen = new SequentialIds(1_700_000_000_000);
    const ids = Array.from({ length: 1000 }, () => gen.next());
    const sorted = [...ids].sort();
    expect(ids).toEqual(sorted);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('encodes the seed time in the first 10 characters as Crockford base32', () => {
    expect(new SequentialIds(0).next()).toBe('0'.repeat(26));
    // 1469918176385 ms is the timestamp of the ULID spec example 01ARYZ6S41...
    expect(new SequentialIds(1469918176385).next().slice(0, 10)).toBe('01ARYZ6S41');
    expect(new SequentialIds(2 ** 48 - 1).next().slice(0, 10)).toBe('7ZZZZZZZZZ');
  });

  it('counts up in the last 16 characters', () => {
    const gen = new SequentialIds(0);
    gen.next();
    expect(gen.next().slice(10)).toBe('0000000000000001');
    for (let i = 0; i < 30; i += 1) gen.next();
    expect(gen.next().slice(10)).toBe('0000000000000010');
  });

  it('sorts ids from a later seed time after those from an earlier one', () => {
    expect(new SequentialIds(1001).next() > new SequentialIds(1000).next()).toBe(true);
  });

  it('rejects seed times outside the 48-bit ULID range', () => {
    expect(() => new SequentialIds(-1)).toThrow(RangeError);
    expect(() => new SequentialIds(2 ** 48)).toThrow(RangeError);
    expect(() => new SequentialIds(1.5)).toThrow(RangeError);
  });
});
