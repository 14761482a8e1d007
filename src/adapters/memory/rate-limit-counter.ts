import { checkedBatchLimit } from '../../domain/index.js';
import type { RateLimitCounter, RateWindow } from '../../domain/ports/rate-limit-counter.js';
import type { Session } from './state.js';

export class MemoryRateLimitCounter implements RateLimitCounter {
  readonly #session: Session;

  constructor(session: Session) {
    this.#session = session;
  }

  hit(key: string, at: Date, windowMs: number): Promise<RateWindow> {
    return this.hitMany(key, 1, at, windowMs);
  }

  /** One synchronous step under the store's lock: atomic by construction. */
  hitMany(key: string, n: number, at: Date, windowMs: number): Promise<RateWindow> {
    return this.#session.exec((data): RateWindow => {
      checkedWindow(windowMs);
      if (!Number.isSafeInteger(n) || n < 1) throw new RangeError(`n must be a positive integer, got ${n}`);
      const now = at.getTime();
      const current = data.rateWindows.get(key);
      const next =
        current === undefined || current.endsAt <= now
          ? { hits: n, endsAt: now + windowMs }
          : { hits: current.hits + n, endsAt: current.endsAt };
      data.rateWindows.set(key, next);
      return { hits: next.hits, endsAt: new Date(next.endsAt) };
    });
  }

  purgeEnded(before: Date, limit: number): Promise<number> {
    return this.#session.exec((data) => {
      const most = checkedBatchLimit(limit);
      let deleted = 0;
      for (const [key, window] of data.rateWindows) {
        if (deleted === most) break;
        if (window.endsAt > before.getTime()) continue;
        data.rateWindows.delete(key);
        deleted += 1;
      }
      return deleted;
    });
  }
}

function checkedWindow(windowMs: number): void {
  if (!Number.isSafeInteger(windowMs) || windowMs < 1) throw new RangeError(`windowMs must be a positive integer, got ${windowMs}`);
}
