import {
  activityOfChanges,
  changesFor,
  checkedTag,
  InvalidTransitionError,
  normalizeTags,
  NotFoundError,
  transitionFor,
  ValidationError,
  VersionConflictError,
  type Actor,
  type BulkAction,
  type Clock,
  type PostEdit,
  type Store,
  type TransactionalRepositories,
} from '../domain/index.js';
import type { History } from './history.js';
import type { Idempotency, Idempotent, IdempotentRunner, StepProgress } from './idempotent-runner.js';

export interface BulkOutcome {
  succeeded: { id: string; version: number }[];
  failed: BulkFailure[];
}

interface BulkFailure {
  id: string;
  reason: 'not_found' | 'invalid_transition' | 'version_conflict';
  detail: string;
}

/** What a bulk request has done so far: its first `items` ids, with their outcomes. */
interface Done extends BulkOutcome {
  items: number;
}

const NOTHING_DONE: Done = Object.freeze({ items: 0, succeeded: [], failed: [] });

/** Progress this use case saved itself; anything else is a bug, not a client's mistake. */
function parseDone(text: string): Done {
  const saved = JSON.parse(text) as Partial<Done>;
  if (!Number.isInteger(saved.items) || !Array.isArray(saved.succeeded) || !Array.isArray(saved.failed)) {
    throw new Error(`unreadable bulk progress in an idempotency record: ${text.slice(0, 100)}`);
  }
  return saved as Done;
}

/** A bulk item's failure as the answer reports it, or null for an error that is not the item's. */
function failureOf(id: string, error: unknown): BulkFailure | null {
  if (error instanceof NotFoundError) return { id, reason: 'not_found', detail: 'No post has this id.' };
  if (error instanceof InvalidTransitionError) return { id, reason: 'invalid_transition', detail: error.message };
  if (error instanceof VersionConflictError)
    return { id, reason: 'version_conflict', detail: 'The post changed while the bulk request ran; retry it.' };
  if (error instanceof ValidationError) return { id, reason: 'invalid_transition', detail: error.message };
  return null;
}

export interface BulkPostsDeps {
  store: Store;
  clock: Clock;
  history: History;
  idempotent: IdempotentRunner;
}

/**
 * One action on many posts: each post in a transaction of its own (one failing post never undoes
 * the others), its outcome reported per id. With an Idempotency-Key, each item's outcome is saved
 * with the item, so a retry after a crash goes on after the last item done and answers what
 * really happened.
 */
export class BulkPosts {
  readonly #store: Store;
  readonly #clock: Clock;
  readonly #history: History;
  readonly #idempotent: IdempotentRunner;

  constructor(deps: BulkPostsDeps) {
    this.#store = deps.store;
    this.#clock = deps.clock;
    this.#history = deps.history;
    this.#idempotent = deps.idempotent;
  }

  async run(
    ids: string[],
    action: BulkAction,
    tag: string | undefined,
    actor: Actor,
    idempotency?: Idempotency<BulkOutcome>,
  ): Promise<Idempotent<BulkOutcome>> {
    const normalizedTag = tag === undefined ? undefined : checkedTag(tag, 'input');
    return this.#idempotent.inSteps(actor, idempotency, (progress) => this.#items(ids, action, normalizedTag, actor, progress));
  }

  async #items(
    ids: string[],
    action: BulkAction,
    tag: string | undefined,
    actor: Actor,
    progress: StepProgress | undefined,
  ): Promise<BulkOutcome> {
    let done: Done = progress?.saved == null ? NOTHING_DONE : parseDone(progress.saved);
    for (let index = done.items; index < ids.length; index += 1) {
      const id = ids[index]!;
      const succeeded = (version: number): Done => ({ ...done, items: index + 1, succeeded: [...done.succeeded, { id, version }] });
      try {
        // Each item is one recorded write, atomic by itself; with a key, its progress is saved in
        // the item's transaction, so that the item and the record of it commit together.
        done =
          progress === undefined
            ? succeeded(await this.#item(this.#store, id, action, tag, actor))
            : await this.#store.unitOfWork.run(async (repos) => {
                const next = succeeded(await this.#item(repos, id, action, tag, actor));
                await progress.save(repos.idempotency, JSON.stringify(next));
                return next;
              });
      } catch (error) {
        const failure = failureOf(id, error);
        if (failure === null) throw error;
        done = { ...done, items: index + 1, failed: [...done.failed, failure] };
        await progress?.save(this.#store.idempotency, JSON.stringify(done));
      }
    }
    return { succeeded: done.succeeded, failed: done.failed };
  }

  /** One item, one recorded write: the post's version after it. */
  async #item(repos: TransactionalRepositories, id: string, action: BulkAction, tag: string | undefined, actor: Actor): Promise<number> {
    const before = await repos.posts.get(id);
    if (!before) throw new NotFoundError('post', id);
    const now = this.#clock.now();
    if (action === 'delete') return (await repos.posts.deleteRecorded(id, before.version, this.#history.change(actor, now))).version;
    let edit: PostEdit;
    if (action === 'addTag' || action === 'removeTag') {
      const has = before.tags.includes(tag!);
      if ((action === 'addTag') === has) return before.version; // already as asked: nothing to change
      edit = { tags: action === 'addTag' ? normalizeTags([...before.tags, tag!]) : before.tags.filter((t) => t !== tag) };
    } else {
      edit = { status: transitionFor(action, before.status) };
    }
    const changes = changesFor(before, edit, now);
    const after = await repos.posts.updateRecorded(before, changes, this.#history.update(actor, activityOfChanges(before, changes), now));
    return after.version;
  }
}
