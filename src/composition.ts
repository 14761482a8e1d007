import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createArgon2PasswordHasher } from './adapters/crypto/argon2-password-hasher.js';
import { createJoseAccessTokens } from './adapters/crypto/jose-access-tokens.js';
import { createRandomTokens, createRefreshTokenSecrets } from './adapters/crypto/refresh-token-secrets.js';
import { createWebhookSigner } from './adapters/crypto/webhook-signer.js';
import { createApp, type RequestObserver } from './adapters/http/app.js';
import { API_ROOT, type Contract } from './adapters/http/contract.js';
import { contentPostPresenter } from './adapters/http/content/posts.js';
import { createHandlers } from './adapters/http/handlers/index.js';
import { createSharpImageProcessor } from './adapters/images/sharp-image-processor.js';
import { randomIds } from './adapters/system/random-ids.js';
import { createUlidIds } from './adapters/system/ulid-ids.js';
import { createHttpWebhookTransport } from './adapters/webhooks/http-transport.js';
import { AuthService } from './app/auth-service.js';
import { FINISHED_HISTORY_KEEP_SECONDS, Housekeeping, ORPHAN_BLOB_GRACE_SECONDS } from './app/housekeeping.js';
import type { MediaDeps } from './app/media.js';
import { MediaFileCache } from './app/media-file-cache.js';
import { createPostUseCases } from './app/post-use-cases.js';
import { Readiness } from './app/readiness.js';
import { SharedRateLimit } from './app/shared-rate-limit.js';
import { WebhookDeliveryWorker } from './app/webhook-delivery.js';
import type { Config } from './config.js';
import type { Clock, IdGenerator, ImageProcessor, PasswordHasher, Store, WebhookSigner, WebhookTransport } from './domain/index.js';
import type { Logger } from './log.js';
import { ADMIN_DIR, BUNDLE_FILE } from './paths.js';

/**
 * The slices of the configuration that `compose` reads, as `loadConfig` makes them: `server.ts`
 * passes its `Config`, tests one of their own.
 */
export interface ComposedConfig extends Pick<
  Config,
  'port' | 'bodyLimitBytes' | 'corsOrigins' | 'trustProxy' | 'idempotency' | 'content' | 'imports' | 'media' | 'webhooks'
> {
  auth: Pick<
    Config['auth'],
    'issuer' | 'audience' | 'accessTokenTtlSeconds' | 'refreshTokenTtlSeconds' | 'refreshGraceSeconds' | 'loginThrottle'
  >;
  /** Rows per table a housekeeping round deletes (HOUSEKEEPING_BATCH_SIZE). */
  housekeeping: Pick<Config['housekeeping'], 'batchSize'>;
}

export interface CompositionOptions {
  store: Store;
  contract: Contract;
  logger: Logger;
  clock: Clock;
  jwtSecret: Uint8Array;
  config: ComposedConfig;
  ids?: IdGenerator;
  hasher?: PasswordHasher;
  /** Reads uploaded images; by default sharp with the configured limits (MEDIA_MAX_BYTES, …). */
  images?: ImageProcessor;
  /** Told of every answered request (the access log, metrics). */
  observers?: RequestObserver[];
  /** Defaults to one that pings the store (schema assumed current). */
  readiness?: Readiness;
  /** Serve the API reference at /api/v1/docs (default true). */
  docs?: boolean;
  /** The admin app's build to serve at /admin/; by default dist/admin/ when `make build` wrote it, false for none. */
  adminDir?: string | false;
  /** Sends webhooks and says which URLs may receive them; by default over HTTP as `config.webhooks` says. */
  webhookTransport?: WebhookTransport;
  /** Signs webhooks and makes their secrets; by default Standard Webhooks' HMAC-SHA256. */
  webhookSigner?: WebhookSigner;
  /** Where image uploads are written as they arrive (removed once answered); by default the OS's temporary folder (TMPDIR). */
  uploadDir?: string;
}

/**
 * The bytes of served media files each process keeps (32 MiB: some 300 variants of 100 KB); the
 * database read of a file's bytes cost more than the rest of its request (bench/NOTES.md).
 */
const MEDIA_FILE_CACHE_BYTES = 32 * 1024 * 1024;

function dummyHash(hasher: PasswordHasher): Promise<string> {
  const hash = hasher.hash(randomBytes(16).toString('base64url'));
  hash.catch(() => undefined); // a failure surfaces at the login that awaits it
  return hash;
}

/** Services and the HTTP app over one store: what `main.ts` serves and what HTTP tests call. */
export async function compose(options: CompositionOptions) {
  const { store, clock, config } = options;
  const ids = options.ids ?? createUlidIds(clock);
  const hasher = options.hasher ?? createArgon2PasswordHasher();
  const auth = authServiceOf(options, hasher, ids);
  const posts = createPostUseCases({
    store,
    clock,
    ids,
    idempotency: { leaseMs: config.idempotency.leaseSeconds * 1000, ttlMs: config.idempotency.ttlSeconds * 1000 },
  });
  // Media ids are unguessable (the URL of a public file is its only secret), unlike the ULIDs of posts.
  const media: MediaDeps = {
    media: store.media,
    blobs: store.blobs,
    images: options.images ?? createSharpImageProcessor(config.media),
    ids: randomIds(),
    clock,
    // Embedded PGlite has one process (its data folder is locked): its cache needs no record read.
    files: new MediaFileCache(MEDIA_FILE_CACHE_BYTES, store.kind === 'pglite'),
  };
  const webhookTransport =
    options.webhookTransport ??
    createHttpWebhookTransport({ allowPrivateNetworks: config.webhooks.allowPrivateNetworks, timeoutMs: config.webhooks.timeoutMs });
  const webhookSigner = options.webhookSigner ?? createWebhookSigner();
  const readiness = options.readiness ?? new Readiness({ store, clock });
  const adminDir = options.adminDir ?? (existsSync(join(ADMIN_DIR, 'index.html')) ? ADMIN_DIR : false);
  const { content, imports } = config;
  // What a webhook sends is made with no request: without PUBLIC_API_URL its links name localhost.
  const webhookContentApiUrl = `${content.apiUrl ?? `http://localhost:${config.port}`}${API_ROOT}/content`;
  const contentRateLimit = contentRateLimitOf(options);
  const app = createApp({
    contract: options.contract,
    handlers: createHandlers({
      store,
      auth,
      posts,
      media,
      readiness,
      clock,
      content: {
        site: {
          siteUrl: content.siteUrl,
          postPath: content.postPath,
          title: content.siteTitle,
        },
        apiUrl: content.apiUrl,
        cache: { maxAgeSeconds: content.maxAgeSeconds, staleWhileRevalidateSeconds: content.staleWhileRevalidateSeconds },
      },
      imports: {
        limits: imports,
        maxFileBytes: config.bodyLimitBytes,
        maxImageBytes: config.media.maxBytes,
        imageLimits: { images: imports.maxImages, pixels: imports.maxImagePixels },
        contract: options.contract,
      },
      webhooks: {
        webhooks: store.webhooks,
        refusal: (url) => webhookTransport.refusal(url),
        newSecret: () => webhookSigner.newSecret(),
        ids,
        clock,
      },
      previewLinks: { links: store.previewLinks, posts: store.posts, tokens: createRandomTokens(), ids, clock },
      previewUrlTemplate: content.previewUrlTemplate,
    }),
    ...(contentRateLimit === null
      ? {}
      : { contentRateLimit: { perMinute: content.rateLimitPerMinute, limiter: contentRateLimit, now: () => clock.now() } }),
    observers: options.observers ?? [],
    ...(options.docs === false ? {} : { docsBundle: readFileSync(BUNDLE_FILE, 'utf8') }),
    // The origin as URL serialises it (scheme, host, port): nothing in it can end the CSP directive.
    // Without PUBLIC_API_URL the media are the page's own origin ('self').
    ...(adminDir === false ? {} : { adminDir, ...(content.apiUrl === null ? {} : { mediaOrigin: new URL(content.apiUrl).origin }) }),
    admit: () => readiness.admit(),
    // The claims are the principal (same fields, frozen by the token adapter): no copy per request.
    authenticate: (token) => auth.authenticate(token),
    logger: options.logger,
    bodyLimitBytes: config.bodyLimitBytes,
    importLimitBytes: imports.limitBytes,
    imageMaxBytes: config.media.maxBytes,
    ...(options.uploadDir === undefined ? {} : { uploadDir: options.uploadDir }),
    corsOrigins: config.corsOrigins,
    trustProxy: config.trustProxy,
  });
  const housekeeping = new Housekeeping({
    unitOfWork: store.unitOfWork,
    clock,
    batchSize: config.housekeeping.batchSize,
    loginWindowSeconds: config.auth.loginThrottle.windowSeconds,
    refreshGraceSeconds: config.auth.refreshGraceSeconds,
    orphanBlobs: { media: store.media, blobs: store.blobs, graceSeconds: ORPHAN_BLOB_GRACE_SECONDS },
    history: { webhooks: store.webhooks, previewLinks: store.previewLinks, keepSeconds: FINISHED_HISTORY_KEEP_SECONDS },
  });
  // Started by server.ts (WEBHOOK_POLL_MS), in every server process.
  const webhookDelivery = new WebhookDeliveryWorker({
    webhooks: store.webhooks,
    transport: webhookTransport,
    signer: webhookSigner,
    clock,
    presentPost: contentPostPresenter((ids) => posts.content.media(ids), webhookContentApiUrl),
    timeoutMs: config.webhooks.timeoutMs,
    retrySchedule: config.webhooks.retryScheduleMs,
    log: options.logger,
  });
  /** The admin app's path, when it is served. */
  const adminPath = adminDir === false ? null : '/admin/';
  // `contentRateLimit` sends its last counts at `close()`, on shutdown.
  return { app, auth, posts, contentRateLimit, media, hasher, ids, housekeeping, readiness, adminPath, webhookDelivery };
}

/** The Content API's limit per client address and minute (CONTENT_RATE_LIMIT_PER_MINUTE), shared through the store; null when off. */
function contentRateLimitOf({ store, clock, config, logger }: CompositionOptions): SharedRateLimit | null {
  const perMinute = config.content.rateLimitPerMinute;
  if (perMinute <= 0) return null;
  return new SharedRateLimit({
    counter: store.rateLimits,
    limit: perMinute,
    windowMs: 60_000,
    now: () => clock.now(),
    onFlushError: (error) =>
      logger.warn('the Content API rate limit cannot count in the database; requests pass uncounted until it can', { error }),
  });
}

function authServiceOf({ store, clock, jwtSecret, config }: CompositionOptions, hasher: PasswordHasher, ids: IdGenerator): AuthService {
  const accessTokens = createJoseAccessTokens({
    secret: jwtSecret,
    issuer: config.auth.issuer,
    audience: config.auth.audience,
    ttlSeconds: config.auth.accessTokenTtlSeconds,
  });
  return new AuthService({
    users: store.users,
    refreshTokens: store.refreshTokens,
    loginAttempts: store.loginAttempts,
    unitOfWork: store.unitOfWork,
    refreshSecrets: createRefreshTokenSecrets(jwtSecret),
    hasher,
    accessTokens,
    clock,
    ids,
    refreshTtlSeconds: config.auth.refreshTokenTtlSeconds,
    refreshGraceSeconds: config.auth.refreshGraceSeconds,
    maxFailedLogins: config.auth.loginThrottle.maxFailures,
    maxFailedLoginsPerAddress: config.auth.loginThrottle.maxFailuresPerAddress,
    loginWindowSeconds: config.auth.loginThrottle.windowSeconds,
    // Verified when the email is unknown, so that both failures cost one argon2id verify. Hashed
    // on the libuv pool while the server starts, not before it listens.
    dummyHash: dummyHash(hasher),
  });
}
