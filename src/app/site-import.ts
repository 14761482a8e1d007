import {
  activityOfChanges,
  changesFor,
  checkedPostContent,
  countWords,
  DuplicateIdError,
  isValidSlug,
  NotFoundError,
  scheduleKept,
  seoAfter,
  NO_SEO,
  SlugTakenError,
  ValidationError,
  VersionConflictError,
  type Actor,
  type Clock,
  type CoverImage,
  type NewPost,
  type Post,
  type PostChanges,
  type PostEdit,
  type PostSeo,
  type Store,
} from '../domain/index.js';
import type { History } from './history.js';
import { ImageImport, type ArchiveImage, type ImageImportDeps, type PostImages } from './site-import-images.js';
import {
  COMPARED,
  summaryOf,
  type ComparedField,
  type ImportAction,
  type ImportItem,
  type ImportMode,
  type ImportSkipReason,
} from './import-report.js';

export type { ImportItem, ImportMode, ImportSkipReason } from './import-report.js';

/**
 * A post as a file of an archive describes it, read by a transport adapter: the post's content,
 * and the id and dates when the file has them (a MarginCMS export does).
 */
export type ImportedPost = Pick<Post, 'title' | 'slug' | 'excerpt' | 'body' | 'tags' | 'status' | 'publishedAt' | 'publishAt'> & {
  id: string | null;
  createdAt: Date | null;
  updatedAt: Date | null;
  /** Set once the post's images are stored (`ImageImport`); absent, the import leaves the post's cover as it is. */
  coverImage?: CoverImage | null;
  /** The SEO fields the file states (every one of them, null for a key it lacks); absent, the import leaves the post's as they are. */
  seo?: PostSeo;
};

/**
 * One file of the archive: a post (with the images of the archive it shows, and a `note` for its
 * item's detail: a file that is not what the archive's manifest lists), an image (stored when a
 * post shows it), or why it is neither (decided while reading it).
 */
export type ImportFile =
  | { path: string; post: ImportedPost; images?: PostImages; note?: string }
  | { path: string; image: ArchiveImage }
  | { path: string; skip: { reason: ImportSkipReason; detail: string; slug?: string | null } };

export interface ImportReport {
  mode: ImportMode;
  counts: { files: number } & Record<ImportAction, number>;
  items: ImportItem[];
}

/** What a file would do to the store, decided by reading it (no write). */
type Plan =
  | { action: 'create'; post: ImportedPost; tags: string[] }
  | { action: 'update'; post: ImportedPost; tags: string[]; before: Post; changed: ComparedField[] }
  | { action: 'unchanged'; before: Post }
  | { action: 'skip'; reason: ImportSkipReason; detail: string };

/** How often a file is planned again after another write took its id, slug or version meanwhile. */
const ATTEMPTS = 3;

/**
 * Writes of one import in flight at once. Each post is its own transaction, whose commit waits
 * for the disk: one at a time left PostgreSQL idle (145 posts/s); a few in flight share flushes.
 * Files are still planned one by one in the archive's order.
 */
const WRITES_IN_FLIGHT = 8;

/** The posts (by id) and slugs earlier files of the archive import. */
interface Claimed {
  ids: Set<string>;
  slugs: Set<string>;
}

/**
 * Imports posts file by file: each file is matched to a post by its id, else by its slug, and
 * compared field by field. A file whose id is that of a deleted post is skipped (`deleted`): an
 * import never brings a deleted post back under its id. A dry run only reads. Applying writes each post on its own (its
 * revision and activity event by the importing user in the same atomic write), so one bad file
 * never undoes or stops the others; a file whose post changed while it was planned is planned
 * again. Two files of one archive naming the same post or slug: the first wins, the second is a
 * `duplicate`. Importing what is already there reports `unchanged` and writes nothing.
 */
export class SiteImport {
  readonly #store: Store;
  readonly #clock: Clock;
  readonly #history: History;
  readonly #newId: () => string;

  constructor(deps: { store: Store; clock: Clock; history: History; newId: () => string }) {
    this.#store = deps.store;
    this.#clock = deps.clock;
    this.#history = deps.history;
    this.#newId = deps.newId;
  }

  /**
   * `media`, when given, stores the images the posts show (see `ImageImport`) and links them by
   * their URLs; without it, image files are skipped as files that are not posts.
   */
  async run(files: AsyncIterable<ImportFile>, mode: ImportMode, actor: Actor, media?: ImageImportDeps): Promise<ImportReport> {
    const claimed: Claimed = { ids: new Set(), slugs: new Set() };
    const items: Array<ImportItem | Promise<ImportItem>> = [];
    const images = media === undefined ? null : new ImageImport(media, mode);
    // An image's item is known once every post that may show it is planned.
    const imageItems: { index: number; path: string }[] = [];
    const inFlight = new Set<Promise<void>>();
    let failure: { error: unknown } | null = null;
    for await (const file of files) {
      if (failure !== null) break;
      if ('skip' in file) {
        items.push(skipped(mode, file.path, file.skip.slug ?? null, file.skip.reason, file.skip.detail));
        continue;
      }
      if ('image' in file) {
        if (images === null) items.push(skipped(mode, file.path, null, 'not_a_post', 'Not a markdown file (.md or .markdown).'));
        else imageItems.push({ index: items.push(skipped(mode, file.path, null, 'not_a_post', '')) - 1, path: file.path });
        continue;
      }
      const { path } = file;
      const note = file.note ?? null;
      // Without the media library an import leaves covers as they are; with it, the images are stored first.
      const post =
        images === null
          ? { ...file.post, coverImage: undefined }
          : file.images
            ? { ...file.post, ...(await images.resolve(file.images)) }
            : file.post;
      const plan = await this.#claimedPlan(mode, path, post, claimed, () => Promise.all(inFlight));
      if ('path' in plan) {
        items.push(plan);
        continue;
      }
      if (mode === 'dry-run' || plan.action === 'skip' || plan.action === 'unchanged') {
        items.push(itemOf(mode, path, post, plan, note));
        continue;
      }
      const write = this.#write(path, post, plan, actor, note);
      items.push(write);
      const settled: Promise<void> = write.then(
        () => undefined,
        (error: unknown) => {
          failure ??= { error };
        },
      );
      inFlight.add(settled);
      void settled.then(() => inFlight.delete(settled));
      if (inFlight.size >= WRITES_IN_FLIGHT) await Promise.race(inFlight);
    }
    // Writes already started finish (each is whole on its own) before an error is reported.
    await Promise.all(inFlight);
    if (failure !== null) throw (failure as { error: unknown }).error;
    for (const { index, path } of imageItems) items[index] = images!.itemOf(path);
    const report: ImportReport = {
      mode,
      counts: { files: 0, create: 0, update: 0, unchanged: 0, skip: 0 },
      items: await Promise.all(items),
    };
    for (const item of report.items) {
      report.counts.files += 1;
      report.counts[item.action] += 1;
    }
    return report;
  }

  /**
   * The file's plan, planned in archive order, or its item when an earlier file of the archive
   * already imports its post or slug. A plan that is not a skip claims the post's id and slug at
   * once, so a later file naming them is a duplicate whatever the earlier one's write does. A plan
   * that read a post an earlier file writes (matched by slug, or holding the slug) may have read it
   * before that write: the writes in flight are awaited and the file planned again, so that it
   * sees the store as importing the files one by one would leave it.
   */
  async #claimedPlan(
    mode: ImportMode,
    path: string,
    post: ImportedPost,
    claimed: Claimed,
    writesDone: () => Promise<unknown>,
  ): Promise<Plan | ImportItem> {
    const idClaimed = post.id !== null && claimed.ids.has(post.id);
    if (idClaimed || claimed.slugs.has(post.slug)) {
      return skipped(
        mode,
        path,
        post.slug,
        'duplicate',
        `An earlier file of the archive already imports ${idClaimed ? `the post ${post.id}` : `the slug ${post.slug}`}.`,
      );
    }
    const seen = new Set<string>();
    let plan = await this.#plan(post, seen);
    if ([...seen].some((id) => claimed.ids.has(id))) {
      await writesDone();
      plan = await this.#plan(post);
    }
    if (plan.action !== 'skip') {
      if (post.id !== null) claimed.ids.add(post.id);
      if (plan.action !== 'create') claimed.ids.add(plan.before.id);
      claimed.slugs.add(post.slug);
    }
    return plan;
  }

  /** Applies a plan; a write that lost a race with another (slug, id, version) is planned again, up to ATTEMPTS times. */
  async #write(
    path: string,
    post: ImportedPost,
    first: Extract<Plan, { action: 'create' | 'update' }>,
    actor: Actor,
    note: string | null,
  ): Promise<ImportItem> {
    let plan: Plan = first;
    for (let attempt = 1; ; attempt++) {
      if (plan.action === 'skip' || plan.action === 'unchanged') return itemOf('apply', path, post, plan, note);
      try {
        const written = await this.#apply(plan, actor);
        return { ...itemOf('apply', path, post, plan, note), id: written.id, slug: written.slug };
      } catch (error) {
        const raced =
          error instanceof SlugTakenError ||
          error instanceof DuplicateIdError ||
          error instanceof VersionConflictError ||
          error instanceof NotFoundError;
        if (!raced) throw error;
        if (attempt >= ATTEMPTS) {
          return skipped(
            'apply',
            path,
            post.slug,
            'conflict',
            `The post changed ${ATTEMPTS} times while it was imported; import the archive again.`,
          );
        }
      }
      plan = await this.#plan(post);
    }
  }

  /** What the file would do now; `seen` collects the ids of the posts the plan read. */
  async #plan(post: ImportedPost, seen?: Set<string>): Promise<Plan> {
    let tags: string[];
    try {
      tags = checkedPostContent(post) ?? [];
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      return {
        action: 'skip',
        reason: 'invalid_post',
        detail: error.issues.map((issue) => `${issue.pointer}: ${issue.message}`).join('; '),
      };
    }
    const posts = this.#store.posts;
    let before = post.id !== null ? await posts.get(post.id) : null;
    const holder = before?.slug === post.slug ? before : await posts.getBySlug(post.slug);
    if (before !== null) seen?.add(before.id);
    if (holder !== null) seen?.add(holder.id);
    if (before === null) {
      // A file without an id is the post that holds its slug; one with an id is a post of its own.
      if (holder !== null && post.id === null) before = holder;
      else if (post.id !== null && (await this.#wasDeleted(post.id)))
        return {
          action: 'skip',
          reason: 'deleted',
          detail: `The post ${post.id} was deleted from this site; an import does not bring a deleted post back under its id.`,
        };
      else if (holder !== null)
        return { action: 'skip', reason: 'slug_taken', detail: `The post ${holder.id} already uses the slug ${post.slug}.` };
      else return { action: 'create', post, tags };
    } else if (holder !== null && holder.id !== before.id) {
      return { action: 'skip', reason: 'slug_taken', detail: `The post ${holder.id} already uses the slug ${post.slug}.` };
    }
    const changes = importChanges(before, post, tags, this.#clock.now());
    const changed = COMPARED.filter((field) => changes[field] !== undefined);
    if (changed.length === 0) return { action: 'unchanged', before };
    return { action: 'update', post, tags, before, changed };
  }

  /** Whether a post of this id was deleted: its `deleted` activity event outlives it. */
  async #wasDeleted(id: string): Promise<boolean> {
    const { items } = await this.#store.activity.list({ postId: id, type: 'deleted', limit: 1 });
    return items.length > 0;
  }

  async #apply(plan: Extract<Plan, { action: 'create' | 'update' }>, actor: Actor): Promise<Post> {
    const now = this.#clock.now();
    const { post, tags } = plan;
    if (plan.action === 'create') {
      // The post keeps its own dates; its first revision and `created` event are the import's, made now.
      return this.#store.posts.createRecorded(newPostOf(post, tags, this.#newId, now), this.#history.creation(actor, now));
    }
    const { before } = plan;
    const changes = importChanges(before, post, tags, now);
    return this.#store.posts.updateRecorded(before, changes, this.#history.update(actor, activityOfChanges(before, changes), now));
  }
}

/**
 * What a file changes of the post it matches: the file states the post as it is, so its schedule
 * is read as stated (a draft keeps any publishAt, another status none; see `changesFor`).
 */
function importChanges(before: Post, post: ImportedPost, tags: string[], now: Date): PostChanges {
  const { title, slug, excerpt, body, status, publishAt, coverImage, seo } = post;
  const edit: PostEdit = {
    title,
    slug,
    excerpt,
    body,
    tags,
    status,
    publishAt,
    ...(coverImage !== undefined ? { coverImage } : {}),
    ...(seo !== undefined ? { seo } : {}),
  };
  return changesFor(before, edit, now, 'stated');
}

/**
 * The post a file creates: its id and timestamps when it has them (a MarginCMS export keeps
 * them, so a re-export writes the same file), else a new id and the import's time. `updatedAt`
 * is never before `createdAt`; a published post without a publish date was published when created.
 */
function newPostOf(post: ImportedPost, tags: string[], newId: () => string, now: Date): NewPost {
  const createdAt = post.createdAt ?? post.publishedAt ?? now;
  const updatedAt = post.updatedAt !== null && post.updatedAt.getTime() > createdAt.getTime() ? post.updatedAt : createdAt;
  return {
    id: post.id ?? newId(),
    title: post.title,
    slug: post.slug,
    excerpt: post.excerpt,
    body: post.body,
    tags,
    status: post.status,
    wordCount: countWords(post.body),
    createdAt,
    updatedAt,
    publishedAt: post.publishedAt ?? (post.status === 'published' ? createdAt : null),
    publishAt: scheduleKept(post.status, post.publishAt),
    ...(post.coverImage ? { coverImage: post.coverImage } : {}),
    ...(post.seo ? { seo: seoAfter(NO_SEO, post.seo) } : {}),
  };
}

/** The status and schedule a post has once the file is imported (a schedule is kept by a draft only). */
const stated = (post: Pick<Post, 'status' | 'publishAt'>) => ({
  status: post.status,
  publishAt: scheduleKept(post.status, post.publishAt),
});

/** A file's item for its plan; `note` (a file that is not what the manifest lists) is its detail. */
function itemOf(mode: ImportMode, path: string, post: ImportedPost, plan: Plan, note: string | null): ImportItem {
  const item = { path, changed: [], reason: null, detail: note };
  switch (plan.action) {
    case 'skip':
      return skipped(mode, path, post.slug, plan.reason, plan.detail);
    case 'create':
      return { ...item, action: 'create', id: post.id, slug: post.slug, summary: summaryOf({ post: 'create', as: stated(post) }, mode) };
    case 'update': {
      const becomes = { post: 'update', from: stated(plan.before), as: stated(post), changed: plan.changed } as const;
      return { ...item, action: 'update', id: plan.before.id, slug: post.slug, changed: plan.changed, summary: summaryOf(becomes, mode) };
    }
    case 'unchanged': {
      const summary = summaryOf({ post: 'unchanged', as: stated(plan.before) }, mode);
      return { ...item, action: 'unchanged', id: plan.before.id, slug: plan.before.slug, summary };
    }
  }
}

/** A skipped file's item; a slug the file names is reported only when it is a valid one. */
function skipped(mode: ImportMode, path: string, slug: string | null, reason: ImportSkipReason, detail: string): ImportItem {
  const summary = summaryOf({ skip: true }, mode);
  return { path, action: 'skip', id: null, slug: slug !== null && isValidSlug(slug) ? slug : null, changed: [], summary, reason, detail };
}
