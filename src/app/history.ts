import {
  revisionOf,
  type ActivityType,
  type Actor,
  type Clock,
  type CreationRecord,
  type IdGenerator,
  type Post,
  type TransactionalRepositories,
} from '../domain/index.js';

/** What every change to a post leaves behind, written in the change's transaction. */
export class History {
  readonly #ids: IdGenerator;
  readonly #clock: Clock;

  constructor(ids: IdGenerator, clock: Clock) {
    this.#ids = ids;
    this.#clock = clock;
  }

  /** The revision and the activity event of a change, written at once (one round trip on PostgreSQL). */
  async record(repos: TransactionalRepositories, post: Post, type: ActivityType, actor: Actor): Promise<void> {
    await Promise.all([repos.revisions.append(revisionOf(post, actor)), this.event(repos, post, type, actor)]);
  }

  /** What `PostRepository.createRecorded` stores with a new post: its revision and `created` event by `actor`, at `at` (now). */
  creation(actor: Actor, at: Date = this.#clock.now()): CreationRecord {
    return { actor, eventId: this.#ids.next(), occurredAt: at };
  }

  /** The activity event alone (a deletion has no revision to keep). */
  async event(repos: TransactionalRepositories, post: Post, type: ActivityType, actor: Actor): Promise<void> {
    await repos.activity.append({
      id: this.#ids.next(),
      type,
      postId: post.id,
      postTitle: post.title,
      postVersion: post.version,
      actor,
      occurredAt: this.#clock.now(),
    });
  }
}
