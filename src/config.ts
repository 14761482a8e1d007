import { passwordProblem } from './domain/index.js';
import type { LogLevel } from './log.js';
import { DatabaseUrlError, parseDatabaseUrl } from './database-url.js';
import { maskUrl } from './mask-url.js';

export interface Config {
  host: string;
  port: number;
  logLevel: LogLevel;
  /** One JSON line per request at `info` (ACCESS_LOG). */
  accessLog: boolean;
  /** Prometheus `/metrics` on a listener of its own; null: off. */
  metrics: { host: string; port: number } | null;
  shutdown: {
    /** After SIGTERM, seconds of answering not ready (while still serving) before the listener closes. */
    delaySeconds: number;
    /** Longest wait for requests in flight once the listener is closed; then they are cut and the process exits 1. */
    timeoutSeconds: number;
  };
  /** How long a client may take to send its request (then 408 and the connection closed). */
  requestTimeouts: RequestTimeoutsConfig;
  /** Request bodies over this many bytes are answered 413; also the largest file an import reads. */
  bodyLimitBytes: number;
  /** POST /import: the largest archive (413 above), the most entries and inflated bytes it may hold, the images it may decode. */
  imports: ImportLimits;
  /** Image uploads (POST /media): the largest, the most pixels, and how many are decoded at once. */
  media: MediaLimits;
  /** Origins allowed by CORS; empty allows none. */
  corsOrigins: string[];
  /** Take the client address from X-Forwarded-For (behind a trusted proxy only). */
  trustProxy: boolean;
  auth: {
    /** Required outside the embedded default, which generates one under its data directory. */
    jwtSecret: string | null;
    issuer: string;
    audience: string;
    accessTokenTtlSeconds: number;
    refreshTokenTtlSeconds: number;
    refreshGraceSeconds: number;
    /** The first start of the embedded default creates this admin (else a random password is printed). */
    adminEmail: string | null;
    adminPassword: string | null;
    loginThrottle: LoginThrottleConfig;
  };
  idempotency: {
    /** How long an Idempotency-Key's answer is kept. */
    ttlSeconds: number;
    /** How long a claimed key holds while its request runs; then a retry may take it over. */
    leaseSeconds: number;
  };
  housekeeping: HousekeepingConfig;
  content: ContentConfig;
  /** Seconds between runs of the job that publishes due scheduled drafts; 0 runs none in this process. */
  publishIntervalSeconds: number;
  webhooks: WebhooksConfig;
  database:
    | { kind: 'pglite'; dataDir: string }
    | {
        kind: 'postgres';
        url: string;
        poolSize: number;
        /** Auto-commit statements pipelined per connection. */
        pipelineDepth: number;
        /** Longest wait for a free pool connection before a 503. */
        acquireTimeoutMs: number;
        connectTimeoutSeconds: number;
        idleTimeoutSeconds: number;
        statementTimeoutMs: number;
      };
}

/** Failed logins allowed within the window, per account and per client address, before a 429. */
interface LoginThrottleConfig {
  maxFailures: number;
  maxFailuresPerAddress: number;
  windowSeconds: number;
}

/** See `RequestTimeouts` in the HTTP adapter (node-server.ts). */
interface RequestTimeoutsConfig {
  headersMs: number;
  requestMs: number;
  bodyWindowMs: number;
  bodyMinBytesPerSecond: number;
}

export interface ImportLimits {
  limitBytes: number;
  maxEntries: number;
  maxInflatedBytes: number;
  /** The most images one import decodes (stores), and the most pixels (from their headers) together; an image beyond is skipped. */
  maxImages: number;
  maxImagePixels: number;
}

interface MediaLimits {
  /** The largest image an upload may be, in bytes (413 above); also POST /media's body limit, with room for a form's parts. */
  maxBytes: number;
  /** The most pixels an image's header may declare (width × height); more is refused before it is decoded. */
  maxPixels: number;
  /** Images decoded at once in this process; the others wait their turn (first come, first served). */
  concurrency: number;
}

export interface HousekeepingConfig {
  /** Seconds between runs in the server; 0 runs none (then `make purge` from cron). */
  intervalSeconds: number;
  /** Rows per table deleted in one transaction. */
  batchSize: number;
}

/** Webhook delivery: which targets may receive them, how long an attempt may take, when to retry. */
interface WebhooksConfig {
  /** Allow loopback, private and other non-public targets (self-hosted receivers, tests). */
  allowPrivateNetworks: boolean;
  /** One deadline per attempt: resolving, connecting and the response's headers. */
  timeoutMs: number;
  /** The pauses after each failed attempt; one more attempt than pauses, then the subscription is disabled. */
  retryScheduleMs: number[];
  /** Milliseconds between this process's looks at the outbox; 0: this process delivers none. */
  pollMs: number;
}

/** The public Content API: where readers find posts, and how its answers are cached and limited. */
export interface ContentConfig {
  /** The blog's address, no trailing slash (PUBLIC_SITE_URL). */
  siteUrl: string;
  /** Path of a post page with `{slug}` (PUBLIC_POST_PATH). */
  postPath: string;
  /**
   * This API's public address, no trailing slash (PUBLIC_API_URL): the media files', previews' and
   * feeds' links start there. Null when unset: each request's own origin (what a webhook sends,
   * made with no request, says http://localhost:PORT).
   */
  apiUrl: string | null;
  /**
   * Where a reviewer opens a preview link, with `{token}` (PREVIEW_URL_TEMPLATE): the site's own
   * frontend, e.g. https://blog.example.com/preview/{token}; null: the Content API's own page.
   */
  previewUrlTemplate: string | null;
  siteTitle: string;
  maxAgeSeconds: number;
  staleWhileRevalidateSeconds: number;
  /** Content requests per client address per minute, in each process; 0: no limit. */
  rateLimitPerMinute: number;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Every variable the server reads, with its default and meaning (mirrored in `.env.example`). */
export const ENV_VARIABLES = {
  HOST: { default: '127.0.0.1', doc: 'Interface to listen on.' },
  PORT: { default: '8080', doc: 'Port to listen on.' },
  LOG_LEVEL: { default: 'info', doc: 'debug | info | warn | error | silent.' },
  ACCESS_LOG: {
    default: 'true',
    doc: 'true: one JSON line per request at info (request id, method, route, operationId, status, duration, user id, client address).',
  },
  METRICS_PORT: { default: '', doc: 'Port of a separate listener serving Prometheus GET /metrics; empty: no metrics.' },
  METRICS_HOST: { default: '127.0.0.1', doc: 'Interface of the metrics listener (keep it private).' },
  SHUTDOWN_DELAY_SECONDS: {
    default: '0',
    doc: 'After SIGTERM, answer /readyz 503 for this long while still serving, so load balancers stop sending first.',
  },
  SHUTDOWN_TIMEOUT_SECONDS: {
    default: '10',
    doc: 'Longest wait for requests in flight at shutdown; then they are cut and the exit code is 1.',
  },
  HTTP_HEADERS_TIMEOUT_SECONDS: { default: '20', doc: 'A request whose headers take longer is answered 408 and its connection closed.' },
  HTTP_REQUEST_TIMEOUT_SECONDS: {
    default: '900',
    doc: 'A request (headers and body) that takes longer to arrive is answered 408: 64 MiB needs 75 KB/s.',
  },
  HTTP_BODY_WINDOW_SECONDS: {
    default: '20',
    doc: 'A body that brings less than HTTP_BODY_MIN_BYTES_PER_SECOND over a window this long (stalled or trickling) is answered 408.',
  },
  HTTP_BODY_MIN_BYTES_PER_SECOND: {
    default: '1024',
    doc: 'The slowest a request body may arrive, averaged over HTTP_BODY_WINDOW_SECONDS; 0: no such rule.',
  },
  BODY_LIMIT_BYTES: {
    default: '1048576',
    doc: 'Largest accepted request body; larger is a 413. Also the largest markdown file an import reads.',
  },
  IMPORT_LIMIT_BYTES: { default: '67108864', doc: 'Largest zip POST /import accepts (64 MiB); larger is a 413.' },
  IMPORT_MAX_ENTRIES: { default: '50000', doc: 'Most entries (files and folders) an imported zip may hold; more is refused.' },
  IMPORT_MAX_INFLATED_BYTES: {
    default: '268435456',
    doc: 'Most bytes the files of an imported zip may inflate to together (256 MiB); more is refused.',
  },
  IMPORT_MAX_IMAGES: { default: '200', doc: 'Most images one import decodes and stores; the images beyond are skipped (image_limit).' },
  IMPORT_MAX_IMAGE_PIXELS: {
    default: '1000000000',
    doc: 'Most pixels (from their headers) the images one import decodes may have together (1 GP); the images beyond are skipped.',
  },
  MEDIA_MAX_BYTES: {
    default: '20971520',
    doc: 'Largest image POST /media accepts (20 MiB); larger is a 413. Also the largest image an import reads.',
  },
  MEDIA_MAX_PIXELS: {
    default: '50000000',
    doc: 'Most pixels (width × height) an uploaded image may declare (50 MP); more is refused with a 422 before it is decoded.',
  },
  MEDIA_CONCURRENCY: { default: '2', doc: 'Images decoded and resized at once per process; further uploads wait their turn.' },
  DATABASE_URL: { default: '', doc: 'postgres://… to use PostgreSQL; empty for embedded PGlite.' },
  DATA_DIR: { default: '.data', doc: 'Where embedded PGlite keeps its files (no DATABASE_URL).' },
  DB_POOL_SIZE: { default: '10', doc: 'PostgreSQL connections in the pool.' },
  DB_PIPELINE_DEPTH: { default: '4', doc: 'Statements in flight per connection outside transactions (1: one each).' },
  DB_ACQUIRE_TIMEOUT_MS: { default: '2000', doc: 'Longest wait for a free pool connection; then 503 with Retry-After.' },
  DB_CONNECT_TIMEOUT_SECONDS: { default: '5', doc: 'Seconds to open a PostgreSQL connection.' },
  DB_IDLE_TIMEOUT_SECONDS: { default: '30', doc: 'Seconds before an idle connection is closed.' },
  DB_STATEMENT_TIMEOUT_MS: { default: '5000', doc: 'Server-side statement_timeout.' },
  CORS_ORIGINS: { default: '', doc: 'Comma-separated origins allowed by CORS.' },
  TRUST_PROXY: { default: 'false', doc: 'true behind a proxy that sets X-Forwarded-For.' },
  JWT_SECRET: { default: '', doc: 'HS256 secret, at least 32 bytes; required with DATABASE_URL.' },
  JWT_ISSUER: { default: 'margin-cms', doc: 'iss of access tokens.' },
  JWT_AUDIENCE: { default: 'margin-cms-api', doc: 'aud of access tokens.' },
  ACCESS_TOKEN_TTL_SECONDS: { default: '900', doc: 'Access token lifetime.' },
  REFRESH_TOKEN_TTL_SECONDS: { default: '2592000', doc: 'Refresh token lifetime (30 days).' },
  REFRESH_GRACE_SECONDS: { default: '10', doc: 'A refresh retried within this window replays its answer.' },
  ADMIN_EMAIL: { default: '', doc: 'First start of the embedded default: the admin to create.' },
  ADMIN_PASSWORD: { default: '', doc: 'First start of the embedded default: its password (else one is generated and printed once).' },
  LOGIN_MAX_FAILURES: {
    default: '5',
    doc: 'Failed logins per account within LOGIN_WINDOW_SECONDS, across every address that never logged in to it, before a 429 (an address that did has its own count).',
  },
  LOGIN_MAX_FAILURES_PER_ADDRESS: {
    default: '20',
    doc: 'Failed logins per client address (IPv6: per /64), whatever the account, within LOGIN_WINDOW_SECONDS before a 429.',
  },
  LOGIN_WINDOW_SECONDS: { default: '900', doc: 'The login throttle window; failures older than it are purged.' },
  IDEMPOTENCY_TTL_SECONDS: { default: '86400', doc: 'How long an Idempotency-Key answer is kept.' },
  IDEMPOTENCY_LEASE_SECONDS: {
    default: '30',
    doc: 'How long a claimed Idempotency-Key holds while its request runs; then a retry may take it over.',
  },
  HOUSEKEEPING_INTERVAL_SECONDS: {
    default: '3600',
    doc: 'Seconds between purges of expired keys, old login failures, spent tokens and media files no media names; 0: none.',
  },
  HOUSEKEEPING_BATCH_SIZE: { default: '1000', doc: 'Rows per table a purge deletes in one transaction.' },
  PUBLISH_INTERVAL_SECONDS: {
    default: '10',
    doc: 'Seconds between runs of the job that publishes due scheduled drafts (once across processes); 0: none in this process.',
  },
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: {
    default: 'false',
    doc: 'true: webhooks may go to loopback, private and link-local addresses (a receiver on this machine or network); false: public addresses only.',
  },
  WEBHOOK_TIMEOUT_MS: { default: '10000', doc: 'How long one webhook attempt may take to connect and get the response headers.' },
  WEBHOOK_RETRY_SCHEDULE: {
    default: '5s,5m,30m,2h,5h,10h,10h',
    doc: 'Pauses after each failed webhook attempt (ms, s, m, h, d), each lengthened by 0 to 20 % (jitter); after the last the subscription is disabled.',
  },
  WEBHOOK_POLL_MS: {
    default: '1000',
    doc: 'Milliseconds between looks at the webhook outbox in each process; 0: this process delivers none.',
  },
  PUBLIC_SITE_URL: { default: 'http://localhost:3000', doc: "The blog's public address: feeds and the sitemap link to posts there." },
  PUBLIC_POST_PATH: { default: '/blog/{slug}', doc: 'Path of a post page on the blog, with {slug}.' },
  PUBLIC_API_URL: {
    default: '',
    doc: "This API's public address, for the media files', previews' and feeds' links; empty: each request's own origin (webhooks: http://localhost:PORT).",
  },
  SITE_TITLE: { default: 'MarginCMS blog', doc: 'Title of the feeds and of the preview page.' },
  PREVIEW_URL_TEMPLATE: {
    default: '',
    doc: "Where a new preview link sends a reviewer, an absolute http(s) URL with {token}, e.g. https://blog.example.com/preview/{token} (the site's frontend renders it from the Content API); empty: the API's own readable page.",
  },
  CONTENT_MAX_AGE_SECONDS: { default: '60', doc: 'Cache-Control max-age of Content API answers.' },
  CONTENT_STALE_WHILE_REVALIDATE_SECONDS: { default: '300', doc: 'Cache-Control stale-while-revalidate of Content API answers.' },
  CONTENT_RATE_LIMIT_PER_MINUTE: {
    default: '600',
    doc: 'Content API requests per client address per minute, counted in the database across processes (429 beyond); 0: no limit.',
  },
} as const;

type Env = Record<string, string | undefined>;

/**
 * Reads the environment once, purely: every variable is parsed and every bad value reported
 * together in one `ConfigError`.
 */
export function loadConfig(env: Env): Config {
  const problems: string[] = [];
  const { read, integer, boolean } = readers(env, problems);

  const logLevel = read('LOG_LEVEL');
  if (!['debug', 'info', 'warn', 'error', 'silent'].includes(logLevel)) {
    problems.push(`LOG_LEVEL must be one of debug, info, warn, error, silent (got "${logLevel}")`);
  }
  const host = read('HOST');
  const port = integer('PORT', 0, 65535);
  const bodyLimitBytes = integer('BODY_LIMIT_BYTES', 1024, 100 * 1024 * 1024);
  const requestTimeouts = {
    headersMs: integer('HTTP_HEADERS_TIMEOUT_SECONDS', 1, 3600) * 1000,
    requestMs: integer('HTTP_REQUEST_TIMEOUT_SECONDS', 1, 86400) * 1000,
    bodyWindowMs: integer('HTTP_BODY_WINDOW_SECONDS', 1, 3600) * 1000,
    bodyMinBytesPerSecond: integer('HTTP_BODY_MIN_BYTES_PER_SECOND', 0, 100 * 1024 * 1024),
  };
  if (requestTimeouts.headersMs > requestTimeouts.requestMs) {
    problems.push('HTTP_HEADERS_TIMEOUT_SECONDS must not exceed HTTP_REQUEST_TIMEOUT_SECONDS');
  }
  const imports = {
    limitBytes: integer('IMPORT_LIMIT_BYTES', 1024, 2 * 1024 * 1024 * 1024),
    maxEntries: integer('IMPORT_MAX_ENTRIES', 1, 1_000_000),
    maxInflatedBytes: integer('IMPORT_MAX_INFLATED_BYTES', 1024, 16 * 1024 * 1024 * 1024),
    maxImages: integer('IMPORT_MAX_IMAGES', 0, 1_000_000),
    maxImagePixels: integer('IMPORT_MAX_IMAGE_PIXELS', 0, 1_000_000_000_000),
  };
  const media = {
    maxBytes: integer('MEDIA_MAX_BYTES', 1024, 1024 * 1024 * 1024),
    maxPixels: integer('MEDIA_MAX_PIXELS', 1, 1_000_000_000),
    concurrency: integer('MEDIA_CONCURRENCY', 1, 64),
  };
  const accessLog = boolean('ACCESS_LOG');
  const metricsPort = read('METRICS_PORT');
  let metrics: Config['metrics'] = null;
  if (metricsPort !== '') {
    const port = integer('METRICS_PORT', 1, 65535);
    metrics = { host: read('METRICS_HOST'), port };
    if (metricsPort === read('PORT') && metrics.host === host) problems.push('METRICS_PORT must differ from PORT');
  }
  const shutdown = {
    delaySeconds: integer('SHUTDOWN_DELAY_SECONDS', 0, 300),
    timeoutSeconds: integer('SHUTDOWN_TIMEOUT_SECONDS', 1, 3600),
  };

  const accessTokenTtlSeconds = integer('ACCESS_TOKEN_TTL_SECONDS', 60, 86400);
  const refreshTokenTtlSeconds = integer('REFRESH_TOKEN_TTL_SECONDS', 300, 365 * 86400);
  const refreshGraceSeconds = integer('REFRESH_GRACE_SECONDS', 0, 300);
  const idempotency = {
    ttlSeconds: integer('IDEMPOTENCY_TTL_SECONDS', 60, 30 * 86400),
    leaseSeconds: integer('IDEMPOTENCY_LEASE_SECONDS', 1, 3600),
  };
  const loginThrottle = readLoginThrottle(integer);
  const housekeeping = readHousekeeping(integer);
  const publishIntervalSeconds = integer('PUBLISH_INTERVAL_SECONDS', 0, 86400);
  const webhooks = readWebhooks(read, integer, boolean, problems);
  const content = readContent(read, integer, problems);
  const trustProxy = boolean('TRUST_PROXY');
  const corsOrigins = read('CORS_ORIGINS')
    .split(',')
    .map((o) => o.trim())
    .filter((o) => o !== '');
  for (const origin of corsOrigins) {
    if (!/^https?:\/\/[^/\s]+$/.test(origin))
      problems.push(`CORS_ORIGINS entries must be origins like https://blog.example.com (got "${origin}")`);
  }
  const jwtSecret = read('JWT_SECRET');
  if (jwtSecret !== '' && Buffer.byteLength(jwtSecret, 'utf8') < 32) {
    problems.push(`JWT_SECRET must be at least 32 bytes (got ${Buffer.byteLength(jwtSecret, 'utf8')})`);
  }
  const adminEmail = read('ADMIN_EMAIL');
  const adminPassword = env.ADMIN_PASSWORD ?? '';
  if ((adminEmail === '') !== (adminPassword === '')) problems.push('ADMIN_EMAIL and ADMIN_PASSWORD go together: set both or neither');
  const adminPasswordProblem = adminPassword === '' ? null : passwordProblem(adminPassword);
  if (adminPasswordProblem !== null) problems.push(`ADMIN_PASSWORD ${adminPasswordProblem}`);

  const database = readDatabase(read, integer, problems);
  if (database.kind === 'postgres' && jwtSecret === '') {
    problems.push('JWT_SECRET is required with DATABASE_URL (at least 32 bytes, e.g. `openssl rand -base64 48`)');
  }

  if (problems.length > 0) throw new ConfigError(problems);
  return {
    host,
    port,
    logLevel: logLevel as LogLevel,
    accessLog,
    metrics,
    shutdown,
    requestTimeouts,
    bodyLimitBytes,
    imports,
    media,
    corsOrigins,
    trustProxy,
    auth: {
      jwtSecret: jwtSecret === '' ? null : jwtSecret,
      issuer: read('JWT_ISSUER'),
      audience: read('JWT_AUDIENCE'),
      accessTokenTtlSeconds,
      refreshTokenTtlSeconds,
      refreshGraceSeconds,
      adminEmail: adminEmail === '' ? null : adminEmail,
      adminPassword: adminPassword === '' ? null : adminPassword,
      loginThrottle,
    },
    idempotency,
    housekeeping,
    content,
    publishIntervalSeconds,
    webhooks,
    database,
  };
}

const DURATION_UNITS_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

function readWebhooks(read: Read, integer: Integer, boolean: Bool, problems: string[]): WebhooksConfig {
  const raw = read('WEBHOOK_RETRY_SCHEDULE');
  const retryScheduleMs = raw.split(',').map((part) => {
    const match = /^(\d+)(ms|s|m|h|d)$/.exec(part.trim());
    const ms = match ? Number(match[1]) * DURATION_UNITS_MS[match[2] as keyof typeof DURATION_UNITS_MS] : NaN;
    return ms >= 1 && ms <= 7 * 86_400_000 ? ms : NaN;
  });
  if (retryScheduleMs.some(Number.isNaN) || retryScheduleMs.length > 50) {
    problems.push(`WEBHOOK_RETRY_SCHEDULE must be up to 50 comma-separated durations of 1 ms to 7 days like 5s,5m,30m,2h (got "${raw}")`);
  }
  return {
    allowPrivateNetworks: boolean('WEBHOOK_ALLOW_PRIVATE_NETWORKS'),
    timeoutMs: integer('WEBHOOK_TIMEOUT_MS', 100, 120_000),
    retryScheduleMs: retryScheduleMs.filter((ms) => !Number.isNaN(ms)),
    pollMs: integer('WEBHOOK_POLL_MS', 0, 3_600_000),
  };
}

function readContent(read: Read, integer: Integer, problems: string[]): ContentConfig {
  const absolute = (name: 'PUBLIC_SITE_URL' | 'PUBLIC_API_URL', value: string): string => {
    let url: URL | null = null;
    try {
      url = new URL(value);
    } catch {
      // reported below
    }
    if (url === null || !['http:', 'https:'].includes(url.protocol) || url.search !== '' || url.hash !== '') {
      problems.push(`${name} must be an absolute http(s) URL without query or fragment (got "${value}")`);
      return value;
    }
    return value.replace(/\/+$/, '');
  };
  const postPath = read('PUBLIC_POST_PATH');
  if (!postPath.startsWith('/') || !postPath.includes('{slug}') || /[\s?#]/.test(postPath)) {
    problems.push(`PUBLIC_POST_PATH must be a path starting with / and containing {slug} (got "${postPath}")`);
  }
  const apiUrl = read('PUBLIC_API_URL');
  const previewUrlTemplate = read('PREVIEW_URL_TEMPLATE');
  if (previewUrlTemplate !== '') {
    const problem = previewUrlTemplateProblem(previewUrlTemplate);
    if (problem !== null) problems.push(`PREVIEW_URL_TEMPLATE ${problem} (got "${previewUrlTemplate}")`);
  }
  return {
    siteUrl: absolute('PUBLIC_SITE_URL', read('PUBLIC_SITE_URL')),
    postPath,
    apiUrl: apiUrl === '' ? null : absolute('PUBLIC_API_URL', apiUrl),
    previewUrlTemplate: previewUrlTemplate === '' ? null : previewUrlTemplate,
    siteTitle: read('SITE_TITLE'),
    maxAgeSeconds: integer('CONTENT_MAX_AGE_SECONDS', 0, 31_536_000),
    staleWhileRevalidateSeconds: integer('CONTENT_STALE_WHILE_REVALIDATE_SECONDS', 0, 31_536_000),
    rateLimitPerMinute: integer('CONTENT_RATE_LIMIT_PER_MINUTE', 0, 1_000_000),
  };
}

/**
 * What is wrong with a PREVIEW_URL_TEMPLATE, or null: it must hold `{token}` once and no other
 * `{…}`, and be an absolute http(s) URL once a token (base64url) is put in (in its path, query or
 * fragment: a frontend's router decides).
 */
function previewUrlTemplateProblem(template: string): string | null {
  if (template.split('{token}').length !== 2) return 'must contain {token} exactly once';
  const filled = template.replace('{token}', 'p8i8QA7hrHI-5ZkQlc7WZsE5Wac35DJDtFLLOYZYMzs');
  if (/[{}\s]/.test(filled)) return 'must have no placeholder but {token} and no spaces';
  let url: URL;
  try {
    url = new URL(filled);
  } catch {
    return 'must be an absolute http(s) URL';
  }
  if (!['http:', 'https:'].includes(url.protocol)) return 'must be an absolute http(s) URL';
  return null;
}

function readLoginThrottle(integer: Integer): LoginThrottleConfig {
  return {
    maxFailures: integer('LOGIN_MAX_FAILURES', 1, 1000),
    maxFailuresPerAddress: integer('LOGIN_MAX_FAILURES_PER_ADDRESS', 1, 100_000),
    windowSeconds: integer('LOGIN_WINDOW_SECONDS', 60, 7 * 86400),
  };
}

function readHousekeeping(integer: Integer): HousekeepingConfig {
  return {
    intervalSeconds: integer('HOUSEKEEPING_INTERVAL_SECONDS', 0, 7 * 86400),
    batchSize: integer('HOUSEKEEPING_BATCH_SIZE', 1, 100_000),
  };
}

/** What `make purge` needs: the database, the housekeeping settings, the refresh grace window and the login throttle window. */
export function loadHousekeepingConfig(env: Env): {
  database: Config['database'];
  housekeeping: HousekeepingConfig;
  refreshGraceSeconds: number;
  loginWindowSeconds: number;
} {
  const problems: string[] = [];
  const { read, integer } = readers(env, problems);
  const database = readDatabase(read, integer, problems);
  const housekeeping = readHousekeeping(integer);
  const refreshGraceSeconds = integer('REFRESH_GRACE_SECONDS', 0, 300);
  const loginWindowSeconds = readLoginThrottle(integer).windowSeconds;
  if (problems.length > 0) throw new ConfigError(problems);
  return { database, housekeeping, refreshGraceSeconds, loginWindowSeconds };
}

type Read = (name: keyof typeof ENV_VARIABLES) => string;
type Integer = (name: keyof typeof ENV_VARIABLES, min: number, max: number) => number;
type Bool = (name: keyof typeof ENV_VARIABLES) => boolean;

function readers(env: Env, problems: string[]): { read: Read; integer: Integer; boolean: Bool } {
  const read: Read = (name) => {
    const value = env[name];
    return value === undefined || value.trim() === '' ? ENV_VARIABLES[name].default : value.trim();
  };
  const integer: Integer = (name, min, max) => {
    const raw = read(name);
    const value = Number(raw);
    if (!/^\d+$/.test(raw) || !Number.isSafeInteger(value) || value < min || value > max) {
      problems.push(`${name} must be an integer from ${min} to ${max} (got "${raw}")`);
      return Number(ENV_VARIABLES[name].default);
    }
    return value;
  };
  const boolean: Bool = (name) => {
    const raw = read(name);
    if (raw !== 'true' && raw !== 'false') problems.push(`${name} must be true or false (got "${raw}")`);
    return raw === 'true';
  };
  return { read, integer, boolean };
}

function readDatabase(read: Read, integer: Integer, problems: string[]): Config['database'] {
  const poolSize = integer('DB_POOL_SIZE', 1, 1000);
  const pipelineDepth = integer('DB_PIPELINE_DEPTH', 1, 100);
  const acquireTimeoutMs = integer('DB_ACQUIRE_TIMEOUT_MS', 0, 600_000);
  const connectTimeoutSeconds = integer('DB_CONNECT_TIMEOUT_SECONDS', 1, 600);
  const idleTimeoutSeconds = integer('DB_IDLE_TIMEOUT_SECONDS', 0, 86400);
  const statementTimeoutMs = integer('DB_STATEMENT_TIMEOUT_MS', 0, 3_600_000);
  const url = read('DATABASE_URL');
  if (url === '') return { kind: 'pglite', dataDir: read('DATA_DIR') };
  const problem = databaseUrlProblem(url);
  if (problem) problems.push(`DATABASE_URL ${problem} (got "${maskUrl(url)}")`);
  return {
    kind: 'postgres',
    url,
    poolSize,
    pipelineDepth,
    acquireTimeoutMs,
    connectTimeoutSeconds,
    idleTimeoutSeconds,
    statementTimeoutMs,
  };
}

/** Only the database settings, for commands that need nothing else (migrate, benchmarks). */
export function loadDatabaseConfig(env: Env): Config['database'] {
  const problems: string[] = [];
  const { read, integer } = readers(env, problems);
  const database = readDatabase(read, integer, problems);
  if (problems.length > 0) throw new ConfigError(problems);
  return database;
}

/**
 * The PostgreSQL settings a server configured with only `DATABASE_URL=url` would use: for tests,
 * scripts and benchmarks that open their own pool, so that its defaults are the server's.
 */
export function postgresSettings(url: string): Omit<Extract<Config['database'], { kind: 'postgres' }>, 'kind'> {
  const database = loadDatabaseConfig({ DATABASE_URL: url });
  if (database.kind !== 'postgres') throw new ConfigError(['DATABASE_URL is empty']);
  const { kind: _kind, ...settings } = database;
  return settings;
}

/** What is wrong with DATABASE_URL as libpq reads it (see database-url.ts), or null. */
function databaseUrlProblem(url: string): string | null {
  try {
    parseDatabaseUrl(url);
    return null;
  } catch (error) {
    if (error instanceof DatabaseUrlError) return error.message;
    throw error;
  }
}
