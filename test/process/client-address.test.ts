/**
 * The client's address on the built server (`node dist/main.js`, embedded PGlite), over real
 * sockets from distinct local source addresses (127.0.0.2, 127.0.0.3, …: all of 127/8 is this
 * machine's loopback). `app.request` has no socket, so only a test like this one sees whether the
 * address reaches the throttles and the access log through every wrapper of the app's `fetch`.
 */
import { request as httpRequest } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { firstHealthz, spawnServer, stopServers, type Spawned } from '../support/server-process.js';
import { freePort } from '../support/ports.js';

const OWNER = { email: 'owner@example.com', password: 'correct horse battery staple 42!' };
const CONTENT_LIMIT = 10;
/** LOGIN_MAX_FAILURES and LOGIN_MAX_FAILURES_PER_ADDRESS as documented (their defaults). */
const ACCOUNT_LIMIT = 5;
const ADDRESS_LIMIT = 20;

interface Answer {
  status: number;
  retryAfter: string | undefined;
}

interface Server {
  spawned: Spawned;
  port: number;
  dataDir: string;
}

async function startBuilt(env: Record<string, string>): Promise<Server> {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'margin-client-address-'));
  const spawned = spawnServer(
    {
      DATA_DIR: dataDir,
      HOST: '127.0.0.1',
      PORT: String(port),
      LOG_LEVEL: 'info',
      ADMIN_EMAIL: OWNER.email,
      ADMIN_PASSWORD: OWNER.password,
      CONTENT_RATE_LIMIT_PER_MINUTE: String(CONTENT_LIMIT),
      HOUSEKEEPING_INTERVAL_SECONDS: '0',
      PUBLISH_INTERVAL_SECONDS: '0',
      WEBHOOK_POLL_MS: '0',
      ...env,
    },
    { built: true },
  );
  await firstHealthz(spawned, `http://127.0.0.1:${port}/api/v1`, 90);
  return { spawned, port, dataDir };
}

/** One request on a connection of its own from the local address `from`. */
function send(
  server: Server,
  from: string,
  path: string,
  options: { method?: string; body?: unknown; forwardedFor?: string } = {},
): Promise<Answer> {
  const body = options.body === undefined ? undefined : JSON.stringify(options.body);
  const headers: Record<string, string> = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (options.forwardedFor !== undefined) headers['x-forwarded-for'] = options.forwardedFor;
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      {
        host: '127.0.0.1',
        port: server.port,
        localAddress: from,
        path: `/api/v1${path}`,
        method: options.method ?? 'GET',
        headers,
        agent: false,
      },
      (incoming) => {
        incoming.resume();
        incoming.on('end', () => resolve({ status: incoming.statusCode ?? 0, retryAfter: incoming.headers['retry-after'] }));
        incoming.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

const login = (server: Server, from: string, email: string, password: string, forwardedFor?: string) =>
  send(server, from, '/auth/login', {
    method: 'POST',
    body: { email, password },
    ...(forwardedFor === undefined ? {} : { forwardedFor }),
  });

async function statuses(count: number, one: (i: number) => Promise<Answer>): Promise<number[]> {
  const answers: number[] = [];
  for (let i = 0; i < count; i += 1) answers.push((await one(i)).status);
  return answers;
}

/**
 * The access log's lines so far (the log is written out within a second). A refused request has
 * no route (the limit answers before the operation is dispatched), so lines are told apart by client.
 */
function accessLines(server: Server): { client?: string; status?: number }[] {
  return server.spawned
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{') && line.includes('"message":"request"'))
    .map((line) => JSON.parse(line) as { client?: string; status?: number });
}

let direct: Server;
let proxied: Server;

beforeAll(async () => {
  [direct, proxied] = await Promise.all([startBuilt({}), startBuilt({ TRUST_PROXY: 'true' })]);
}, 200_000);

afterAll(() => {
  stopServers();
  for (const server of [direct, proxied]) if (server) rmSync(server.dataDir, { recursive: true, force: true });
});

describe('the built server, clients on their own socket addresses', () => {
  it("counts the Content API per client address: one address's budget used up leaves another at 200", async () => {
    const first = await statuses(CONTENT_LIMIT + 2, () => send(direct, '127.0.0.2', '/content/posts'));
    expect(first.slice(0, CONTENT_LIMIT)).toEqual(Array<number>(CONTENT_LIMIT).fill(200));
    expect(first.at(-1)).toBe(429);
    const spent = await send(direct, '127.0.0.2', '/content/posts');
    expect(spent.status).toBe(429);
    expect(Number(spent.retryAfter)).toBeGreaterThanOrEqual(1);

    expect((await send(direct, '127.0.0.3', '/content/posts')).status).toBe(200);
  });

  it('writes each request’s client address in the access log', async () => {
    const lines = () => accessLines(direct);
    await expect.poll(() => lines().filter((line) => line.client === '127.0.0.2').length, { timeout: 5000 }).toBe(CONTENT_LIMIT + 3);
    expect(
      lines()
        .filter((line) => line.client === '127.0.0.2')
        .map((line) => line.status),
    ).toEqual([...Array<number>(CONTENT_LIMIT).fill(200), 429, 429, 429]);
    expect(lines().filter((line) => line.client === '127.0.0.3')).toEqual([expect.objectContaining({ status: 200 })]);
    expect(lines().every((line) => line.client !== 'unknown')).toBe(true);
  });

  it('leaves a correct login from another address at 200 after 25 failed logins from one address', async () => {
    const failed = await statuses(25, (i) => login(direct, '127.0.0.4', `nobody-${i}@example.com`, 'wrong password'));
    expect(failed.slice(0, ADDRESS_LIMIT)).toEqual(Array<number>(ADDRESS_LIMIT).fill(401));
    expect(failed.slice(ADDRESS_LIMIT)).toEqual(Array<number>(25 - ADDRESS_LIMIT).fill(429));
    // The address is held, even with the right password; another is not.
    expect((await login(direct, '127.0.0.4', OWNER.email, OWNER.password)).status).toBe(429);
    expect((await login(direct, '127.0.0.5', OWNER.email, OWNER.password)).status).toBe(200);
  });

  it('holds the per-account ceiling across addresses that never signed in, but not against an address that did', async () => {
    const known = '127.0.0.6';
    expect((await login(direct, known, OWNER.email, OWNER.password)).status).toBe(200);
    // One wrong password from each of ACCOUNT_LIMIT addresses: the account's shared count is full.
    for (let i = 0; i < ACCOUNT_LIMIT; i += 1) {
      expect((await login(direct, `127.0.1.${i + 1}`, OWNER.email, 'wrong password')).status).toBe(401);
    }
    const refused = await login(direct, '127.0.1.100', OWNER.email, 'wrong password');
    expect(refused.status).toBe(429);
    expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(1);
    // A new address is held to the account's ceiling, the right password included …
    expect((await login(direct, '127.0.1.101', OWNER.email, OWNER.password)).status).toBe(429);
    // … while the address that signed in before has its own count.
    expect((await login(direct, known, OWNER.email, OWNER.password)).status).toBe(200);
  });
});

describe('the built server behind a proxy (TRUST_PROXY=true): the last X-Forwarded-For entry is the client', () => {
  const proxy = '127.0.0.9';

  it("counts the Content API per forwarded address, the client's own entries ignored", async () => {
    const first = await statuses(CONTENT_LIMIT + 1, (i) =>
      send(proxied, proxy, '/content/posts', { forwardedFor: `10.0.0.${i}, 198.51.100.7` }),
    );
    expect(first.slice(0, CONTENT_LIMIT)).toEqual(Array<number>(CONTENT_LIMIT).fill(200));
    expect(first.at(-1)).toBe(429);
    expect((await send(proxied, proxy, '/content/posts', { forwardedFor: '198.51.100.8' })).status).toBe(200);
    const lines = () => accessLines(proxied);
    await expect.poll(() => lines().filter((line) => line.client === '198.51.100.8').length, { timeout: 5000 }).toBe(1);
    expect(lines().filter((line) => line.client === '198.51.100.7')).toHaveLength(CONTENT_LIMIT + 1);
  });

  it('leaves a correct login from another forwarded address at 200 after 25 failed logins from one', async () => {
    const failed = await statuses(25, (i) => login(proxied, proxy, `nobody-${i}@example.com`, 'wrong password', '198.51.100.20'));
    expect(failed.slice(0, ADDRESS_LIMIT)).toEqual(Array<number>(ADDRESS_LIMIT).fill(401));
    expect(failed.slice(ADDRESS_LIMIT)).toEqual(Array<number>(25 - ADDRESS_LIMIT).fill(429));
    expect((await login(proxied, proxy, OWNER.email, OWNER.password, '198.51.100.20')).status).toBe(429);
    expect((await login(proxied, proxy, OWNER.email, OWNER.password, '198.51.100.21')).status).toBe(200);
  });

  it('holds the per-account ceiling across forwarded addresses, and exempts the one that signed in before', async () => {
    const known = '203.0.113.1';
    expect((await login(proxied, proxy, OWNER.email, OWNER.password, known)).status).toBe(200);
    for (let i = 0; i < ACCOUNT_LIMIT; i += 1) {
      expect((await login(proxied, proxy, OWNER.email, 'wrong password', `203.0.113.${i + 10}`)).status).toBe(401);
    }
    expect((await login(proxied, proxy, OWNER.email, 'wrong password', '203.0.113.50')).status).toBe(429);
    expect((await login(proxied, proxy, OWNER.email, OWNER.password, '203.0.113.51')).status).toBe(429);
    expect((await login(proxied, proxy, OWNER.email, OWNER.password, known)).status).toBe(200);
  });
});
