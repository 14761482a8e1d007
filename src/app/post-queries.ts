import { checkedPostQuery, NotFoundError, type Clock, type Post, type PostQuery, type Store } from '../domain/index.js';

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
