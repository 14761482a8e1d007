import type { CoverImage, PostSeo } from '../media.js';
import type { Post, PostStatus } from '../post.js';
import type { ComparedField } from '../revision-diff.js';

export interface Actor {
  id: string;
  name: string;
}

/** Who publishes a scheduled draft: the server itself, not a user. */
export const SYSTEM_ACTOR: Readonly<Actor> = Object.freeze({ id: 'system', name: 'Scheduler' });

/** The full state of a post as one successful write left it. */
export interface Revision {
  postId: string;
  version: number;
  title: string;
  slug: string;
  excerpt: string;
  body: string;
  tags: string[];
  status: PostStatus;
  wordCount: number;
  coverImage: CoverImage | null;
  seo: PostSeo;
  createdAt: Date;
  actor: Actor;
  /**
   * When the autosave burst this revision records began (the `createdAt` of its first autosave);
   * null for a revision of a write that was not an autosave.
   */
  autosaveSince: Date | null;
}

/**
 * How long an autosave burst lasts: an autosave continues the burst of the post's newest revision
 * (replacing it) while that burst began at most this long before. The editor autosaves a few
 * seconds after typing stops, so without a bound a sitting would be one revision per few seconds of
 * pause; with it History keeps a restorable state at least every ten minutes of writing and one
 * entry per ten minutes, not one per keystroke.
 */
export const AUTOSAVE_BURST_MS = 10 * 60_000;

/**
 * Whether an autosave by `actor` at `at` continues the burst of `newest`, the post's revision at
 * the version the autosave read: `newest` is an autosave by the same user whose burst began at most
 * `AUTOSAVE_BURST_MS` before `at` (the rule of `PostRepository.updateRecorded`).
 */
export function continuesBurst(newest: Pick<Revision, 'autosaveSince' | 'actor'>, actor: Actor, at: Date): boolean {
  return (
    newest.autosaveSince !== null && newest.actor.id === actor.id && at.getTime() - newest.autosaveSince.getTime() <= AUTOSAVE_BURST_MS
  );
}

/**
 * A revision as listed: without its body, with the fields it records differently from the revision
 * before it (`changed`, in the order and by the rules of `compareStates`).
 */
export type RevisionSummary = Omit<Revision, 'body'> & { changed: ComparedField[] };

/**
 * The revision that records `post` as a write by `actor` left it (at the post's `updatedAt`), an
 * autosave burst's since `autosaveSince` when given.
 */
export function revisionOf(post: Post, actor: Actor, autosaveSince: Date | null = null): Revision {
  return {
    postId: post.id,
    version: post.version,
    title: post.title,
    slug: post.slug,
    excerpt: post.excerpt,
    body: post.body,
    tags: [...post.tags],
    status: post.status,
    wordCount: post.wordCount,
    coverImage: post.coverImage === null ? null : { ...post.coverImage },
    seo: { ...post.seo },
    createdAt: new Date(post.updatedAt.getTime()),
    actor: { id: actor.id, name: actor.name },
    autosaveSince: autosaveSince === null ? null : new Date(autosaveSince.getTime()),
  };
}

export interface RevisionPage {
  items: RevisionSummary[];
  nextCursor: string | null;
}

/**
 * The history of each post: one revision per successful write, numbered by the post version it
 * recorded.
 * - `append` stores a revision (its cover image, SEO fields and `autosaveSince` too); a second revision with the same post
 *   and version throws `VersionConflictError` (history is never rewritten by `append`; only an
 *   autosave burst's revision is replaced, by `PostRepository.updateRecorded`). What it is given is the post as it now
 *   stands, at its current version (`History.record` after a write that did not record itself):
 *   a store may keep an older revision's text by reference to the newer ones and the post's, so
 *   appending anything else leaves the post's history undefined.
 * - `list` returns a post's revisions newest first (highest version first), `limit` 1 to 100,
 *   keyset-paginated: `nextCursor` null on the last page, a foreign or garbled cursor throws
 *   `InvalidCursorError`. No revisions is `{ items: [], nextCursor: null }`.
 * - each listed summary's `changed` names the fields that differ from the post's revision of the
 *   next lower version stored (`compareStates`: in its field order, tags as sets, the cover
 *   image and the SEO fields each as a whole, the body compared too), whichever page that
 *   revision is on; the oldest revision's is empty.
 * - `get` returns null for an unknown post or version.
 * - `deleteForPost` removes every revision of a post (the post is being deleted).
 */
export interface RevisionRepository {
  append(revision: Revision): Promise<void>;
  list(postId: string, page: { limit: number; cursor?: string | null }): Promise<RevisionPage>;
  get(postId: string, version: number): Promise<Revision | null>;
  deleteForPost(postId: string): Promise<void>;
}
