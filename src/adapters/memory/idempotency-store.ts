import { checkedBatchLimit } from '../../domain/index.js';
import type { ClaimOutcome, IdempotencyClaim, IdempotencyStore, StoredResponse } from '../../domain/ports/idempotency-store.js';
import { IdempotencyKeyInFlightError } from '../../domain/errors.js';
import { type Session } from './state.js';

function recordKey(userId: string, key: string): string {
  return JSON.stringify([userId, key]);
}

function copyResponse(r: StoredResponse): StoredResponse {
  return { status: r.status, headers: { ...r.headers }, body: r.body };
}

export class MemoryIdempotencyStore implements IdempotencyStore {
  readonly #session: Session;

  constructor(session: Session) {
    this.#session = session;
  }

  claim(claim: IdempotencyClaim): Promise<ClaimOutcome> {
    return this.#session.exec((data): ClaimOutcome => {
      const id = recordKey(claim.userId, claim.key);
      const now = claim.now.getTime();
      const record = data.idempotency.get(id);
      const free =
        record === undefined ||
        (record.state === 'completed' && record.expiresAt <= now) ||
        (record.state === 'held' && record.leaseUntil <= now && record.fingerprint === claim.fingerprint);
      if (free) {
        // A takeover (same fingerprint, lease run out) inherits what the abandoned request saved.
        const progress = record?.state === 'held' ? record.progress : null;
        data.idempotency.set(id, {
          fingerprint: claim.fingerprint,
          state: 'held',
          claimedAt: now,
          leaseUntil: now + claim.leaseMs,
          expiresAt: claim.expiresAt.getTime(),
          response: null,
          progress,
        });
        return { outcome: 'claimed', progress };
      }
      if (record.fingerprint !== claim.fingerprint) return { outcome: 'mismatch' };
      if (record.state === 'completed' && record.response !== null) {
        return { outcome: 'completed', response: copyResponse(record.response) };
      }
      return { outcome: 'in_flight', retryAfterMs: record.leaseUntil - now };
    });
  }

  complete(userId: string, key: string, claimedAt: Date, response: StoredResponse): Promise<void> {
    return this.#session.exec((data) => {
      const record = data.idempotency.get(recordKey(userId, key));
      if (record?.state !== 'held' || record.claimedAt !== claimedAt.getTime()) {
        throw new IdempotencyKeyInFlightError();
      }
      record.state = 'completed';
      record.response = copyResponse(response);
    });
  }

  saveProgress(userId: string, key: string, claimedAt: Date, progress: string): Promise<void> {
    return this.#session.exec((data) => {
      const record = data.idempotency.get(recordKey(userId, key));
      if (record?.state !== 'held' || record.claimedAt !== claimedAt.getTime()) {
        throw new IdempotencyKeyInFlightError();
      }
      record.progress = progress;
    });
  }

  release(userId: string, key: string, claimedAt: Date): Promise<void> {
    return this.#session.exec((data) => {
      const id = recordKey(userId, key);
      const record = data.idempotency.get(id);
      if (record?.state !== 'held' || record.claimedAt !== claimedAt.getTime()) return;
      if (record.progress === null) data.idempotency.delete(id);
      else record.leaseUntil = record.claimedAt;
    });
  }

  purgeExpired(now: Date, limit: number): Promise<number> {
    return this.#session.exec((data) => {
      checkedBatchLimit(limit);
      let deleted = 0;
      for (const [id, record] of data.idempotency) {
        if (deleted === limit) break;
        if (record.expiresAt <= now.getTime()) {
          data.idempotency.delete(id);
          deleted += 1;
        }
      }
      return deleted;
    });
  }

  read(userId: string, key: string): Promise<StoredResponse | null> {
    return this.#session.exec((data) => {
      const record = data.idempotency.get(recordKey(userId, key));
      return record?.state === 'completed' && record.response !== null ? copyResponse(record.response) : null;
    });
  }
}
