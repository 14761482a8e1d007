import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DEFAULT_REQUEST_TIMEOUTS } from './adapters/http/node-server.js';
import { ConfigError, ENV_VARIABLES, loadConfig, loadDatabaseConfig } from './config.js';
import { DEFAULT_RETRY_SCHEDULE_MS } from './domain/index.js';

describe('loadConfig', () => {
  it('defaults to embedded PGlite under .data on 127.0.0.1:8080 with a 1 MiB body limit (64 MiB for an import), the access log on and metrics off', () => {
    expect(loadConfig({})).toEqual({
      host: '127.0.0.1',
      port: 8080,
      logLevel: 'info',
      accessLog: true,
      metrics: null,
      shutdown: { delaySeconds: 0, timeoutSeconds: 10 },
      requestTimeouts: { headersMs: 20_000, requestMs: 900_000, bodyWindowMs: 20_000, bodyMinBytesPerSecond: 1024 },
      bodyLimitBytes: 1048576,
      imports: {
        limitBytes: 67108864,
        maxEntries: 50000,
        maxInflatedBytes: 268435456,
        maxImages: 200,
        maxImagePixels: 1_000_000_000,
      },
      media: { maxBytes: 20971520, maxPixels: 50_000_000, concurrency: 2 },
      corsOrigins: [],
      trustProxy: false,
      auth: {
        jwtSecret: null,
        issuer: 'margin-cms',
        audience: 'margin-cms-api',
        accessTokenTtlSeconds: 900,
        refreshTokenTtlSeconds: 2592000,
        refreshGraceSeconds: 10,
        adminEmail: null,
        adminPassword: null,
        loginThrottle: { maxFailures: 5, maxFailuresPerAddress: 20, windowSeconds: 900 },
      },
      idempotency: { ttlSeconds: 86400, leaseSeconds: 30 },
      housekeeping: { intervalSeconds: 3600, batchSize: 1000 },
      content: {
        siteUrl: 'http://localhost:3000',
        postPath: '/blog/{slug}',
        apiUrl: null,
        previewUrlTemplate: null,
        siteTitle: 'MarginCMS blog',
        maxAgeSeconds: 60,
        staleWhileRevalidateSeconds: 300,
        rateLimitPerMinute: 600,
      },
      publishIntervalSeconds: 10,
      webhooks: {
        allowPrivateNetworks: false,
        timeoutMs: 10_000,
        retryScheduleMs: [...DEFAULT_RETRY_SCHEDULE_MS],
        pollMs: 1000,
      },
      database: { kind: 'pglite', dataDir: '.data' },
    });
    // What serveApp uses when it is given none (tests).
    expect(loadConfig({}).requestTimeouts).toEqual(DEFAULT_REQUEST_TIMEOUTS);
  });

  it('reads the slow-client limits in seconds (bytes per second for the body rate), refusing 0 for a timeout and headers allowed longer than the request', () => {
    const env = {
      HTTP_HEADERS_TIMEOUT_SECONDS: '5',
      HTTP_REQUEST_TIMEOUT_SECONDS: '60',
      HTTP_BODY_WINDOW_SECONDS: '10',
      HTTP_BODY_MIN_BYTES_PER_SECOND: '0',
    };
    expect(loadConfig(env).requestTimeouts).toEqual({ headersMs: 5000, requestMs: 60_000, bodyWindowMs: 10_000, bodyMinBytesPerSecond: 0 });
    expect(() => loadConfig({ HTTP_HEADERS_TIMEOUT_SECONDS: '0' })).toThrow(/HTTP_HEADERS_TIMEOUT_SECONDS must be an integer from 1/);
    expect(() => loadConfig({ HTTP_HEADERS_TIMEOUT_SECONDS: '30', HTTP_REQUEST_TIMEOUT_SECONDS: '20' })).toThrow(/must not exceed/);
  });

  it('reads the login throttle and the idempotency lease, refusing a throttle that allows no failure', () => {
    const config = loadConfig({
      LOGIN_MAX_FAILURES: '3',
      LOGIN_MAX_FAILURES_PER_ADDRESS: '50',
      LOGIN_WINDOW_SECONDS: '600',
      IDEMPOTENCY_LEASE_SECONDS: '10',
    });
    expect(config.auth.loginThrottle).toEqual({ maxFailures: 3, maxFailuresPerAddress: 50, windowSeconds: 600 });
    expect(config.idempotency).toEqual({ ttlSeconds: 86400, leaseSeconds: 10 });
    expect(() => loadConfig({ LOGIN_MAX_FAILURES: '0' })).toThrow(/LOGIN_MAX_FAILURES must be an integer from 1/);
  });

  it('reads the import limits, refusing an archive limit under 1 KiB, a zero entry count and a negative image limit (0 stores no image)', () => {
    expect(
      loadConfig({
        IMPORT_LIMIT_BYTES: '2048',
        IMPORT_MAX_ENTRIES: '10',
        IMPORT_MAX_INFLATED_BYTES: '1048576',
        IMPORT_MAX_IMAGES: '0',
        IMPORT_MAX_IMAGE_PIXELS: '5000',
      }).imports,
    ).toEqual({ limitBytes: 2048, maxEntries: 10, maxInflatedBytes: 1048576, maxImages: 0, maxImagePixels: 5000 });
    expect(() => loadConfig({ IMPORT_LIMIT_BYTES: '10' })).toThrow(/IMPORT_LIMIT_BYTES must be an integer from 1024/);
    expect(() => loadConfig({ IMPORT_MAX_ENTRIES: '0' })).toThrow(/IMPORT_MAX_ENTRIES must be an integer from 1/);
    expect(() => loadConfig({ IMPORT_MAX_IMAGES: '-1' })).toThrow(/IMPORT_MAX_IMAGES must be an integer from 0/);
    expect(() => loadConfig({ IMPORT_MAX_IMAGE_PIXELS: '1e9' })).toThrow(/IMPORT_MAX_IMAGE_PIXELS must be an integer from 0/);
  });

  it('reads the housekeeping interval (0 turns it off) and batch size, refusing a batch of 0', () => {
    expect(loadConfig({ HOUSEKEEPING_INTERVAL_SECONDS: '0', HOUSEKEEPING_BATCH_SIZE: '50' }).housekeeping).toEqual({
      intervalSeconds: 0,
      batchSize: 50,
    });
    expect(() => loadConfig({ HOUSEKEEPING_BATCH_SIZE: '0' })).toThrow(/HOUSEKEEPING_BATCH_SIZE/);
  });

  it('uses PostgreSQL with the pool settings when DATABASE_URL is set', () => {
    const config = loadConfig({
      DATABASE_URL: 'postgres://u:p@db:5432/blog',
      DB_POOL_SIZE: '4',
      DB_PIPELINE_DEPTH: '2',
      DB_STATEMENT_TIMEOUT_MS: '2500',
      JWT_SECRET: 'a'.repeat(32),
    });
    expect(config.database).toEqual({
      kind: 'postgres',
      url: 'postgres://u:p@db:5432/blog',
      poolSize: 4,
      pipelineDepth: 2,
      acquireTimeoutMs: 2000,
      connectTimeoutSeconds: 5,
      idleTimeoutSeconds: 30,
      statementTimeoutMs: 2500,
    });
  });

  it('requires a JWT secret of at least 32 bytes with DATABASE_URL, where no default password exists', () => {
    expect(() => loadConfig({ DATABASE_URL: 'postgres://u@db/blog' })).toThrow(/JWT_SECRET is required/);
    expect(() => loadConfig({ JWT_SECRET: 'short' })).toThrow(/at least 32 bytes/);
  });

  it('parses CORS origins and rejects entries that are not origins', () => {
    expect(loadConfig({ CORS_ORIGINS: 'https://a.example, http://localhost:5173' }).corsOrigins).toEqual([
      'https://a.example',
      'http://localhost:5173',
    ]);
    expect(() => loadConfig({ CORS_ORIGINS: 'https://a.example/path' })).toThrow(/CORS_ORIGINS/);
  });

  it('reports every bad value at once', () => {
    let error: unknown;
    try {
      loadConfig({ PORT: 'eighty', LOG_LEVEL: 'loud', DB_POOL_SIZE: '0' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toHaveLength(3);
  });

  it('names what is wrong with an invalid DATABASE_URL and masks its password', () => {
    for (const [url, fragment] of [
      ['mysql://root:hunter2@db/blog', 'must start with postgres://'],
      ['postgres://root:hunter2@db', 'names no database'],
      ['not a url at all', 'is not a URL'],
      ['postgres://root:hunter2@db/blog?search_path=app', 'has an unknown parameter "search_path"'],
      ['postgres://root:hunter2@db/blog?sslmode=on', 'has sslmode=on; expected one of'],
      ['postgres://root:hunter2%zz@db/blog', 'has a "%" not followed by two hex digits in the password'],
    ] as const) {
      let message = '';
      try {
        loadConfig({ DATABASE_URL: url, JWT_SECRET: 'x'.repeat(32) });
      } catch (e) {
        message = (e as Error).message;
      }
      expect(message).toContain(fragment);
      expect(message).not.toContain('hunter2');
    }
  });

  it('reads the public site, the API address and the content cache settings, trimming trailing slashes', () => {
    const config = loadConfig({
      PUBLIC_SITE_URL: 'https://blog.example.com/',
      PUBLIC_API_URL: 'https://api.example.com',
      PUBLIC_POST_PATH: '/posts/{slug}/',
      CONTENT_MAX_AGE_SECONDS: '0',
      CONTENT_RATE_LIMIT_PER_MINUTE: '0',
      PUBLISH_INTERVAL_SECONDS: '0',
    });
    expect(config.content).toMatchObject({
      siteUrl: 'https://blog.example.com',
      apiUrl: 'https://api.example.com',
      postPath: '/posts/{slug}/',
      maxAgeSeconds: 0,
      rateLimitPerMinute: 0,
    });
    expect(config.publishIntervalSeconds).toBe(0);
  });

  it('reads the image limits, refusing no concurrency and a byte limit under 1 KiB', () => {
    expect(loadConfig({ MEDIA_MAX_BYTES: '4096', MEDIA_MAX_PIXELS: '1000000', MEDIA_CONCURRENCY: '4' }).media).toEqual({
      maxBytes: 4096,
      maxPixels: 1_000_000,
      concurrency: 4,
    });
    expect(() => loadConfig({ MEDIA_CONCURRENCY: '0' })).toThrow(/MEDIA_CONCURRENCY must be an integer from 1/);
    expect(() => loadConfig({ MEDIA_MAX_BYTES: '10' })).toThrow(/MEDIA_MAX_BYTES must be an integer from 1024/);
  });

  it('refuses a site URL that is not absolute http(s) and a post path without {slug}, naming both', () => {
    const both = () => loadConfig({ PUBLIC_SITE_URL: 'blog.example.com', PUBLIC_POST_PATH: '/blog/' });
    expect(both).toThrow(/PUBLIC_SITE_URL must be an absolute http\(s\) URL/);
    expect(both).toThrow(/PUBLIC_POST_PATH must be a path starting with \/ and containing \{slug\}/);
    expect(() => loadConfig({ PUBLIC_API_URL: 'ftp://api.example.com' })).toThrow(/PUBLIC_API_URL/);
    expect(() => loadConfig({ PUBLIC_SITE_URL: 'https://blog.example.com/?x=1' })).toThrow(/PUBLIC_SITE_URL/);
  });

  it("reads PREVIEW_URL_TEMPLATE, a frontend's preview URL with {token} in its path, query or fragment", () => {
    for (const template of [
      'https://blog.example.com/preview/{token}',
      'https://blog.example.com/api/preview?secret={token}&redirect=/',
      'http://localhost:3000/#/preview/{token}',
    ]) {
      expect(loadConfig({ PREVIEW_URL_TEMPLATE: template }).content.previewUrlTemplate).toBe(template);
    }
  });

  it('refuses a PREVIEW_URL_TEMPLATE without {token}, with it twice, with another placeholder, relative or not http(s), naming each', () => {
    const refused = (template: string) => () => loadConfig({ PREVIEW_URL_TEMPLATE: template });
    expect(refused('https://blog.example.com/preview')).toThrow(/PREVIEW_URL_TEMPLATE must contain \{token\} exactly once \(got/);
    expect(refused('https://blog.example.com/{token}/{token}')).toThrow(/PREVIEW_URL_TEMPLATE must contain \{token\} exactly once/);
    expect(refused('https://blog.example.com/{slug}/{token}')).toThrow(/PREVIEW_URL_TEMPLATE must have no placeholder but \{token\}/);
    expect(refused('/preview/{token}')).toThrow(/PREVIEW_URL_TEMPLATE must be an absolute http\(s\) URL \(got "\/preview\/\{token\}"\)/);
    expect(refused('ftp://blog.example.com/{token}')).toThrow(/PREVIEW_URL_TEMPLATE must be an absolute http\(s\) URL/);
    expect(() => loadConfig({ PREVIEW_URL_TEMPLATE: '/p/{token}', PUBLIC_POST_PATH: '/blog/' })).toThrow(
      /PUBLIC_POST_PATH[\s\S]*PREVIEW_URL_TEMPLATE|PREVIEW_URL_TEMPLATE[\s\S]*PUBLIC_POST_PATH/,
    );
  });

  it('reads the webhook settings: private networks, the timeout, the retry schedule in units and the poll interval', () => {
    expect(
      loadConfig({
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
        WEBHOOK_TIMEOUT_MS: '2500',
        WEBHOOK_RETRY_SCHEDULE: '500ms, 2s,1m,1h,1d',
        WEBHOOK_POLL_MS: '0',
      }).webhooks,
    ).toEqual({ allowPrivateNetworks: true, timeoutMs: 2500, retryScheduleMs: [500, 2000, 60_000, 3_600_000, 86_400_000], pollMs: 0 });
    const bad = () => loadConfig({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'yes', WEBHOOK_RETRY_SCHEDULE: '5s,soon', WEBHOOK_TIMEOUT_MS: '0' });
    expect(bad).toThrow(/WEBHOOK_ALLOW_PRIVATE_NETWORKS must be true or false/);
    expect(bad).toThrow(/WEBHOOK_RETRY_SCHEDULE must be up to 50 comma-separated durations .* \(got "5s,soon"\)/);
    expect(bad).toThrow(/WEBHOOK_TIMEOUT_MS must be an integer from 100/);
    expect(() => loadConfig({ WEBHOOK_RETRY_SCHEDULE: '8d' })).toThrow(/WEBHOOK_RETRY_SCHEDULE/);
  });

  it('lists every variable it reads in .env.example', () => {
    const example = readFileSync(new URL('../.env.example', import.meta.url), 'utf8');
    const listed = [...example.matchAll(/^([A-Z_]+)=/gm)].map((m) => m[1]).sort();
    expect(listed).toEqual(Object.keys(ENV_VARIABLES).sort());
  });
});

describe('loadDatabaseConfig', () => {
  it('reads only the database settings, without requiring the server secrets', () => {
    expect(loadDatabaseConfig({})).toEqual({ kind: 'pglite', dataDir: '.data' });
    expect(loadDatabaseConfig({ DATABASE_URL: 'postgres://u@db/blog' })).toMatchObject({
      kind: 'postgres',
      poolSize: 10,
      pipelineDepth: 4,
    });
    expect(() => loadDatabaseConfig({ DATABASE_URL: 'postgres://u:secret@db' })).toThrow(/names no database/);
  });
});
