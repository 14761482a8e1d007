import {
  activityOfChanges,
  autosavable,
  changesFor,
  checkedPostContent,
  countWords,
  scheduleAfter,
  seoAfter,
  NO_SEO,
  NotFoundError,
  ValidationError,
  type Actor,
  type Clock,
  type CoverImage,
  type CoverImageInput,
  type IdGenerator,
  type Post,
  type PostEdit,
  type PostSeo,
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
  /** A media of the library; its alt text defaults to the media's own. Absent or null: no cover. */
  coverImage?: CoverImageInput | null;
  /** Absent fields, empty strings and nulls are none. */
  seo?: Partial<PostSeo>;
}

/** An edit as a client asks for it: a cover names its media, and may leave its alt text to the media's. */
export type PostEditInput = Omit<PostEdit, 'coverImage'> & { coverImage?: CoverImageInput | null };

export interface PostWritesDeps {
  store: Store;
  clock: Clock;
  ids: IdGenerator;
  history: History;
  idempotent: IdempotentRunner;
}

/**
 * The writes on one post: create (idempotent with a key), and update, delete and restore, each
 * conditioned on the version the client read (If-Match). Each write stores its revision and
 * activity event with it, atomically (the recorded writes of `PostRepository`).
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
    const coverImage = input.coverImage == null ? null : await this.#cover(input.coverImage);
    const seo = seoAfter(NO_SEO, input.seo ?? {});
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
        coverImage,
        seo,
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

  /**
   * With `autosave`, the edit is recorded as an autosave when `autosavable` (a draft's), so that a
   * burst of them keeps one revision (the rule of `PostRepository.updateRecorded`).
   */
  async update(
    id: string,
    expected: ExpectedVersion,
    input: PostEditInput,
    actor: Actor,
    options: { autosave?: boolean } = {},
  ): Promise<Post> {
    const tags = checkedPostContent(input);
    const { coverImage: coverInput, ...rest } = input;
    const edit: PostEdit = tags === undefined ? rest : { ...rest, tags };
    const checked: PostEdit =
      coverInput === undefined ? edit : { ...edit, coverImage: coverInput === null ? null : await this.#cover(coverInput) };
    return writeIfMatches(this.#store, id, expected, async (repos) => {
      const before = await postIfMatches(repos, id, expected);
      const now = this.#clock.now();
      const changes = changesFor(before, checked, now);
      const record = this.#history.update(actor, activityOfChanges(before, changes), now);
      const autosave = options.autosave === true && autosavable(before, changes);
      return updateSuggestingSlug(repos, before, changes, autosave ? { ...record, autosave } : record);
    });
  }

  /**
   * Takes media `mediaId` off post `id` as its cover (a forced delete of that media): an edit by
   * `actor`, with its revision and event, like any other. A post whose cover is another media (it
   * changed meanwhile) is left as it is; a post deleted meanwhile is no error.
   */
  async dropCover(id: string, mediaId: string, actor: Actor): Promise<void> {
    try {
      await writeIfMatches(this.#store, id, '*', async (repos) => {
        const before = await existingPost(repos, id);
        if (before.coverImage?.mediaId !== mediaId) return;
        const now = this.#clock.now();
        const changes = changesFor(before, { coverImage: null }, now);
        await updateSuggestingSlug(repos, before, changes, this.#history.update(actor, activityOfChanges(before, changes), now));
      });
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
    }
  }

  async delete(id: string, expected: ExpectedVersion, actor: Actor): Promise<void> {
    await writeIfMatches(this.#store, id, expected, async (repos) => {
      const before = await postIfMatches(repos, id, expected);
      await repos.posts.deleteRecorded(id, before.version, this.#history.change(actor));
    });
  }

  async restore(id: string, version: number, expected: ExpectedVersion, actor: Actor): Promise<Post> {
    return writeIfMatches(this.#store, id, expected, async (repos) => {
      // An unknown post or revision is a 404 whatever If-Match says (RFC 9110 §13.2.1).
      const before = await existingPost(repos, id);
      const revision = await repos.revisions.get(id, version);
      if (!revision) throw new NotFoundError('revision', `${id}/${version}`);
      requireExpectedVersion(before, expected);
      const now = this.#clock.now();
      const { title, excerpt, body, tags, coverImage, seo } = revision;
      const changes = changesFor(before, { title, excerpt, body, tags, coverImage, seo }, now);
      return repos.posts.updateRecorded(before, changes, this.#history.update(actor, 'restored', now));
    });
  }

  /**
   * The cover a write names, its alt text defaulting to the media's. The media is looked up before
   * the write, outside its transaction (the library auto-commits): one deleted meanwhile leaves a
   * cover naming no media, as a forced delete does.
   * @throws ValidationError at `/coverImage/mediaId` when no media has that id
   */
  async #cover(input: CoverImageInput): Promise<CoverImage> {
    const media = await this.#store.media.get(input.mediaId);
    if (media === null) throw new ValidationError([{ pointer: '/coverImage/mediaId', message: 'names no media' }]);
    return { mediaId: input.mediaId, alt: input.alt ?? media.alt };
  }
}
