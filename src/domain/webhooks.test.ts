import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_SCHEDULE_MS, retryDelayMs } from './webhooks.js';

const HOUR = 3_600_000;

/** Every pause of the default schedule, with `random` always answering `value`. */
function pauses(value: number): number[] {
  const all: number[] = [];
  for (let attempt = 1; ; attempt += 1) {
    const delay = retryDelayMs(attempt, DEFAULT_RETRY_SCHEDULE_MS, () => value);
    if (delay === null) return all;
    all.push(delay);
  }
}
const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

describe('retryDelayMs', () => {
  it('retries for at least 24 hours whatever the jitter: with random() at 0 the pauses are the schedule itself', () => {
    expect(pauses(0)).toEqual([...DEFAULT_RETRY_SCHEDULE_MS]);
    expect(sum(pauses(0))).toBeGreaterThanOrEqual(24 * HOUR);
  });

  it('lengthens each pause by at most 20 % (random() just under 1)', () => {
    const longest = pauses(0.9999999999);
    longest.forEach((pause, i) => {
      expect(pause).toBeGreaterThan(DEFAULT_RETRY_SCHEDULE_MS[i]!);
      expect(pause).toBeLessThanOrEqual(Math.round(DEFAULT_RETRY_SCHEDULE_MS[i]! * 1.2));
    });
    expect(sum(longest)).toBeLessThan(34 * HOUR);
  });

  it('answers null after the last pause: 8 attempts in all', () => {
    expect(pauses(0.5)).toHaveLength(7);
    expect(retryDelayMs(8, DEFAULT_RETRY_SCHEDULE_MS, () => 0.5)).toBeNull();
  });
});
