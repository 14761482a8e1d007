import { checkedBatchLimit } from '../../domain/index.js';
import type { Admission, LoginAttemptRepository } from '../../domain/ports/login-attempt-repository.js';
import { type MemoryData, type Session } from './state.js';

function inWindow(data: MemoryData, key: string, since: Date): number[] {
  return (data.loginFailures.get(key) ?? []).map((f) => f.at).filter((t) => t >= since.getTime());
}

export class MemoryLoginAttemptRepository implements LoginAttemptRepository {
  readonly #session: Session;

  constructor(session: Session) {
    this.#session = session;
  }

  recordFailure(key: string, at: Date): Promise<void> {
    return this.#session.exec((data) => {
      data.loginFailureSeq += 1;
      data.loginFailures.set(key, [...(data.loginFailures.get(key) ?? []), { id: data.loginFailureSeq, at: at.getTime() }]);
    });
  }

  /** One synchronous step under the store's lock: atomic by construction. */
  admit(key: string, at: Date, since: Date, limit: number): Promise<Admission> {
    return this.#session.exec((data): Admission => {
      checkedBatchLimit(limit);
      const recent = inWindow(data, key, since);
      if (recent.length >= limit) return { admitted: false, oldest: new Date(Math.min(...recent)) };
      data.loginFailureSeq += 1;
      const id = data.loginFailureSeq;
      data.loginFailures.set(key, [...(data.loginFailures.get(key) ?? []), { id, at: at.getTime() }]);
      return { admitted: true, attemptId: String(id) };
    });
  }

  forget(attemptId: string): Promise<void> {
    return this.#session.exec((data) => {
      for (const [key, failures] of data.loginFailures) {
        const kept = failures.filter((f) => String(f.id) !== attemptId);
        if (kept.length === failures.length) continue;
        if (kept.length === 0) data.loginFailures.delete(key);
        else data.loginFailures.set(key, kept);
        return;
      }
    });
  }

  failuresSince(key: string, since: Date): Promise<{ count: number; oldest: Date | null }> {
    return this.#session.exec((data) => {
      const recent = inWindow(data, key, since);
      return { count: recent.length, oldest: recent.length === 0 ? null : new Date(Math.min(...recent)) };
    });
  }

  purgeBefore(before: Date, limit: number): Promise<number> {
    return this.#session.exec((data) => {
      checkedBatchLimit(limit);
      let deleted = 0;
      for (const [key, failures] of data.loginFailures) {
        const kept = failures.filter((f) => {
          if (f.at < before.getTime() && deleted < limit) {
            deleted += 1;
            return false;
          }
          return true;
        });
        if (kept.length === 0) data.loginFailures.delete(key);
        else data.loginFailures.set(key, kept);
        if (deleted === limit) break;
      }
      return deleted;
    });
  }

  rememberAddress(account: string, address: string, at: Date): Promise<void> {
    return this.#session.exec((data) => {
      data.loginAddresses.set(JSON.stringify([account, address]), at.getTime());
    });
  }

  knownAddress(account: string, address: string): Promise<boolean> {
    return this.#session.exec((data) => data.loginAddresses.has(JSON.stringify([account, address])));
  }

  clear(key: string): Promise<void> {
    return this.#session.exec((data) => {
      data.loginFailures.delete(key);
    });
  }
}
