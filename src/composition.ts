import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createArgon2PasswordHasher } from './adapters/crypto/argon2-password-hasher.js';
import { createJoseAccessTokens } from './adapters/crypto/jose-access-tokens.js';
import { createRefreshTokenSecrets } from './adapters/crypto/refresh-token-secrets.js';
import { createApp, type RequestObserver } from './adapters/http/app.js';
import { API_ROOT, type Contract } from './adapters/http/contract.js';
import { createHandlers } from './adapters/http/handlers/index.js';
import { createUlidIds } from './adapters/system/ulid-ids.js';
import { AuthService } from './app/auth-service.js';
import { Housekeeping } from './app/housekeeping.js';
import { createPostUseCases } from './app/post-use-cases.js';
import { Readiness } from './app/readiness.js';
import { loadConfig, type Config, type ContentConfig, type ImportLimits } from './config.js';
import type { Clock, IdGenerator, PasswordHasher, Store } from './domain/index.js';
import type { Logger } from './log.js';
import { ADMIN_DIR, BUNDLE_FILE } from './paths.js';

export interface CompositionOptions {
  store: Store;
  contract: Contract;
  logger: Logger;
  clock: Clock;
  jwtSecret: Uint8Array;
  auth: Pick<
    Config['auth'],
    'issuer' | 'audience' | 'accessTokenTtlSeconds' | 'refreshTokenTtlSeconds' | 'refreshGraceSeconds' | 'loginThrottle'
  >;
  bodyLimitBytes: number;
  corsOrigins: string[];
  trustProxy: boolean;
  idempotency: Config['idempotency'];
  ids?: IdGenerator;
  hasher?: PasswordHasher;
  /** Rows per table a housekeeping round deletes (HOUSEKEEPING_BATCH_SIZE). */
  housekeepingBatchSize: number;
  /** Told of every answered request (the access log, metrics). */
  observers?: RequestObserver[];
  /** Defaults to one that pings the store (schema assumed current). */
  readiness?: Readiness;
  /** Serve the API reference at /api/v1/docs (default true). */
  docs?: boolean;
  /** The admin app's build to serve at /admin/; by default dist/admin/ when `make build` wrote it, false for none. */
  adminDir?: string | false;
  /** The public Content API's site, caching and rate limit (default: the defaults of `loadConfig`). */
  content?: ContentConfig;
  /** POST /import's limits (default: the defaults of `loadConfig`). */
  imports?: ImportLimits;
}

function dummyHash(hasher: PasswordHasher): Promise<string> {
  const hash = hasher.hash(randomBytes(16).toString('base64url'));
  hash.catch(() => undefined); // a failure surfaces at the login that awaits it
  return hash;
}

/** Services and the HTTP app over one store: what `main.ts` serves and what HTTP tests call. */
export async function compose(options: CompositionOptions) {
  const { store, clock } = options;
  const ids = options.ids ?? createUlidIds(clock);
  const hasher = options.hasher ?? createArgon2PasswordHasher();
  const accessTokens = createJoseAccessTokens({
    secret: options.jwtSecret,
    issuer: options.auth.issuer,
    audience: options.auth.audience,
    ttlSeconds: options.auth.accessTokenTtlSeconds,
  });
  const auth = new AuthService({
    users: store.users,
    refreshTokens: store.refreshTokens,
    loginAttempts: store.loginAttempts,
    unitOfWork: store.unitOfWork,
    refreshSecrets: createRefreshTokenSecrets(options.jwtSecret),
    hasher,
    accessTokens,
    clock,
    ids,
    refreshTtlSeconds: options.auth.refreshTokenTtlSeconds,
    refreshGraceSeconds: options.auth.refreshGraceSeconds,
    maxFailedLogins: options.auth.loginThrottle.maxFailures,
    maxFailedLoginsPerAddress: options.auth.loginThrottle.maxFailuresPerAddress,
    loginWindowSeconds: options.auth.loginThrottle.windowSeconds,
    // Verified when the email is unknown, so that both failures cost one argon2id verify. Hashed
    // on the libuv pool while the server starts, not before it listens.
    dummyHash: dummyHash(hasher),
  });
  const posts = createPostUseCases({
    store,
    clock,
    ids,
    idempotency: { leaseMs: options.idempotency.leaseSeconds * 1000, ttlMs: options.idempotency.ttlSeconds * 1000 },
  });
  const readiness = options.readiness ?? new Readiness({ store, clock });
  const content = options.content ?? loadConfig({}).content;
  const imports = options.imports ?? loadConfig({}).imports;
  const adminDir = options.adminDir ?? (existsSync(join(ADMIN_DIR, 'index.html')) ? ADMIN_DIR : false);
  const app = createApp({
    contract: options.contract,
    handlers: createHandlers({
      store,
      auth,
      posts,
      readiness,
      clock,
      content: {
        site: {
          siteUrl: content.siteUrl,
          postPath: content.postPath,
          title: content.siteTitle,
          contentApiUrl: `${content.apiUrl}${API_ROOT}/content`,
        },
        cache: { maxAgeSeconds: content.maxAgeSeconds, staleWhileRevalidateSeconds: content.staleWhileRevalidateSeconds },
      },
      imports: { limits: imports, maxFileBytes: options.bodyLimitBytes, contract: options.contract },
    }),
    contentRateLimitPerMinute: content.rateLimitPerMinute,
    observers: options.observers ?? [],
    ...(options.docs === false ? {} : { docsBundle: readFileSync(BUNDLE_FILE, 'utf8') }),
    ...(adminDir === false ? {} : { adminDir }),
    admit: () => readiness.admit(),
    // The claims are the principal (same fields, frozen by the token adapter): no copy per request.
    authenticate: (token) => auth.authenticate(token),
    logger: options.logger,
    bodyLimitBytes: options.bodyLimitBytes,
    importLimitBytes: imports.limitBytes,
    corsOrigins: options.corsOrigins,
    trustProxy: options.trustProxy,
  });
  const housekeeping = new Housekeeping({
    unitOfWork: store.unitOfWork,
    clock,
    batchSize: options.housekeepingBatchSize,
    loginWindowSeconds: options.auth.loginThrottle.windowSeconds,
    refreshGraceSeconds: options.auth.refreshGraceSeconds,
  });
  /** The admin app's path, when it is served. */
  const adminPath = adminDir === false ? null : '/admin/';
  return { app, auth, posts, hasher, ids, housekeeping, readiness, adminPath };
}
