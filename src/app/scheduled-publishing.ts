import { SYSTEM_ACTOR, type Clock, type Post, type UnitOfWork } from '../domain/index.js';
import { runEvery } from './periodic.js';
import type { History } from './history.js';

const PUBLISH_SCHEDULED_JOB = 'publish-scheduled';

export interface ScheduledPublishingOptions {
  unitOfWork: UnitOfWork;
  clock: Clock;
  history: History;
  /** Posts published in one transaction. */
  batchSize: number;
  /** Most transactions one run takes. */
  maxRounds?: number;
}

/** What one run did. */
export interface PublishReport {
  published: Post[];
  /** False when another process held the job: this run did nothing. */
  ran: boolean;
}

/**
 * Publishes the drafts whose `publishAt` has come, as the system actor: each with its revision
 * and a `published` activity event, in the transaction that publishes it. Each round holds the
 * job's lock (`runExclusive`), so of N processes sharing a database one works at a time; and
 * `publishDue` itself publishes each due post once, whoever calls it.
 */
export class ScheduledPublishing {
  constructor(private readonly options: ScheduledPublishingOptions) {
    if (!Number.isInteger(options.batchSize) || options.batchSize < 1) {
      throw new RangeError(`batchSize must be a positive integer, got ${options.batchSize}`);
    }
  }

  async runOnce(): Promise<PublishReport> {
    const report: PublishReport = { published: [], ran: false };
    const { unitOfWork, clock, history, batchSize } = this.options;
    const maxRounds = this.options.maxRounds ?? 100;
    for (let round = 0; round < maxRounds; round += 1) {
      const outcome = await unitOfWork.runExclusive(PUBLISH_SCHEDULED_JOB, async (repos) => {
        const published = await repos.posts.publishDue(clock.now(), batchSize);
        for (const post of published) await history.record(repos, post, 'published', SYSTEM_ACTOR);
        return published;
      });
      if (!outcome.ran) return report;
      report.ran = true;
      report.published.push(...outcome.value);
      if (outcome.value.length < batchSize) break;
    }
    return report;
  }
}

/**
 * Runs `publishing` every `intervalMs`, logging each post it published (id, slug, version) and
 * telling `onReport` of every run (metrics). Returns a stop function that waits for a run in
 * progress.
 */
export function schedulePublishing(
  publishing: Pick<ScheduledPublishing, 'runOnce'>,
  intervalMs: number,
  log: { info(message: string, fields?: Record<string, unknown>): void; warn(message: string, fields?: Record<string, unknown>): void },
  onReport: (report: PublishReport) => void = () => undefined,
): () => Promise<void> {
  return runEvery(
    'scheduled publishing',
    intervalMs,
    async () => {
      const report = await publishing.runOnce();
      for (const post of report.published)
        log.info('published a scheduled post', { postId: post.id, slug: post.slug, version: post.version });
      onReport(report);
    },
    log,
  );
}
