/**
 * Source of the current time.
 *
 * `now()` returns a UTC instant (a `Date` is always one). Adapters persist
 * timestamps with millisecond precision, which is all a `Date` carries.
 */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = {
  now: () => new Date(),
};

function assertValidDate(d: Date): void {
  if (Number.isNaN(d.getTime())) {
    throw new RangeError('FixedClock needs a valid Date');
  }
}

/** A manually driven clock for tests. Hands out copies, so callers cannot move it by mutating a result. */
export class FixedClock implements Clock {
  #ms: number;

  constructor(start: Date) {
    assertValidDate(start);
    this.#ms = start.getTime();
  }

  now(): Date {
    return new Date(this.#ms);
  }

  /** Moves the clock by `ms` milliseconds (negative moves it back). */
  advance(ms: number): void {
    if (!Number.isFinite(ms)) {
      throw new RangeError(`Cannot advance the clock by ${ms} ms`);
    }
    this.#ms += ms;
  }

  set(d: Date): void {
    assertValidDate(d);
    this.#ms = d.getTime();
  }
}
