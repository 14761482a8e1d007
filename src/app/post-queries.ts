import {
  checkedPostQuery,
  NotFoundError,
  type Clock,
  type Post,
  type PostFilter,
  type PostQuery,
  type PostState,
  type Store,
} from '../domain/index.js';

/** The largest version a post can reach (a PostgreSQL `integer`): no revision has a greater one. */
const MAX_VERSION = 2_147_483_647;

/** One side of a comparison: a revision, or the post as it is now. */
export interface ComparedState extends PostState {
  current: boolean;
}

/** The reads: posts, their revisions, the activity log, tags and stats. */
export class PostQueries {
  readonly #store: Store;
  readonly #clock: Clock;

  constructor(store: Store, clock: Clock) {
    this.#store = store;
    this.#clock = clock;
  }

  /**
   * A page of posts.
   * @throws ValidationError at `/q` or `/tag` of the query (see `checkedPostQuery`)
   */
  async list(query: PostQuery) {
    return this.#store.posts.list(checkedPostQuery(query));
  }

  async get(id: string): Promise<Post> {
    const post = await this.#store.posts.get(id);
    if (!post) throw new NotFoundError('post', id);
    return post;
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

  /**
   * Revision `version` of post `id` (`to`) and what it is compared with (`from`): the post as it
   * is now when `against` is 'current', else revision `against`.
   * @throws NotFoundError for a missing post (against 'current'), revision `version` or revision `against`
   */
  async revisionComparison(id: string, version: number, against: 'current' | number): Promise<{ from: ComparedState; to: ComparedState }> {
    const [revision, other] = await Promise.all([
      this.getRevision(id, version),
      against === 'current' ? this.get(id) : against > MAX_VERSION ? Promise.resolve(null) : this.#store.revisions.get(id, against),
    ]);
    if (!other) throw new NotFoundError('revision', `${id}/${against}`);
    const state = (from: PostState, current: boolean): ComparedState => ({
      version: from.version,
      title: from.title,
      slug: from.slug,
      excerpt: from.excerpt,
      body: from.body,
      tags: from.tags,
      status: from.status,
      coverImage: from.coverImage,
      seo: from.seo,
      current,
    });
    return { from: state(other, against === 'current'), to: state(revision, false) };
  }

  /**
   * The filter as applied (its tag normalised) and every post matching it, whole, `batchSize` at a time in id order (see
   * `PostRepository.walk`): each batch is read when the previous one has been taken, so a caller
   * that writes each batch out before asking for the next holds one batch at a time.
   * @throws ValidationError at `/tag` of the query, at once (before any batch)
   */
  walk(filter: PostFilter, batchSize = 100): { filter: PostFilter; batches: AsyncGenerator<Post[]> } {
    const { tag } = checkedPostQuery({ ...filter, sort: { key: 'createdAt', direction: 'asc' }, limit: batchSize });
    const checked: PostFilter = { ...filter, ...(tag !== undefined ? { tag } : {}) };
    const posts = this.#store.posts;
    const batches = (async function* () {
      for (let after: string | null = null; ;) {
        const batch = await posts.walk(checked, after, batchSize);
        if (batch.length === 0) return;
        yield batch;
        after = batch[batch.length - 1]!.id;
      }
    })();
    return { filter: checked, batches };
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
}
