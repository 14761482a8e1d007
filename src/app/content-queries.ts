import {
  checkedPostQuery,
  isVisibleToReaders,
  NotFoundError,
  type Clock,
  type Post,
  type PostPage,
  type Store,
  type TagCount,
} from '../domain/index.js';

/** How many posts a feed carries. */
const FEED_SIZE = 20;
/** The most URLs one sitemap may list (sitemaps.org). */
const SITEMAP_MAX = 50_000;
const SITEMAP_PAGE = 100;

export interface ContentListQuery {
  tag?: string;
  q?: string;
  limit: number;
  cursor?: string | null;
}

/**
 * What readers may see, and nothing else: published posts whose `publishedAt` has passed
 * (`isVisibleToReaders`), at the instant of each call. A post readers may not see is a
 * `NotFoundError`, the same whatever the reason (missing, draft, scheduled, archived).
 */
export class ContentQueries {
  readonly #store: Store;
  readonly #clock: Clock;

  constructor(store: Store, clock: Clock) {
    this.#store = store;
    this.#clock = clock;
  }

  /**
   * Newest published first (by `publishedAt`, ties by id).
   * @throws ValidationError at `/q` or `/tag` of the query; InvalidCursorError
   */
  list(query: ContentListQuery): Promise<PostPage> {
    return this.#store.posts.list(
      checkedPostQuery({
        ...query,
        status: ['published'],
        visibleAt: this.#clock.now(),
        sort: { key: 'publishedAt', direction: 'desc' },
      }),
    );
  }

  async get(id: string): Promise<Post> {
    return this.#visible(await this.#store.posts.get(id), id);
  }

  async getBySlug(slug: string): Promise<Post> {
    return this.#visible(await this.#store.posts.getBySlug(slug), slug);
  }

  tags(): Promise<TagCount[]> {
    return this.#store.posts.tagCounts(this.#clock.now());
  }

  /** The `FEED_SIZE` most recently published posts, of one tag when given. */
  async latest(tag?: string) {
    const page = await this.list({ ...(tag === undefined ? {} : { tag }), limit: FEED_SIZE });
    return page.items;
  }

  /** Every visible post (at most `SITEMAP_MAX`), newest published first. */
  async all() {
    const items: PostPage['items'] = [];
    let cursor: string | null = null;
    do {
      const page: PostPage = await this.#store.posts.list({
        status: ['published'],
        visibleAt: this.#clock.now(),
        sort: { key: 'publishedAt', direction: 'desc' },
        limit: Math.min(SITEMAP_PAGE, SITEMAP_MAX - items.length),
        cursor,
        countUpTo: 1,
      });
      items.push(...page.items);
      cursor = page.nextCursor;
    } while (cursor !== null && items.length < SITEMAP_MAX);
    return items;
  }

  /**
   * The instant of the last change to any post (the newest activity event), or null before the
   * first: what a list, a feed or the sitemap last changed at, deletions and unpublishing included.
   */
  async lastChange(): Promise<Date | null> {
    const { items } = await this.#store.activity.list({ limit: 1 });
    return items[0]?.occurredAt ?? null;
  }

  #visible(post: Post | null, key: string): Post {
    if (post === null || !isVisibleToReaders(post, this.#clock.now())) throw new NotFoundError('post', key);
    return post;
  }
}
