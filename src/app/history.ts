import {
  revisionOf,
  type ActivityType,
  type Actor,
  type ChangeRecord,
  type Clock,
  type CreationRecord,
  type IdGenerator,
  type Post,
  type TransactionalRepositories,
  type UpdateActivityType,
  type UpdateRecord,
} from '../domain/index.js';

/**
 * What every change to a post leaves behind: the records the recorded writes of `PostRepository`
 * store with the change (`createRecorded`, `updateRecorded`, `deleteRecorded`), and the revision
 * and event of a write that records its history itself (scheduled publishing).
 */
export class History {
  readonly #ids: IdGenerator;
  readonly #clock: Clock;

  constructor(ids: IdGenerator, clock: Clock) {
    this.#ids = ids;
    this.#clock = clock;
  }

  /** The revision and the activity event of a change, written at once in its transaction (one round trip on PostgreSQL). */
  async record(repos: TransactionalRepositories, post: Post, type: ActivityType, actor: Actor): Promise<void> {
    await Promise.all([repos.revisions.append(revisionOf(post, actor)), this.#event(repos, post, type, actor)]);
  }

  /** What `PostRepository.createRecorded` stores with a new post: its revision and `created` event by `actor`, at `at` (now). */
  creation(actor: Actor, at: Date = this.#clock.now()): CreationRecord {
    return this.change(actor, at);
  }

  /** What `PostRepository.updateRecorded` stores with an update: its revision and an event of `type` by `actor`, at `at` (now). */
  update(actor: Actor, type: UpdateActivityType, at: Date = this.#clock.now()): UpdateRecord {
    return { ...this.change(actor, at), type };
  }

  /** A change by `actor` at `at` (now): what `PostRepository.deleteRecorded` stores with a deletion. */
  change(actor: Actor, at: Date = this.#clock.now()): ChangeRecord {
    return { actor, eventId: this.#ids.next(), occurredAt: at };
  }

  async #event(repos: TransactionalRepositories, post: Post, type: ActivityType, actor: Actor): Promise<void> {
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
