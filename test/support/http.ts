import createClient from 'openapi-fetch';
import type { paths } from '../../generated/api.js';
import { createApp, type RequestObserver } from '../../src/adapters/http/app.js';
import type { Readiness } from '../../src/app/readiness.js';
import { loadContract, type Contract } from '../../src/adapters/http/contract.js';
import type { HandlerRegistry, Principal } from '../../src/adapters/http/registry.js';
import { createOrResetUser } from '../../src/app/users.js';
import { createZxcvbnPasswordPolicy } from '../../src/adapters/crypto/zxcvbn-password-policy.js';
import { compose, type ComposedConfig } from '../../src/composition.js';
import { loadConfig, type Config, type ContentConfig, type ImportLimits } from '../../src/config.js';
import {
  FixedClock,
  InvalidTokenError,
  type Clock,
  type ImageProcessor,
  type PasswordHasher,
  type Store,
  type WebhookTransport,
} from '../../src/domain/index.js';
import { createLogger, type Logger } from '../../src/log.js';
import { createHttpWebhookTransport } from '../../src/adapters/webhooks/http-transport.js';
import { createValidatingFetch, type ValidatingFetchOptions } from './contract-fetch.js';

let shared: Promise<Contract> | undefined;
/** One contract per test file (validators compile lazily and are reused). */
export function testContract(): Promise<Contract> {
  shared ??= loadContract();
  return shared;
}

const TEST_TOKEN = 'test-token';
const TEST_PRINCIPAL: Principal = { userId: '01JDQ7W3E5R7T9Y1V3N5Q7P9AS', name: 'Ada Lovelace', tokenId: 'test' };

/** Accepts only `TEST_TOKEN`; for tests of the HTTP layer alone (fake handlers). */
async function acceptTestToken(token: string): Promise<Principal> {
  if (token !== TEST_TOKEN) throw new InvalidTokenError('unknown test token');
  return TEST_PRINCIPAL;
}

export interface TestAppOptions extends ValidatingFetchOptions {
  handlers: HandlerRegistry;
  authenticate?: (token: string) => Promise<Principal>;
  logger?: Logger;
  bodyLimitBytes?: number;
  /** The largest image an upload may be (MEDIA_MAX_BYTES); defaults to `bodyLimitBytes`. */
  imageMaxBytes?: number;
  corsOrigins?: string[];
}

/** The HTTP layer over given handlers, with a contract-validating fetch and a typed client. */
export async function testApp(options: TestAppOptions) {
  const contract = await testContract();
  const app = createApp({
    contract,
    handlers: options.handlers,
    authenticate: options.authenticate ?? acceptTestToken,
    logger: options.logger ?? createLogger('silent'),
    bodyLimitBytes: options.bodyLimitBytes ?? 1024 * 1024,
    ...(options.imageMaxBytes === undefined ? {} : { imageMaxBytes: options.imageMaxBytes }),
    corsOrigins: options.corsOrigins ?? [],
  });
  const fetch = createValidatingFetch(contract.document, (request) => app.fetch(request), options);
  const client = createClient<paths>({ baseUrl: 'http://localhost/api/v1', fetch });
  return { app, contract, fetch, client };
}

export const ADMIN = { email: 'ada@example.com', name: 'Ada Lovelace', password: 'correct horse battery staple' };
export const JWT_SECRET = new TextEncoder().encode('test-secret-test-secret-test-secret!!');

export interface TestServerOptions {
  store: Store;
  clock?: Clock;
  refreshGraceSeconds?: number;
  accessTokenTtlSeconds?: number;
  bodyLimitBytes?: number;
  corsOrigins?: string[];
  trustProxy?: boolean;
  logger?: Logger;
  /** Defaults to argon2id, as in `main.ts`. */
  hasher?: PasswordHasher;
  /** Told of every answered request (access log, metrics). */
  observers?: RequestObserver[];
  readiness?: Readiness;
  /** The Content API's settings over the defaults; the rate limit is off unless given. */
  content?: Partial<ContentConfig>;
  /** POST /import's limits, over the defaults. */
  imports?: Partial<ImportLimits>;
  /** The login throttle over the defaults (LOGIN_MAX_FAILURES, …). */
  loginThrottle?: Partial<Config['auth']['loginThrottle']>;
  /** An admin app build to serve at /admin/; none by default, whether or not dist/admin/ exists. */
  adminDir?: string;
  /** Sends webhooks and judges their URLs; by default public addresses only, names resolved by `resolveForTests`. */
  webhookTransport?: WebhookTransport;
  /** Where image uploads are staged; by default the OS's temporary folder. */
  uploadDir?: string;
  /** Reads uploaded and imported images; by default `compose`'s (sharp with the default limits). */
  images?: ImageProcessor;
}

/** A public address (example.com's) that the names of the tests' webhook URLs resolve to. */
const EXAMPLE_ADDRESS = '93.184.215.14';

/**
 * Resolves host names for webhook URLs in tests without the network: `example.com` and its
 * subdomains to a public address, `receiver.test` to 127.0.0.1 (a name that resolves to
 * loopback), any other name not found, as the system's resolver would answer `something.invalid`.
 */
export async function resolveForTests(hostname: string): Promise<{ address: string; family: number }[]> {
  if (/(^|\.)example\.com$/i.test(hostname)) return [{ address: EXAMPLE_ADDRESS, family: 4 }];
  if (hostname === 'receiver.test') return [{ address: '127.0.0.1', family: 4 }];
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
}

/**
 * The whole application (services and app, as `main.ts` composes them) over a store, with the
 * admin user seeded, a contract-validating fetch and a typed client. Every HTTP test of a real
 * operation goes through `fetch` or `client`.
 */
/** One for every test server of a run: its dictionaries load once. */
const passwords = createZxcvbnPasswordPolicy();

export async function testServer(options: TestServerOptions) {
  const contract = await testContract();
  const clock = options.clock ?? { now: () => new Date() };
  // What an unconfigured server runs with, where a test does not say otherwise.
  const defaults = loadConfig({});
  const config: ComposedConfig = {
    ...defaults,
    auth: {
      issuer: 'margin-cms',
      audience: 'margin-cms-api',
      accessTokenTtlSeconds: options.accessTokenTtlSeconds ?? 900,
      refreshTokenTtlSeconds: 30 * 86400,
      refreshGraceSeconds: options.refreshGraceSeconds ?? defaults.auth.refreshGraceSeconds,
      loginThrottle: { ...defaults.auth.loginThrottle, ...options.loginThrottle },
    },
    bodyLimitBytes: options.bodyLimitBytes ?? 1024 * 1024,
    corsOrigins: options.corsOrigins ?? [],
    trustProxy: options.trustProxy ?? false,
    content: { ...defaults.content, rateLimitPerMinute: 0, ...options.content },
    imports: { ...defaults.imports, ...options.imports },
  };
  const composed = await compose({
    store: options.store,
    contract,
    logger: options.logger ?? createLogger('silent'),
    clock,
    jwtSecret: JWT_SECRET,
    config,
    adminDir: options.adminDir ?? false,
    ...(options.hasher ? { hasher: options.hasher } : {}),
    ...(options.observers ? { observers: options.observers } : {}),
    ...(options.readiness ? { readiness: options.readiness } : {}),
    webhookTransport: options.webhookTransport ?? createHttpWebhookTransport({ allowPrivateNetworks: false, resolve: resolveForTests }),
    ...(options.uploadDir ? { uploadDir: options.uploadDir } : {}),
    ...(options.images ? { images: options.images } : {}),
  });
  const { user: admin } = await createOrResetUser(
    {
      users: options.store.users,
      refreshTokens: options.store.refreshTokens,
      hasher: composed.hasher,
      passwords,
      ids: composed.ids,
      clock,
    },
    ADMIN,
  );
  const fetch = createValidatingFetch(contract.document, (request) => composed.app.fetch(request));
  const client = createClient<paths>({ baseUrl: 'http://localhost/api/v1', fetch });

  /** Logs the admin in and returns the token pair. */
  async function login() {
    const { data, response } = await client.POST('/auth/login', { body: { email: ADMIN.email, password: ADMIN.password } });
    if (!data) throw new Error(`login failed: ${response.status}`);
    return data;
  }
  /** A typed client that sends the admin's bearer token. */
  async function authedClient() {
    const { accessToken } = await login();
    const authed = createClient<paths>({ baseUrl: 'http://localhost/api/v1', fetch, headers: { authorization: `Bearer ${accessToken}` } });
    return { client: authed, accessToken, headers: { authorization: `Bearer ${accessToken}` } };
  }
  return { ...composed, contract, fetch, client, admin, login, authedClient, clock };
}

export function url(path: string): string {
  return `http://localhost/api/v1${path}`;
}

export const bearer = { authorization: `Bearer ${TEST_TOKEN}` };

/** The parsed JSON body, untyped, for assertions. */
export async function json(response: Response): Promise<any> {
  return response.json();
}

export { FixedClock };
