import { describe, expect, it } from 'vitest';
import { FixedClock, systemClock } from './clock.js';

const start = new Date('2024-03-10T08:00:00.000Z');

describe('FixedClock', () => {
  it('returns the start instant until moved', () => {
    const clock = new FixedClock(start);
    expect(clock.now()).toEqual(start);
    expect(clock.now()).toEqual(start);
  });

  it('is not moved by mutating the start date or a returned date', () => {
    const input = new Date(start);
    const clock = new FixedClock(input);
    input.setUTCFullYear(2000);
    clock.now().setUTCFullYear(1999);
    expect(clock.now()).toEqual(start);
  });

  it('returns a fresh copy on every call', () => {
    const clock = new FixedClock(start);
    expect(clock.now()).not.toBe(clock.now());
  });

  it('advances by the given number of milliseconds', () => {
    const clock = new FixedClock(start);
    clock.advance(1500);
    expect(clock.now().toISOString()).toBe('2024-03-10T08:00:01.500Z');
    clock.advance(-500);
    expect(clock.now().toISOString()).toBe('2024-03-10T08:00:01.000Z');
  });

  it('jumps to the instant passed to set', () => {
    const clock = new FixedClock(start);
    const later = new Date('2025-01-01T00:00:00.000Z');
    clock.set(later);
    later.setUTCFullYear(2030);
    expect(clock.now().toISOString()).toBe('2025-01-01T00:00:00.000Z');
  });

  it('rejects invalid dates and non-finite steps', () => {
    expect(() => new FixedClock(new Date('nope'))).toThrow(RangeError);
    const clock = new FixedClock(start);
    expect(() => clock.set(new Date(Number.NaN))).toThrow(RangeError);
    expect(() => clock.advance(Number.POSITIVE_INFINITY)).toThrow(RangeError);
  });
});

describe('systemClock', () => {
  it('returns the current time', () => {
    const before = Date.now();
    const now = systemClock.now().getTime();
    expect(now).toBeGreaterThanOrEqual(before);
    expect(now).toBeLessThanOrEqual(Date.now());
  });
});
