import {
  checkedPostQuery,
  isVisibleToReaders,
  NotFoundError,
  type Clock,
  type Media,
  type Post,
  type PostPage,
  type PostSummary,
  type Store,
  type TagCount,
} from '../domain/index.js';

/** How many posts a feed carries. */
const FEED_SIZE = 20;
/** The most URLs one sitemap may list (sitemaps.org). */
const SITEMAP_MAX = 50_000;
const SITEMAP_PAGE = 100;
/** How many media records one read of the store takes (`getMany`'s most): a page's covers in one, a sitemap's in a few. */
const MEDIA_READ_BATCH = 100;

/** A visible post of the sitemap, with what was read of its body (the body itself is not kept). */
export type SitemapPost<T> = PostSummary & { fromBody: T };

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
   * Newest published first (by `publishedAt`, ties by id); with `q`, by relevance (see `PostQuery`).
   * @throws ValidationError at `/q` or `/tag` of the query; InvalidCursorError
   */
  list(query: ContentListQuery): Promise<PostPage> {
    return this.#store.posts.list(this.#postQuery(query));
  }

  /**
   * `list` with `lastChange` (see there), read together: a readers' list and its Last-Modified.
   * @throws ValidationError at `/q` or `/tag` of the query; InvalidCursorError
   */
  listWithLastChange(query: ContentListQuery): Promise<PostPage & { lastChange: Date | null }> {
    return this.#store.posts.listWithLastChange(this.#postQuery(query));
  }

  /** The store's query of a readers' list: visible posts now, newest published first or by relevance with `q`. */
  #postQuery(query: ContentListQuery) {
    return checkedPostQuery({
      ...query,
      status: ['published'],
      visibleAt: this.#clock.now(),
      sort: query.q === undefined || query.q === '' ? { key: 'publishedAt', direction: 'desc' } : { key: 'relevance', direction: 'desc' },
    });
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

  /**
   * The `FEED_SIZE` most recently published posts, of one tag when given, with their bodies (read
   * together, in one round trip); one no longer visible by then is left out.
   */
  async latest(tag?: string): Promise<Post[]> {
    const page = await this.list({ ...(tag === undefined ? {} : { tag }), limit: FEED_SIZE });
    const now = this.#clock.now();
    const posts = await this.#store.posts.getMany(page.items.map((item) => item.id));
    return posts.filter((post) => isVisibleToReaders(post, now));
  }

  /**
   * Every visible post (at most `SITEMAP_MAX`), newest published first (by `publishedAt`, ties by
   * id), each with `read(body)`: the posts are walked whole, `SITEMAP_PAGE` at a time, and only
   * what `read` takes of a body is kept (the media its images link to).
   */
  async allWith<T>(read: (body: string) => T): Promise<SitemapPost<T>[]> {
    const now = this.#clock.now();
    const items: SitemapPost<T>[] = [];
    let after: string | null = null;
    for (;;) {
      const batch = await this.#store.posts.walk({ status: ['published'] }, after, SITEMAP_PAGE);
      if (batch.length === 0) break;
      for (const { body, ...summary } of batch) if (isVisibleToReaders(summary, now)) items.push({ ...summary, fromBody: read(body) });
      after = batch.at(-1)!.id;
    }
    const publishedMs = (post: PostSummary) => post.publishedAt!.getTime();
    items.sort((a, b) => publishedMs(b) - publishedMs(a) || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
    return items.slice(0, SITEMAP_MAX);
  }

  /**
   * The media of these ids that exist, by id: each id read once, `MEDIA_READ_BATCH` in one read of
   * the store; an unknown id (a media deleted since it was linked) is absent.
   */
  async media(ids: Iterable<string>): Promise<Map<string, Media>> {
    const unique = [...new Set(ids)];
    const found = new Map<string, Media>();
    for (let start = 0; start < unique.length; start += MEDIA_READ_BATCH) {
      for (const media of await this.#store.media.getMany(unique.slice(start, start + MEDIA_READ_BATCH))) found.set(media.id, media);
    }
    return found;
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
