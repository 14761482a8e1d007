/**
 * The typed client of the public Content API, for blog frontends: no credentials, nothing to
 * keep between calls. Browsers cache and revalidate its answers on their own (they carry ETag,
 * Last-Modified and Cache-Control); feeds and the sitemap come back as text.
 */
import createClient, { type Client } from 'openapi-fetch';
import type { components, operations, paths } from '../../generated/api.js';
import type { ApiResult } from './types.js';

export type ContentPost = components['schemas']['ContentPost'];
export type ContentPostSummary = components['schemas']['ContentPostSummary'];
export type ContentPostPage = components['schemas']['ContentPostPage'];
type ListQuery = NonNullable<operations['listContentPosts']['parameters']['query']>;

export interface ContentClientOptions {
  /** The API root, for example `https://cms.example.com/api/v1`. */
  baseUrl: string;
  /** Defaults to the global `fetch`; receives a `Request`. */
  fetch?: (request: Request) => Promise<Response>;
}

interface ReadOptions {
  /** Ask for `html`, the body rendered to sanitised HTML. */
  html?: boolean;
}

export interface ContentClient {
  /** The openapi-fetch client, for anything below. */
  readonly api: Client<paths>;
  /** Published posts, newest first; pass `nextCursor` back as `cursor` for the next page. */
  listPosts(query?: ListQuery): Promise<ApiResult<'listContentPosts'>>;
  getPostBySlug(slug: string, options?: ReadOptions): Promise<ApiResult<'getContentPostBySlug'>>;
  getPost(id: string, options?: ReadOptions): Promise<ApiResult<'getContentPost'>>;
  listTags(): Promise<ApiResult<'listContentTags'>>;
  /** The Atom feed (of one tag when given), as XML text. */
  atomFeed(tag?: string): Promise<{ xml: string | undefined; response: Response }>;
  /** The RSS 2.0 feed (of one tag when given), as XML text. */
  rssFeed(tag?: string): Promise<{ xml: string | undefined; response: Response }>;
  /** The sitemap, as XML text. */
  sitemap(): Promise<{ xml: string | undefined; response: Response }>;
}

export function createContentClient(options: ContentClientOptions): ContentClient {
  const api = createClient<paths>({ baseUrl: options.baseUrl, ...(options.fetch ? { fetch: options.fetch } : {}) });
  const include = (read: ReadOptions | undefined) => (read?.html ? { include: 'html' as const } : {});
  const text = async (result: Promise<{ data?: unknown; response: Response }>) => {
    const { data, response } = await result;
    return { xml: typeof data === 'string' ? data : undefined, response };
  };
  const tagQuery = (tag: string | undefined) => ({ params: { query: tag === undefined ? {} : { tag } }, parseAs: 'text' as const });
  return {
    api,
    listPosts: (query = {}) => api.GET('/content/posts', { params: { query } }),
    getPostBySlug: (slug, read) => api.GET('/content/posts/slug/{slug}', { params: { path: { slug }, query: include(read) } }),
    getPost: (id, read) => api.GET('/content/posts/{id}', { params: { path: { id }, query: include(read) } }),
    listTags: () => api.GET('/content/tags'),
    atomFeed: (tag) => text(api.GET('/content/feed.atom', tagQuery(tag))),
    rssFeed: (tag) => text(api.GET('/content/feed.rss', tagQuery(tag))),
    sitemap: () => text(api.GET('/content/sitemap.xml', { parseAs: 'text' })),
  };
}
