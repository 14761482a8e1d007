import createClient from 'openapi-fetch';
import type { paths } from '../../generated/api.js';
import { createApp } from '../../src/adapters/http/app.js';
import { loadContract, type Contract } from '../../src/adapters/http/contract.js';
import type { HandlerRegistry, Principal } from '../../src/adapters/http/registry.js';
import { InvalidTokenError } from '../../src/domain/index.js';
import { createLogger, type Logger } from '../../src/log.js';
import { createValidatingFetch, type ValidatingFetchOptions } from './contract-fetch.js';

let shared: Promise<Contract> | undefined;
/** One contract per test file (validators compile lazily and are reused). */
export function testContract(): Promise<Contract> {
  shared ??= loadContract();
  return shared;
}

export const TEST_TOKEN = 'test-token';
export const TEST_PRINCIPAL: Principal = { userId: '01JDQ7W3E5R7T9Y1V3N5Q7P9AS', name: 'Ada Lovelace', tokenId: 'test' };

/** Accepts only `TEST_TOKEN`; for tests of the HTTP layer that are not about authentication. */
export async function acceptTestToken(token: string): Promise<Principal> {
  if (token !== TEST_TOKEN) throw new InvalidTokenError('unknown test token');
  return TEST_PRINCIPAL;
}

export interface TestAppOptions extends ValidatingFetchOptions {
  handlers: HandlerRegistry;
  authenticate?: (token: string) => Promise<Principal>;
  logger?: Logger;
  bodyLimitBytes?: number;
}

/**
 * The app plus a fetch that validates every response against the contract, and a typed client
 * over it. Every HTTP test goes through `fetch` or `client`.
 */
export async function testApp(options: TestAppOptions) {
  const contract = await testContract();
  const app = createApp({
    contract,
    handlers: options.handlers,
    authenticate: options.authenticate ?? acceptTestToken,
    logger: options.logger ?? createLogger('silent'),
    bodyLimitBytes: options.bodyLimitBytes ?? 1024 * 1024,
  });
  const fetch = createValidatingFetch(contract.document, (request) => app.fetch(request), options);
  const client = createClient<paths>({ baseUrl: 'http://localhost/api/v1', fetch });
  return { app, contract, fetch, client };
}

export function url(path: string): string {
  return `http://localhost/api/v1${path}`;
}

export const bearer = { authorization: `Bearer ${TEST_TOKEN}` };

/** The parsed JSON body, untyped, for assertions. */
export async function json(response: Response): Promise<any> {
  return response.json();
}
