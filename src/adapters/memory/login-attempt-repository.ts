import type { LoginAttemptRepository } from '../../domain/ports/login-attempt-repository.js';
import type { Session } from './state.js';

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

  clear(key: string): Promise<void> {
    return this.#session.exec((data) => {
      data.loginFailures.delete(key);
    });
  }
}
