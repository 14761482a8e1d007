import {
  NotFoundError,
  PreconditionFailedError,
  VersionConflictError,
  type Post,
  type Store,
  type TransactionalRepositories,
} from '../domain/index.js';

/** What a conditional write asks for: one of these versions (an If-Match list), or `*` (any existing post). */
export type ExpectedVersion = readonly number[] | '*';

/**
 * How often a conditional write is retried after losing a race to another write while the post
 * still satisfies its precondition (always, with `*`). Each lost race means another write
 * committed, so the retries progress; the bound only guards against a livelock.
 */
const RACE_ATTEMPTS = 50;

function satisfies(post: Post, expected: ExpectedVersion): boolean {
  return expected === '*' || expected.includes(post.version);
}

/**
 * @throws PreconditionFailedError carrying the post, when it is not at one of the expected
 *   versions (`*` matches any existing post)
 */
export function requireExpectedVersion(post: Post, expected: ExpectedVersion): void {
  if (!satisfies(post, expected)) throw new PreconditionFailedError(expected === '*' ? [] : expected, post);
}

/** The post as the store has it now; an unknown id is a `NotFoundError`. */
export async function existingPost(repos: TransactionalRepositories, id: string): Promise<Post> {
  const post = await repos.posts.get(id);
  if (!post) throw new NotFoundError('post', id);
  return post;
}

/** The post, if it is at an expected version: a missing post is 404 before any precondition. */
export async function postIfMatches(repos: TransactionalRepositories, id: string, expected: ExpectedVersion): Promise<Post> {
  const post = await existingPost(repos, id);
  requireExpectedVersion(post, expected);
  return post;
}

/**
 * Runs a write on post `id` conditioned on `expected`. `work` reads the post and writes it with
 * one recorded write (`updateRecorded`, `deleteRecorded`), which is atomic by itself and guarded
 * by the version it read: it needs no transaction around it. A write that read a matching post
 * and then lost a race to another write (`VersionConflictError` from the store) is retried while
 * the post as it is now still satisfies `expected`; otherwise it fails with
 * `PreconditionFailedError` carrying that post (or `NotFoundError` if it was deleted meanwhile).
 */
export async function writeIfMatches<T>(
  store: Store,
  id: string,
  expected: ExpectedVersion,
  work: (repos: TransactionalRepositories) => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work(store);
    } catch (error) {
      if (!(error instanceof VersionConflictError)) throw error;
      const current = await store.posts.get(id);
      if (!current) throw new NotFoundError('post', id);
      // Out of attempts while the post still matches: it kept changing (no version to blame).
      if (satisfies(current, expected)) {
        if (attempt >= RACE_ATTEMPTS) throw new PreconditionFailedError(expected === '*' ? [] : expected, current, true);
      } else {
        throw new PreconditionFailedError(expected === '*' ? [] : expected, current);
      }
    }
  }
}
