import {
  SlugTakenError,
  slugify,
  withSuffix,
  type Post,
  type PostChanges,
  type TransactionalRepositories,
  type UpdateRecord,
} from '../domain/index.js';

/**
 * How often a create retries a title-derived slug that another transaction took meanwhile. Each
 * failed attempt means another post committed that slug, so the retries always progress; the bound
 * only has to exceed the number of posts created at once with the same title.
 */
const SLUG_ATTEMPTS = 50;

/**
 * Creates a post with the slug asked for (taken: `SlugTakenError` with a free suggestion) or, when
 * none was asked for, one derived from the title (taken: the next free `-2`, `-3`…).
 */
export async function createWithFreeSlug(
  repos: TransactionalRepositories,
  explicit: string | undefined,
  title: string,
  create: (slug: string) => Promise<Post>,
): Promise<Post> {
  if (explicit !== undefined) {
    try {
      return await create(explicit);
    } catch (error) {
      if (error instanceof SlugTakenError) throw new SlugTakenError(explicit, await freeSlug(repos, explicit));
      throw error;
    }
  }
  const base = slugify(title);
  for (let attempt = 1; ; attempt++) {
    // Most titles are new: try the base itself before looking up which suffixes are taken.
    const slug = attempt === 1 ? base : await freeSlug(repos, base);
    try {
      return await create(slug);
    } catch (error) {
      if (!(error instanceof SlugTakenError) || attempt >= SLUG_ATTEMPTS) throw error;
    }
  }
}

/** Updates a post with its history; a slug that is taken fails with `SlugTakenError` carrying a free suggestion. */
export async function updateSuggestingSlug(
  repos: TransactionalRepositories,
  before: Post,
  changes: PostChanges,
  record: UpdateRecord,
): Promise<Post> {
  try {
    return await repos.posts.updateRecorded(before, changes, record);
  } catch (error) {
    if (error instanceof SlugTakenError && changes.slug !== undefined) {
      throw new SlugTakenError(changes.slug, await freeSlug(repos, changes.slug));
    }
    throw error;
  }
}

/** `base` if no post holds it, else the first free `base-2`, `base-3`… */
async function freeSlug(repos: TransactionalRepositories, base: string): Promise<string> {
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
