import { describe, expect, it } from 'vitest';
import { createUlidIds, pooledRandom } from './ulid-ids.js';

describe('ULID ids', () => {
  it('are 26 Crockford base32 characters, increasing within one millisecond', () => {
    const ids = createUlidIds({ now: () => new Date('2026-12-03T08:00:00.000Z') });
    const made = Array.from({ length: 2000 }, () => ids.next());
    for (const id of made) expect(id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect([...made].sort()).toEqual(made);
    expect(new Set(made).size).toBe(made.length);
  });

  it('draw their randomness from fresh bytes: no two processes, nor two pools, repeat', () => {
    const a = pooledRandom(16);
    const b = pooledRandom(16);
    const draws = (prng: () => number) => Array.from({ length: 64 }, prng);
    const [fromA, fromB] = [draws(a), draws(b)];
    expect(fromA).not.toEqual(fromB);
    // Refilled after 16 draws, not replayed.
    expect(fromA.slice(16, 32)).not.toEqual(fromA.slice(0, 16));
    for (const value of [...fromA, ...fromB]) {
      expect(value).toBeGreaterThanOrEqual(0);
      expect(value).toBeLessThan(1);
      expect(Number.isInteger(value * 256)).toBe(true);
    }
  });
});
