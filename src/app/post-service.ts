import { stringify as toYaml } from 'yaml';
import {
  activityTypeFor,
  applyStatusChange,
  countWords,
  IdempotencyKeyInFlightError,
  IdempotencyKeyReusedError,
  InvalidTransitionError,
  NotFoundError,
  normalizeTag,
  normalizeTags,
  revisionOf,
  SlugTakenError,
  slugify,
  transitionFor,
  ValidationError,
  VersionConflictError,
  withSuffix,
  type ActivityType,
  type Actor,
  type BulkAction,
  type Clock,
  type IdempotencyStore,
  type IdGenerator,
  type Post,
  type PostChanges,
  type PostQuery,
  type PostStatus,
  type Store,
  type StoredResponse,
  type TransactionalRepositories,
  type ValidationIssue,
} from '../domain/index.js';

/** What the caller asked for a guarded write: one of these versions (If-Match list), or `*` (any existing post). */
export type ExpectedVersion = readonly number[] | '*';

export interface NewPostInput {
  title: string;
  slug?: string;
  excerpt: string;
  body: string;
  tags: string[];
  status: 'draft' | 'published';
}

export interface PostEdit {
  title?: string;
  slug?: string;
  excerpt?: string;
  body?: string;
  tags?: string[];
  status?: PostStatus;
}

/**
 * An idempotent request: the key is claimed before any work; `render` turns the result into the
 * answer that is stored with it, in the same transaction as the write.
 */
export interface Idempotency<T> {
  key: string;
  fingerprint: string;
  render: (result: T) => StoredResponse;
}

export type Idempotent<T> = { replayed: false; result: T; response: StoredResponse } | { replayed: true; response: StoredResponse };

export interface BulkOutcome {
  succeeded: { id: string; version: number }[];
  failed: BulkFailure[];
}

export interface BulkFailure {
  id: string;
  reason: 'not_found' | 'invalid_transition' | 'version_conflict';
  detail: string;
}

/** What a bulk request with an Idempotency-Key has done: its first `items` ids, with their outcomes. */
interface SavedBulk extends BulkOutcome {
  items: number;
}

interface BulkProgress {
  done: SavedBulk;
  save(store: IdempotencyStore, done: SavedBulk): Promise<void>;
}

function emptyProgress(): SavedBulk {
  return { items: 0, succeeded: [], failed: [] };
}

/** Progress this service saved itself; anything else is a bug, not a client's mistake. */
function parseProgress(text: string): SavedBulk {
  const saved = JSON.parse(text) as Partial<SavedBulk>;
  if (!Number.isInteger(saved.items) || !Array.isArray(saved.succeeded) || !Array.isArray(saved.failed)) {
    throw new Error(`unreadable bulk progress in an idempotency record: ${text.slice(0, 100)}`);
  }
  return saved as SavedBulk;
}

/** A bulk item's failure as the answer reports it, or null for an error that is not the item's. */
function bulkFailureOf(id: string, error: unknown): BulkFailure | null {
  if (error instanceof NotFoundError) return { id, reason: 'not_found', detail: 'No post has this id.' };
  if (error instanceof InvalidTransitionError) return { id, reason: 'invalid_transition', detail: error.message };
  if (error instanceof VersionConflictError) return { id, reason: 'version_conflict', detail: 'The post changed while the bulk request ran; retry it.' };
  if (error instanceof ValidationError) return { id, reason: 'invalid_transition', detail: error.message };
  return null;
}

export interface PostServiceOptions {
  store: Store;
  clock: Clock;
  ids: IdGenerator;
  /** How long a claimed Idempotency-Key holds while its request runs. */
  idempotencyLeaseMs?: number;
  /** How long a completed Idempotency-Key answer is kept. */
  idempotencyTtlMs?: number;
}

/**
 * How often a create retries a title-derived slug that another transaction took meanwhile. Each
 * failed attempt means another post committed that slug, so the retries always progress; the bound
 * only has to exceed the number of posts created at once with the same title.
 */
const SLUG_ATTEMPTS = 50;

/** How often a write with `If-Match: *` is retried after losing a race to another write. */
const WILDCARD_ATTEMPTS = 50;

/**
 * Text no adapter can store as sent: PostgreSQL refuses U+0000, and an unpaired UTF-16 surrogate
 * (a JSON `"\ud800"`) reaches it as U+FFFD, so the stored text would differ from the text sent.
 */
const UNSTORABLE = /\u0000|\p{Cs}/u;
const UNSTORABLE_MESSAGE = 'must not contain the NUL character (U+0000) or an unpaired surrogate';
/** Control characters (Unicode Cc: U+0000–U+001F, U+007F–U+009F). */
const CONTROL = /\p{Cc}/u;

/** Issues for every text field (or list entry) holding unstorable text; pointers are relative to the input. */
function unstorableIssues(fields: Record<string, string | readonly string[] | undefined>): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const [name, value] of Object.entries(fields)) {
    if (typeof value === 'string') {
      if (UNSTORABLE.test(value)) issues.push({ pointer: `/${name}`, message: UNSTORABLE_MESSAGE });
    } else if (value !== undefined) {
      value.forEach((entry, index) => {
        if (UNSTORABLE.test(entry)) issues.push({ pointer: `/${name}/${index}`, message: UNSTORABLE_MESSAGE });
      });
    }
  }
  return issues;
}

/**
 * The text fields of a create or an edit, checked, with their tags normalised: every problem is
 * reported at once, as a `ValidationError` whose pointers are relative to the input (`/title`,
 * `/tags/3`).
 */
function checkedContent(fields: { title?: string; slug?: string; excerpt?: string; body?: string; tags?: readonly string[] }): string[] | undefined {
  const { title, slug, excerpt, body, tags: rawTags } = fields;
  const issues = unstorableIssues({ title, slug, excerpt, body, tags: rawTags });
  let tags: string[] | undefined;
  if (rawTags !== undefined) {
    try {
      tags = normalizeTags(rawTags);
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      const seen = new Set(issues.map((i) => i.pointer));
      issues.push(...error.issues.filter((i) => !seen.has(i.pointer)));
    }
  }
  if (issues.length > 0) throw new ValidationError(issues);
  return tags;
}

/** The use cases on posts, their revisions, the activity log, tags and stats. */
export class PostService {
  readonly #store: Store;
  readonly #clock: Clock;
  readonly #ids: IdGenerator;
  readonly #leaseMs: number;
  readonly #ttlMs: number;

  constructor(options: PostServiceOptions) {
    this.#store = options.store;
    this.#clock = options.clock;
    this.#ids = options.ids;
    this.#leaseMs = options.idempotencyLeaseMs ?? 30_000;
    this.#ttlMs = options.idempotencyTtlMs ?? 24 * 3600_000;
  }

  /**
   * A page of posts. `q` may not hold control characters: the Drizzle adapter searches title,
   * excerpt and body joined by line breaks, so a line break in `q` could match across them.
   * @throws ValidationError at `/q` or `/tag` (pointers relative to the query)
   */
  list(query: PostQuery) {
    const issues: ValidationIssue[] = [];
    if (query.q !== undefined && CONTROL.test(query.q)) {
      issues.push({ pointer: '/q', message: 'must not contain line breaks or other control characters' });
    }
    let tag: string | undefined;
    if (query.tag !== undefined) {
      if (UNSTORABLE.test(query.tag)) issues.push({ pointer: '/tag', message: UNSTORABLE_MESSAGE });
      else {
        try {
          tag = normalizeTag(query.tag);
        } catch (error) {
          if (!(error instanceof ValidationError)) throw error;
          issues.push(...error.issues);
        }
      }
    }
    if (issues.length > 0) throw new ValidationError(issues);
    return this.#store.posts.list({ ...query, ...(tag === undefined ? {} : { tag }) });
  }

  async get(id: string): Promise<Post> {
    const post = await this.#store.posts.get(id);
    if (!post) throw new NotFoundError('post', id);
    return post;
  }

  async create(input: NewPostInput, actor: Actor, idempotency?: Idempotency<Post>): Promise<Idempotent<Post>> {
    const tags = checkedContent(input) ?? [];
    return this.#idempotent(actor, idempotency, async (repos) => {
      const now = this.#clock.now();
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
      };
      const post = await this.#withFreeSlug(repos, input.slug, input.title, (slug) => repos.posts.create({ ...draft, slug }));
      await this.#record(repos, post, 'created', actor);
      return post;
    });
  }

  async update(id: string, expected: ExpectedVersion, edit: PostEdit, actor: Actor): Promise<Post> {
    const tags = checkedContent(edit);
    return this.#guardedWrite(expected, async (repos) => {
      const before = await this.#guard(repos, id, expected);
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
      const after = await this.#updateWithSlugSuggestion(repos, id, before.version, changes, now);
      await this.#record(repos, after, activityTypeFor(before.status, after.status, true), actor);
      return after;
    });
  }

  async delete(id: string, expected: ExpectedVersion, actor: Actor): Promise<void> {
    await this.#guardedWrite(expected, async (repos) => {
      const before = await this.#guard(repos, id, expected);
      const deleted = await repos.posts.delete(id, before.version);
      await repos.revisions.deleteForPost(id);
      await this.#event(repos, deleted, 'deleted', actor);
    });
  }

  listRevisions(id: string, page: { limit: number; cursor?: string | null }) {
    return this.#store.unitOfWork.run(async (repos) => {
      if (!(await repos.posts.get(id))) throw new NotFoundError('post', id);
      return repos.revisions.list(id, page);
    });
  }

  async getRevision(id: string, version: number) {
    const revision = await this.#store.revisions.get(id, version);
    if (!revision) throw new NotFoundError('revision', `${id}/${version}`);
    return revision;
  }

  async restore(id: string, version: number, expected: ExpectedVersion, actor: Actor): Promise<Post> {
    return this.#guardedWrite(expected, async (repos) => {
      // An unknown post or revision is a 404 whatever If-Match says (RFC 9110 §13.2.1).
      const before = await this.#existing(repos, id);
      const revision = await repos.revisions.get(id, version);
      if (!revision) throw new NotFoundError('revision', `${id}/${version}`);
      this.#match(before, expected);
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
      await this.#record(repos, after, 'restored', actor);
      return after;
    });
  }

  /** The post as a markdown file: YAML front matter written by a YAML library, then the body unchanged. */
  async export(id: string): Promise<{ post: Post; markdown: string }> {
    const post = await this.get(id);
    const frontMatter = toYaml(
      {
        title: post.title,
        description: post.excerpt,
        date: (post.publishedAt ?? post.createdAt).toISOString(),
        tags: post.tags,
        slug: post.slug,
      },
      { lineWidth: 0 },
    );
    return { post, markdown: `---\n${frontMatter}---\n${post.body}` };
  }

  async bulk(
    ids: string[],
    action: BulkAction,
    tag: string | undefined,
    actor: Actor,
    idempotency?: Idempotency<BulkOutcome>,
  ): Promise<Idempotent<BulkOutcome>> {
    if (tag !== undefined && UNSTORABLE.test(tag)) throw new ValidationError([{ pointer: '/tag', message: UNSTORABLE_MESSAGE }]);
    const normalizedTag = tag === undefined ? undefined : normalizeTag(tag);
    if (!idempotency) {
      return { replayed: false, result: await this.#bulk(ids, action, normalizedTag, actor), response: { status: 200, headers: {}, body: '' } };
    }
    const claim = await this.#claim(actor, idempotency);
    if (!('claimedAt' in claim)) return claim;
    const { claimedAt } = claim;
    // Each item's outcome is saved with the item's own transaction: a retry that takes the key
    // over after a crash goes on after the last item done, and answers what really happened.
    const progress: BulkProgress = {
      done: claim.progress === null ? emptyProgress() : parseProgress(claim.progress),
      save: (store, done) => store.saveProgress(actor.id, idempotency.key, claimedAt, JSON.stringify(done)),
    };
    try {
      const result = await this.#bulk(ids, action, normalizedTag, actor, progress);
      const response = idempotency.render(result);
      await this.#store.idempotency.complete(actor.id, idempotency.key, claimedAt, response);
      return { replayed: false, result, response };
    } catch (error) {
      await this.#store.idempotency.release(actor.id, idempotency.key, claimedAt);
      return this.#answeredByTakeover(actor, idempotency, error);
    }
  }

  listActivity(query: Parameters<Store['activity']['list']>[0]) {
    return this.#store.activity.list(query);
  }

  tags() {
    return this.#store.posts.tagCounts();
  }

  async stats() {
    const now = this.#clock.now();
    const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
    const from = new Date(today - 29 * 86_400_000);
    const [posts, wordsPublished, days] = await Promise.all([
      this.#store.posts.countByStatus(),
      this.#store.posts.wordsPublished(),
      this.#store.activity.countPerDay(from, 30),
    ]);
    return {
      posts: { ...posts, total: posts.draft + posts.published + posts.archived },
      wordsPublished,
      editsPerDay: days.map((d) => ({ date: d.date, edits: d.count })),
    };
  }

  async #bulk(ids: string[], action: BulkAction, tag: string | undefined, actor: Actor, progress?: BulkProgress): Promise<BulkOutcome> {
    let done: SavedBulk = progress?.done ?? emptyProgress();
    for (let index = done.items; index < ids.length; index += 1) {
      const id = ids[index]!;
      try {
        done = await this.#store.unitOfWork.run(async (repos) => {
          const version = await this.#bulkItem(repos, id, action, tag, actor);
          const next = { ...done, items: index + 1, succeeded: [...done.succeeded, { id, version }] };
          // Saved in the item's transaction: the item and the record of it commit together.
          await progress?.save(repos.idempotency, next);
          return next;
        });
      } catch (error) {
        const failure = bulkFailureOf(id, error);
        if (failure === null) throw error;
        done = { ...done, items: index + 1, failed: [...done.failed, failure] };
        await progress?.save(this.#store.idempotency, done);
      }
    }
    return { succeeded: done.succeeded, failed: done.failed };
  }

  /** One item of a bulk action, in the item's transaction: the post's version after it. */
  async #bulkItem(repos: TransactionalRepositories, id: string, action: BulkAction, tag: string | undefined, actor: Actor): Promise<number> {
    const before = await repos.posts.get(id);
    if (!before) throw new NotFoundError('post', id);
    const now = this.#clock.now();
    if (action === 'delete') {
      const deleted = await repos.posts.delete(id, before.version);
      await repos.revisions.deleteForPost(id);
      await this.#event(repos, deleted, 'deleted', actor);
      return deleted.version;
    }
    if (action === 'addTag' || action === 'removeTag') {
      const has = before.tags.includes(tag!);
      if ((action === 'addTag') === has) return before.version; // already as asked: nothing to change
      const tags = action === 'addTag' ? normalizeTags([...before.tags, tag!]) : before.tags.filter((t) => t !== tag);
      const after = await repos.posts.update(id, before.version, { tags }, now);
      await this.#record(repos, after, 'updated', actor);
      return after.version;
    }
    const next = transitionFor(action, before.status);
    const after = await repos.posts.update(id, before.version, applyStatusChange(before, next, now), now);
    await this.#record(repos, after, activityTypeFor(before.status, after.status, false), actor);
    return after.version;
  }

  /**
   * Claims the key, or answers from it: a replay, or the in-flight and reuse errors. A claim gives
   * its instant (its fence) and what an abandoned request it took over had saved.
   */
  async #claim<T>(actor: Actor, idempotency: Idempotency<T>): Promise<Idempotent<T> | { claimedAt: Date; progress: string | null }> {
    const now = this.#clock.now();
    const claim = await this.#store.idempotency.claim({
      userId: actor.id,
      key: idempotency.key,
      fingerprint: idempotency.fingerprint,
      now,
      leaseMs: this.#leaseMs,
      expiresAt: new Date(now.getTime() + this.#ttlMs),
    });
    switch (claim.outcome) {
      case 'claimed':
        return { claimedAt: now, progress: claim.progress };
      case 'completed':
        return { replayed: true, response: claim.response };
      case 'in_flight':
        throw new IdempotencyKeyInFlightError(Math.max(1, Math.ceil(claim.retryAfterMs / 1000)));
      case 'mismatch':
        throw new IdempotencyKeyReusedError();
    }
  }

  async #idempotent<T>(
    actor: Actor,
    idempotency: Idempotency<T> | undefined,
    work: (repos: TransactionalRepositories) => Promise<T>,
  ): Promise<Idempotent<T>> {
    if (!idempotency) {
      const result = await this.#store.unitOfWork.run(work);
      return { replayed: false, result, response: { status: 0, headers: {}, body: '' } };
    }
    const claim = await this.#claim(actor, idempotency);
    if (!('claimedAt' in claim)) return claim;
    const { claimedAt } = claim;
    try {
      return await this.#store.unitOfWork.run(async (repos) => {
        const result = await work(repos);
        const response = idempotency.render(result);
        // Fenced: if this claim's lease ran out and a retry took the key over, this throws and the
        // whole write rolls back, so the retry's answer is the only one.
        await repos.idempotency.complete(actor.id, idempotency.key, claimedAt, response);
        return { replayed: false as const, result, response };
      });
    } catch (error) {
      await this.#store.idempotency.release(actor.id, idempotency.key, claimedAt);
      return this.#answeredByTakeover(actor, idempotency, error);
    }
  }

  /**
   * After `complete` refused this request's claim (its lease ran out and a retry of the same
   * request took the key over), the retry's stored answer is this request's answer too; while the
   * retry still runs, 409 stands. Any other error is rethrown.
   */
  async #answeredByTakeover<T>(actor: Actor, idempotency: Idempotency<T>, error: unknown): Promise<Idempotent<T>> {
    if (!(error instanceof IdempotencyKeyInFlightError)) throw error;
    const stored = await this.#store.idempotency.read(actor.id, idempotency.key);
    if (stored === null) throw error;
    return { replayed: true, response: stored };
  }

  /**
   * Runs a write guarded by `expected` in one transaction. With `*` the client asked for no
   * particular version, so a write that lost a race to another (`VersionConflictError` from the
   * store) is retried on the post as it is now rather than answered 412: `*` matches any existing
   * post. Each conflict means another write committed, so the retries always progress.
   */
  async #guardedWrite<T>(expected: ExpectedVersion, work: (repos: TransactionalRepositories) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.#store.unitOfWork.run(work);
      } catch (error) {
        if (expected !== '*' || !(error instanceof VersionConflictError) || attempt >= WILDCARD_ATTEMPTS) throw error;
      }
    }
  }

  /** The post, if `expected` matches it: a missing post is 404 before any precondition. */
  async #guard(repos: TransactionalRepositories, id: string, expected: ExpectedVersion): Promise<Post> {
    const post = await this.#existing(repos, id);
    this.#match(post, expected);
    return post;
  }

  async #existing(repos: TransactionalRepositories, id: string): Promise<Post> {
    const post = await repos.posts.get(id);
    if (!post) throw new NotFoundError('post', id);
    return post;
  }

  /** `*` matches any existing post; otherwise one of the listed versions must be the current one. */
  #match(post: Post, expected: ExpectedVersion): void {
    if (expected !== '*' && !expected.includes(post.version)) throw new VersionConflictError(expected[0] ?? 0, post.version);
  }

  /** Creates with the given slug (taken: 409 with a free suggestion) or one derived from the title (taken: next free -2, -3…). */
  async #withFreeSlug(
    repos: TransactionalRepositories,
    explicit: string | undefined,
    title: string,
    create: (slug: string) => Promise<Post>,
  ): Promise<Post> {
    if (explicit !== undefined) {
      try {
        return await create(explicit);
      } catch (error) {
        if (error instanceof SlugTakenError) throw new SlugTakenError(explicit, await this.#freeSlug(repos, explicit));
        throw error;
      }
    }
    const base = slugify(title);
    for (let attempt = 1; ; attempt++) {
      // Most titles are new: try the base itself before looking up which suffixes are taken.
      const slug = attempt === 1 ? base : await this.#freeSlug(repos, base);
      try {
        return await create(slug);
      } catch (error) {
        if (!(error instanceof SlugTakenError) || attempt >= SLUG_ATTEMPTS) throw error;
      }
    }
  }

  async #updateWithSlugSuggestion(repos: TransactionalRepositories, id: string, version: number, changes: PostChanges, now: Date) {
    try {
      return await repos.posts.update(id, version, changes, now);
    } catch (error) {
      if (error instanceof SlugTakenError && changes.slug !== undefined) {
        throw new SlugTakenError(changes.slug, await this.#freeSlug(repos, changes.slug));
      }
      throw error;
    }
  }

  async #freeSlug(repos: TransactionalRepositories, base: string): Promise<string> {
    const taken = new Set(await repos.posts.slugsLike(base));
    if (!taken.has(base)) return base;
    for (let n = 2; ; n++) {
      const candidate = withSuffix(base, n);
      if (taken.has(candidate)) continue;
      // `slugsLike(base)` covers `base-<n>`; a long base is cut to make room for the suffix, and
      // those candidates must be looked up one by one.
      if (candidate.startsWith(`${base}-`) || !(await repos.posts.getBySlug(candidate))) return candidate;
    }
  }

  /** The revision and the activity event of a change, written at once (one round trip on PostgreSQL). */
  async #record(repos: TransactionalRepositories, post: Post, type: ActivityType, actor: Actor): Promise<void> {
    await Promise.all([repos.revisions.append(revisionOf(post, actor)), this.#event(repos, post, type, actor)]);
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
