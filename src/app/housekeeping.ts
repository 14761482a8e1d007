import { runEvery } from './periodic.js';
import type { Clock } from '../domain/clock.js';
import { mediaFileOfBlobKey, type BlobListing, type BlobStore, type MediaRepository } from '../domain/ports/media-repository.js';
import type { PreviewLinkRepository } from '../domain/ports/preview-link-repository.js';
import type { TransactionalRepositories, UnitOfWork } from '../domain/ports/unit-of-work.js';
import type { WebhookRepository } from '../domain/ports/webhook-repository.js';

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
  /** Where media files' bytes no media names are looked for (none: not looked for). */
  orphanBlobs?: OrphanBlobSweep;
  /** Webhook deliveries and preview links, forgotten a while after they are done with (none: kept). */
  history?: HistorySweep;
}

/** What the sweep of finished webhook deliveries and dead preview links reads. */
export interface HistorySweep {
  webhooks: Pick<WebhookRepository, 'purge'>;
  previewLinks: Pick<PreviewLinkRepository, 'purge'>;
  /** Deliveries that succeeded or failed, and links that expired or were revoked, longer ago than this are deleted. */
  keepSeconds: number;
}

/** 30 days: a delivery log long enough to look into a failure after a holiday. */
export const FINISHED_HISTORY_KEEP_SECONDS = 30 * 24 * 60 * 60;

/** What the sweep of orphan media files reads. */
export interface OrphanBlobSweep {
  media: Pick<MediaRepository, 'get'>;
  blobs: Pick<BlobStore, 'list' | 'delete'>;
  /**
   * Bytes put less than this long ago are kept: an upload writes its files before its record
   * (`ORPHAN_BLOB_GRACE_SECONDS`).
   */
  graceSeconds: number;
}

/** An hour: far longer than an upload takes between writing its first file and its record. */
export const ORPHAN_BLOB_GRACE_SECONDS = 3600;

/** The keys of media files (`mediaBlobKey`). */
const MEDIA_KEYS = 'media/';

/** What one run removed, per kind of row. */
export interface PurgeReport {
  idempotencyKeys: number;
  loginAttempts: number;
  refreshTokens: number;
  refreshReplays: number;
  /** Rate-limit windows that ended (the Content API's, kept per client address). */
  rateLimitWindows: number;
  /** Media files' bytes that no media names (a delete or an upload cut short left them). */
  orphanBlobs: number;
  /** Webhook deliveries settled longer ago than the history keeps them. */
  webhookDeliveries: number;
  /** Preview links expired or revoked longer ago than the history keeps them. */
  previewLinks: number;
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
 *
 * Then, when this process held the job, it sweeps media files' bytes that no media names and that
 * were put longer ago than the grace period (`orphanBlobs`): pages of `batchSize` keys in key order,
 * at most `maxRounds` pages per run, the next run going on after the last key this one read (and
 * from the first again once past the last). Last, webhook deliveries settled and preview links
 * expired or revoked longer ago than `history.keepSeconds` (30 days) are deleted.
 */
export class Housekeeping {
  /** The last key the sweep of orphan blobs read; null: start from the first. */
  #sweptUpTo: string | null = null;

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
      orphanBlobs: 0,
      webhookDeliveries: 0,
      previewLinks: 0,
      ran: false,
    };
    const maxRounds = this.options.maxRounds ?? 100;
    for (let round = 0; round < maxRounds; round += 1) {
      const outcome = await this.options.unitOfWork.runExclusive(HOUSEKEEPING_JOB, (repos) => this.#round(repos));
      if (!outcome.ran) break;
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
    const sweep = this.options.orphanBlobs;
    if (report.ran && sweep !== undefined) report.orphanBlobs = await this.#sweepOrphanBlobs(sweep, maxRounds);
    const history = this.options.history;
    if (report.ran && history !== undefined) await this.#sweepHistory(history, maxRounds, report);
    return report;
  }

  /** Deletes finished deliveries (in batches, at most `maxRounds`) and dead preview links older than the history keeps. */
  async #sweepHistory(history: HistorySweep, maxRounds: number, report: PurgeReport): Promise<void> {
    const before = new Date(this.options.clock.now().getTime() - history.keepSeconds * 1000);
    for (let round = 0; round < maxRounds; round += 1) {
      const deleted = await history.webhooks.purge(before, this.options.batchSize);
      report.webhookDeliveries += deleted;
      if (deleted < this.options.batchSize) break;
    }
    report.previewLinks = await history.previewLinks.purge(before);
  }

  async #sweepOrphanBlobs(sweep: OrphanBlobSweep, maxPages: number): Promise<number> {
    const { batchSize, clock } = this.options;
    const putBefore = clock.now().getTime() - sweep.graceSeconds * 1000;
    let removed = 0;
    for (let page = 0; page < maxPages; page += 1) {
      const listed = await sweep.blobs.list(MEDIA_KEYS, { limit: batchSize, after: this.#sweptUpTo });
      const old = listed.filter((entry) => entry.createdAt.getTime() < putBefore);
      const orphans = await orphansAmong(sweep.media, old);
      if (orphans.length > 0) removed += await sweep.blobs.delete(orphans);
      // A short page was the last: the next run starts from the first key again.
      this.#sweptUpTo = listed.length < batchSize ? null : listed[listed.length - 1]!.key;
      if (this.#sweptUpTo === null) break;
    }
    return removed;
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

/** The keys of `listed` that name no file of a stored media (each media read once). */
async function orphansAmong(media: Pick<MediaRepository, 'get'>, listed: readonly BlobListing[]): Promise<string[]> {
  const files = new Map<string, Set<string> | null>();
  const orphans: string[] = [];
  for (const { key } of listed) {
    const named = mediaFileOfBlobKey(key);
    if (named !== null && !files.has(named.mediaId)) {
      const found = await media.get(named.mediaId);
      files.set(named.mediaId, found === null ? null : new Set(found.files.map((file) => file.name)));
    }
    if (named === null || files.get(named.mediaId)?.has(named.name) !== true) orphans.push(key);
  }
  return orphans;
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
