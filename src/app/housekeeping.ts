import { runEvery } from './periodic.js';
import type { Clock } from '../domain/clock.js';
import type { TransactionalRepositories, UnitOfWork } from '../domain/ports/unit-of-work.js';

export interface HousekeepingOptions {
  unitOfWork: UnitOfWork;
  clock: Clock;
  /** Rows deleted (or replays cleared) per table in one transaction. */
  batchSize: number;
  /** Failed logins older than this no longer count for the throttle. */
  loginWindowSeconds: number;
  /** Past this window after its use, nobody may read a refresh token's sealed replay. */
  refreshGraceSeconds: number;
  /** Most transactions one run takes, so that a huge backlog is worked off over several runs. */
  maxRounds?: number;
}

/** What one run removed, per kind of row. */
export interface PurgeReport {
  idempotencyKeys: number;
  loginAttempts: number;
  refreshTokens: number;
  refreshReplays: number;
  /** Rate-limit windows that ended (the Content API's, kept per client address). */
  rateLimitWindows: number;
  /** False when another process held the job: this run did nothing. */
  ran: boolean;
}

export const HOUSEKEEPING_JOB = 'housekeeping';

/**
 * Forgets what is kept only for a while: idempotency answers past their 24 hours, failed logins
 * older than the throttle window, refresh tokens that expired or were revoked, and the sealed
 * replays of tokens used longer ago than the grace window, and rate-limit windows that ended. Each round is one transaction holding
 * the job's lock (`runExclusive`), so of N processes sharing a database one works at a time, and
 * deletes at most `batchSize` rows per table; rounds repeat while a table still had a full batch.
 */
export class Housekeeping {
  constructor(private readonly options: HousekeepingOptions) {
    if (!Number.isInteger(options.batchSize) || options.batchSize < 1) {
      throw new RangeError(`batchSize must be a positive integer, got ${options.batchSize}`);
    }
  }

  async runOnce(): Promise<PurgeReport> {
    const report: PurgeReport = {
      idempotencyKeys: 0,
      loginAttempts: 0,
      refreshTokens: 0,
      refreshReplays: 0,
      rateLimitWindows: 0,
      ran: false,
    };
    const maxRounds = this.options.maxRounds ?? 100;
    for (let round = 0; round < maxRounds; round += 1) {
      const outcome = await this.options.unitOfWork.runExclusive(HOUSEKEEPING_JOB, (repos) => this.#round(repos));
      if (!outcome.ran) return report;
      report.ran = true;
      const counts = outcome.value;
      report.idempotencyKeys += counts.idempotencyKeys;
      report.loginAttempts += counts.loginAttempts;
      report.refreshTokens += counts.refreshTokens;
      report.refreshReplays += counts.refreshReplays;
      report.rateLimitWindows += counts.rateLimitWindows;
      const full = Object.values(counts).some((n) => n === this.options.batchSize);
      if (!full) break;
    }
    return report;
  }

  async #round(repos: TransactionalRepositories) {
    const now = this.options.clock.now();
    const { batchSize, loginWindowSeconds, refreshGraceSeconds } = this.options;
    const ago = (seconds: number) => new Date(now.getTime() - seconds * 1000);
    return {
      idempotencyKeys: await repos.idempotency.purgeExpired(now, batchSize),
      loginAttempts: await repos.loginAttempts.purgeBefore(ago(loginWindowSeconds), batchSize),
      refreshTokens: await repos.refreshTokens.purgeExpired(now, batchSize),
      refreshReplays: await repos.refreshTokens.forgetReplays(ago(refreshGraceSeconds), batchSize),
      rateLimitWindows: await repos.rateLimits.purgeEnded(now, batchSize),
    };
  }
}

/**
 * Runs `housekeeping` every `intervalMs` (first after one interval), logging what each run
 * removed; a failed run is logged and the next one comes on time. The timer does not keep the
 * process alive. Returns a stop function that waits for a run in progress.
 */
export function scheduleHousekeeping(
  housekeeping: Pick<Housekeeping, 'runOnce'>,
  intervalMs: number,
  log: { info(message: string, fields?: Record<string, unknown>): void; warn(message: string, fields?: Record<string, unknown>): void },
  onReport: (report: PurgeReport) => void = () => undefined,
): () => Promise<void> {
  return runEvery(
    'housekeeping',
    intervalMs,
    async () => {
      const report = await housekeeping.runOnce();
      if (report.ran) log.info('housekeeping', { ...report });
      onReport(report);
    },
    log,
  );
}
