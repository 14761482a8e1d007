/**
 * The typed client of the MarginCMS API for frontends and tests: openapi-fetch over the generated
 * types, plus what every frontend ends up writing by hand (bearer token, one refresh and retry on
 * 401, If-Match from the last ETag seen, an Idempotency-Key per create). It uses only the global
 * `fetch`, `Request` and `crypto.randomUUID`, so it runs in browsers as well as in Node.
 */
import createClient, { type Client } from 'openapi-fetch';
import type { components, operations, paths } from '../../generated/api.js';
import { bearerMiddleware } from './bearer-middleware.js';
import { mediaCalls, type MediaCalls } from './media.js';
import { webhookCalls, type WebhookCalls } from './webhooks.js';
import { TokenSession, type SessionTokens, type SharedRefresh, type TokenPair } from './session.js';
import type { ApiResult } from './types.js';

export type { SessionTokens, SharedRefresh, TokenPair } from './session.js';
export type { ApiResult } from './types.js';
export { preferMiddleware, type PreferAnswer, type PreferChooser, type PreferOptions } from './prefer-middleware.js';
export {
  createContentClient,
  type ContentClient,
  type ContentClientOptions,
  type ContentPost,
  type ContentPostPage,
  type ContentPostSummary,
} from './content.js';
export type { components, operations, paths } from '../../generated/api.js';
export type { DeleteMediaOptions, Media, MediaCalls, MediaListQuery, MediaPage, UpdateMediaRequest, UploadMediaOptions } from './media.js';
export type {
  CreateWebhookRequest,
  PreviewLink,
  PreviewLinkCreated,
  PreviewLinkPage,
  PreviewLinkQuery,
  UpdateWebhookRequest,
  WebhookCalls,
  WebhookDelivery,
  WebhookDeliveryPage,
  WebhookDeliveryQuery,
  WebhookDeliveryStatus,
  WebhookEventType,
  WebhookSubscription,
  WebhookSubscriptionWithSecret,
} from './webhooks.js';

export type Post = components['schemas']['Post'];
export type UpdatePostRequest = components['schemas']['UpdatePostRequest'];
type CreatePostRequest = components['schemas']['CreatePostRequest'];
type Defaulted = 'excerpt' | 'body' | 'tags' | 'status';
/**
 * The createPost body. The generated type marks the fields that have a default as required; the
 * server fills them in when they are absent, so here they are optional.
 */
export type NewPost = Omit<CreatePostRequest, Defaulted> & Partial<Pick<CreatePostRequest, Defaulted>>;

/** What `exportSite` may filter and lay out: the statuses, one tag, the layout (`flat` or `hugo`). */
export type ExportQuery = NonNullable<operations['exportSite']['parameters']['query']>;
export type ImportMode = components['parameters']['ImportMode'];
export type ImportReport = components['schemas']['ImportReport'];

/** The export's answer: the archive with the file name the server gives it, or the problem. */
export type SiteExport =
  | { data: { archive: Blob; filename: string }; error?: never; response: Response }
  | { data?: never; error: NonNullable<ApiResult<'exportSite'>['error']>; response: Response };

/** The name a download gets when the answer does not say (`Content-Disposition: attachment; filename="…"`). */
const EXPORT_FILENAME = 'margin-export.zip';

const filenameOf = (response: Response): string =>
  /filename="([^"/\\]+)"/.exec(response.headers.get('content-disposition') ?? '')?.[1] ?? EXPORT_FILENAME;

export interface MarginClientOptions {
  /** The API root, for example `https://cms.example.com/api/v1`. */
  baseUrl: string;
  /** Defaults to the global `fetch`; receives a `Request`. */
  fetch?: (request: Request) => Promise<Response>;
  /** A session to resume, for example from storage. */
  tokens?: SessionTokens;
  /** Called with each new pair (login, refresh) and with null when the session ends. */
  onTokens?: (pair: TokenPair | null) => void;
  /**
   * Where other holders of the session (a browser's other tabs) share its refresh token: each
   * refresh then runs alone and spends the token as stored, never one another holder spent.
   */
  shared?: SharedRefresh;
}

/** `If-Match` to send instead of the remembered ETag (`*` matches any existing post). */
export interface PreconditionOptions {
  ifMatch?: string;
}

export interface UpdatePostOptions extends PreconditionOptions {
  /** The save is an autosave (`?autosave=true`): History keeps one revision per burst of them. */
  autosave?: boolean;
}

export interface CreatePostOptions {
  /** Pass the key of an earlier attempt to retry the same logical create; a fresh UUID by default. */
  idempotencyKey?: string;
}

/** The client of the admin API; the media library's calls are described in media.ts, webhooks' and preview links' in webhooks.ts. */
export interface MarginClient extends MediaCalls, WebhookCalls {
  /** The openapi-fetch client with the bearer and refresh middleware. */
  readonly api: Client<paths>;
  /** The current tokens, or null when signed out. */
  readonly tokens: SessionTokens | null;
  login(email: string, password: string): Promise<ApiResult<'login'>>;
  /** Revokes the refresh token's family on the server and forgets the tokens (even if the call fails). */
  logout(): Promise<ApiResult<'logout'> | undefined>;
  /**
   * Takes up the session of a refresh token stored by another holder (a reload, another tab): the
   * first request fetches its access token. With null, forgets the tokens without telling the
   * server, as when the session was ended elsewhere. A session already held is kept when given a token.
   */
  resume(refreshToken: string | null): void;
  /** The ETag last seen for a post, if any. */
  etagOf(id: string): string | undefined;
  getPost(id: string): Promise<ApiResult<'getPost'>>;
  createPost(body: NewPost, options?: CreatePostOptions): Promise<ApiResult<'createPost'> & { idempotencyKey: string }>;
  /**
   * Sends `If-Match` with the last ETag seen for the post. On 412 the problem's `current` is the
   * post as it is now and its ETag becomes the remembered one, so merging and calling again works.
   */
  updatePost(id: string, patch: UpdatePostRequest, options?: UpdatePostOptions): Promise<ApiResult<'updatePost'>>;
  deletePost(id: string, options?: PreconditionOptions): Promise<ApiResult<'deletePost'>>;
  restoreRevision(id: string, version: number, options?: PreconditionOptions): Promise<ApiResult<'restoreRevision'>>;
  /**
   * The whole site (or the posts the filters keep) as a zip, read to the end into a Blob: a browser
   * offers it for download through an object URL, since the bearer token cannot ride on a link.
   */
  exportSite(query?: ExportQuery): Promise<SiteExport>;
  /** Sends a zip archive as the raw body (`application/zip`) to be read (`dry-run`) or imported (`apply`). */
  importSite(archive: Blob, mode: ImportMode): Promise<ApiResult<'importSite'>>;
}

export function createMarginClient(options: MarginClientOptions): MarginClient {
  const { baseUrl, fetch } = options;
  // Refresh goes around the middleware: it must never trigger another refresh.
  const plain = createClient<paths>({ baseUrl, fetch });
  const session = new TokenSession({
    tokens: options.tokens,
    onTokens: options.onTokens,
    shared: options.shared,
    async refresh(refreshToken) {
      const { data, response } = await plain.POST('/auth/refresh', { body: { refreshToken } });
      if (data) return { pair: data };
      return response.status === 401 || response.status === 422 ? 'rejected' : 'failed';
    },
  });
  const api = createClient<paths>({ baseUrl, fetch });
  api.use(bearerMiddleware(session));

  const etags = new Map<string, string>();
  /** Remembers the post's ETag from the header, or from its version when the header is not exposed. */
  const remember = (id: string, response: Response, post: Post | undefined): void => {
    const etag = response.headers.get('etag') ?? (post ? `"${post.version}"` : null);
    if (etag) etags.set(id, etag);
  };
  /** Keeps the remembered ETag in step with a change's answer; `gone` says whether a 404 means the post is. */
  const track = (id: string, result: ApiResult<'updatePost' | 'deletePost' | 'restoreRevision'>, gone: boolean): void => {
    const { response } = result;
    if (result.data) remember(id, response, result.data);
    else if (response.status === 204 || (response.status === 404 && gone)) etags.delete(id);
    else if (response.status === 412 && result.error && 'current' in result.error) remember(id, response, result.error.current);
  };
  const ifMatch = (id: string, given: PreconditionOptions | undefined) => {
    const value = given?.ifMatch ?? etags.get(id);
    return value === undefined ? undefined : { 'If-Match': value };
  };

  return {
    api,
    ...mediaCalls(api),
    ...webhookCalls(api),
    get tokens() {
      return session.tokens;
    },
    async login(email, password) {
      const result = await api.POST('/auth/login', { body: { email, password } });
      if (result.data) session.set(result.data);
      return result;
    },
    async logout() {
      const tokens = session.tokens;
      if (!tokens) return undefined;
      try {
        return await api.POST('/auth/logout', { body: { refreshToken: tokens.refreshToken } });
      } finally {
        session.clear();
        etags.clear();
      }
    },
    resume(refreshToken) {
      session.resume(refreshToken);
      if (refreshToken === null) etags.clear();
    },
    etagOf: (id) => etags.get(id),
    async getPost(id) {
      const result = await api.GET('/posts/{id}', { params: { path: { id } } });
      if (result.data) remember(id, result.response, result.data);
      else if (result.response.status === 404) etags.delete(id);
      return result;
    },
    async createPost(body, createOptions) {
      const idempotencyKey = createOptions?.idempotencyKey ?? crypto.randomUUID();
      const result = await api.POST('/posts', {
        params: { header: { 'Idempotency-Key': idempotencyKey } },
        // The server applies the defaults; see NewPost.
        body: body as CreatePostRequest,
      });
      if (result.data) remember(result.data.id, result.response, result.data);
      return { ...result, idempotencyKey };
    },
    async updatePost(id, patch, given) {
      const query = given?.autosave === true ? { autosave: true } : undefined;
      const result = await api.PATCH('/posts/{id}', { params: { path: { id }, header: ifMatch(id, given), query }, body: patch });
      track(id, result, true);
      return result;
    },
    async deletePost(id, given) {
      const result = await api.DELETE('/posts/{id}', { params: { path: { id }, header: ifMatch(id, given) } });
      track(id, result, true);
      return result;
    },
    async restoreRevision(id, version, given) {
      const result = await api.POST('/posts/{id}/revisions/{version}/restore', {
        params: { path: { id, version }, header: ifMatch(id, given) },
      });
      // A 404 here may be a missing revision of a post that exists.
      track(id, result, false);
      return result;
    },
    async exportSite(query = {}) {
      const { data, error, response } = await api.GET('/export', { params: { query }, parseAs: 'blob' });
      if (error !== undefined) return { error, response };
      return { data: { archive: data, filename: filenameOf(response) }, response };
    },
    importSite(archive, mode) {
      return api.POST('/import', {
        params: { query: { mode } },
        // The generated type of a binary body is a string; the archive goes as it is, not as JSON.
        body: archive as unknown as string,
        bodySerializer: (body) => body,
        headers: { 'Content-Type': 'application/zip' },
      });
    },
  };
}
