import { describe, expect, it } from 'vitest';
import { randomIds } from './random-ids.js';

describe('random ids', () => {
  it('are 26 lowercase base32 characters whose last one carries 3 bits (two zero bits of padding)', () => {
    const ids = randomIds();
    for (let i = 0; i < 1000; i += 1) expect(ids.next()).toMatch(/^[a-z2-7]{25}[aeimquy4]$/);
  });

  it('are 10,000 distinct ids, neither sorted by creation nor in reverse', () => {
    const ids = randomIds();
    const made = Array.from({ length: 10_000 }, () => ids.next());
    expect(new Set(made).size).toBe(made.length);
    const ascending = [...made].sort();
    expect(made).not.toEqual(ascending);
    expect(made).not.toEqual(ascending.reverse());
  });

  it('use every character of the alphabet in every leading position: 125 bits of the first 25 vary', () => {
    const ids = randomIds();
    const seen = Array.from({ length: 25 }, () => new Set<string>());
    for (let i = 0; i < 2000; i += 1) [...ids.next()].slice(0, 25).forEach((ch, at) => seen[at]!.add(ch));
    for (const chars of seen) expect(chars.size).toBe(32);
  });
});
