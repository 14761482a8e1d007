import type { LoginAttemptRepository } from '../../domain/ports/login-attempt-repository.js';
import { assertLimitPositive, type Session } from './state.js';

export class MemoryLoginAttemptRepository implements LoginAttemptRepository {
  readonly #session: Session;

  constructor(session: Session) {
    this.#session = session;
  }

  recordFailure(key: string, at: Date): Promise<void> {
    return this.#session.exec((data) => {
      data.loginFailures.set(key, [...(data.loginFailures.get(key) ?? []), at.getTime()]);
    });
  }

  failuresSince(key: string, since: Date): Promise<{ count: number; oldest: Date | null }> {
    return this.#session.exec((data) => {
      const recent = (data.loginFailures.get(key) ?? []).filter((t) => t >= since.getTime());
      return { count: recent.length, oldest: recent.length === 0 ? null : new Date(Math.min(...recent)) };
    });
  }

  purgeBefore(before: Date, limit: number): Promise<number> {
    return this.#session.exec((data) => {
      assertLimitPositive(limit);
      let deleted = 0;
      for (const [key, instants] of data.loginFailures) {
        const kept: number[] = [];
        for (const t of instants) {
          if (t < before.getTime() && deleted < limit) deleted += 1;
          else kept.push(t);
        }
        if (kept.length === 0) data.loginFailures.delete(key);
        else data.loginFailures.set(key, kept);
        if (deleted === limit) break;
      }
      return deleted;
    });
  }

  clear(key: string): Promise<void> {
    return this.#session.exec((data) => {
      data.loginFailures.delete(key);
    });
  }
}
