import {
  activityTypeFor,
  applyStatusChange,
  checkedPostContent,
  countWords,
  scheduleAfter,
  NotFoundError,
  type Actor,
  type Clock,
  type IdGenerator,
  type Post,
  type PostChanges,
  type Store,
  type TransactionalRepositories,
} from '../domain/index.js';
import { existingPost, postIfMatches, requireExpectedVersion, writeIfMatches, type ExpectedVersion } from './conditional-write.js';
import type { History } from './history.js';
import type { Idempotency, Idempotent, IdempotentRunner } from './idempotent-runner.js';
import { createWithFreeSlug, updateSuggestingSlug } from './slug-allocator.js';

export interface NewPostInput {
  title: string;
  slug?: string;
  excerpt: string;
  body: string;
  tags: string[];
  status: 'draft' | 'published';
  /** Schedules the new draft to publish itself then (see `scheduleAfter`). */
  publishAt?: Date;
}

/** What a client may edit: the changes a write may make, less the fields the use case derives. */
export type PostEdit = Omit<PostChanges, 'wordCount' | 'publishedAt'>;

export interface PostWritesDeps {
  store: Store;
  clock: Clock;
  ids: IdGenerator;
  history: History;
  idempotent: IdempotentRunner;
}

/**
 * The writes on one post: create (idempotent with a key), and update, delete and restore, each
 * conditioned on the version the client read (If-Match). Each write is one transaction with its
 * revision and activity event.
 */
export class PostWrites {
  readonly #store: Store;
  readonly #clock: Clock;
  readonly #ids: IdGenerator;
  readonly #history: History;
  readonly #idempotent: IdempotentRunner;

  constructor(deps: PostWritesDeps) {
    this.#store = deps.store;
    this.#clock = deps.clock;
    this.#ids = deps.ids;
    this.#history = deps.history;
    this.#idempotent = deps.idempotent;
  }

  async create(input: NewPostInput, actor: Actor, idempotency?: Idempotency<Post>): Promise<Idempotent<Post>> {
    const tags = checkedPostContent(input) ?? [];
    const write = async (repos: TransactionalRepositories): Promise<Post> => {
      const now = this.#clock.now();
      const publishAt = scheduleAfter(input.status, null, input.publishAt, now);
      const draft = {
        id: this.#ids.next(),
        title: input.title,
        excerpt: input.excerpt,
        body: input.body,
        tags,
        status: input.status,
        wordCount: countWords(input.body),
        createdAt: now,
        publishedAt: input.status === 'published' ? now : null,
        publishAt,
      };
      return createWithFreeSlug(repos, input.slug, input.title, (slug) =>
        repos.posts.createRecorded({ ...draft, slug }, this.#history.creation(actor, now)),
      );
    };
    // `createRecorded` stores the post with its revision and event atomically by itself (a rule of
    // the port): without a key to store the answer with, a create needs no transaction around it.
    if (idempotency === undefined) return { replayed: false, result: await write(this.#store) };
    return this.#idempotent.inOneTransaction(actor, idempotency, write);
  }

  async update(id: string, expected: ExpectedVersion, edit: PostEdit, actor: Actor): Promise<Post> {
    const tags = checkedPostContent(edit);
    return writeIfMatches(this.#store, id, expected, async (repos) => {
      const before = await postIfMatches(repos, id, expected);
      const now = this.#clock.now();
      const changes: PostChanges = {};
      if (edit.title !== undefined) changes.title = edit.title;
      if (edit.slug !== undefined) changes.slug = edit.slug;
      if (edit.excerpt !== undefined) changes.excerpt = edit.excerpt;
      if (edit.body !== undefined) {
        changes.body = edit.body;
        changes.wordCount = countWords(edit.body);
      }
      if (tags !== undefined) changes.tags = tags;
      if (edit.status !== undefined) Object.assign(changes, applyStatusChange(before, edit.status, now));
      const publishAt = scheduleAfter(changes.status ?? before.status, before.publishAt, edit.publishAt, now);
      if (publishAt?.getTime() === before.publishAt?.getTime()) delete changes.publishAt;
      else changes.publishAt = publishAt;
      const after = await updateSuggestingSlug(repos, id, before.version, changes, now);
      await this.#history.record(repos, after, activityTypeFor(before, after), actor);
      return after;
    });
  }

  async delete(id: string, expected: ExpectedVersion, actor: Actor): Promise<void> {
    await writeIfMatches(this.#store, id, expected, async (repos) => {
      const before = await postIfMatches(repos, id, expected);
      const deleted = await repos.posts.delete(id, before.version);
      await repos.revisions.deleteForPost(id);
      await this.#history.event(repos, deleted, 'deleted', actor);
    });
  }

  async restore(id: string, version: number, expected: ExpectedVersion, actor: Actor): Promise<Post> {
    return writeIfMatches(this.#store, id, expected, async (repos) => {
      // An unknown post or revision is a 404 whatever If-Match says (RFC 9110 §13.2.1).
      const before = await existingPost(repos, id);
      const revision = await repos.revisions.get(id, version);
      if (!revision) throw new NotFoundError('revision', `${id}/${version}`);
      requireExpectedVersion(before, expected);
      const after = await repos.posts.update(
        id,
        before.version,
        {
          title: revision.title,
          excerpt: revision.excerpt,
          body: revision.body,
          tags: [...revision.tags],
          wordCount: countWords(revision.body),
        },
        this.#clock.now(),
      );
      await this.#history.record(repos, after, 'restored', actor);
      return after;
    });
  }
}
