/**
 * Webhooks seen from a subscriber on loopback (issue #32's "done when"): server processes on one
 * PostgreSQL database (and one on embedded PGlite) deliver each post event to a receiver of the
 * test's own, signed the Standard Webhooks way (checked with the `standardwebhooks` package), as
 * the spec's `postEvent` request, each event once and per post in the order of its changes: a post
 * published directly or by the scheduler, two processes at once, a receiver that is down a while,
 * a server killed while a delivery is in flight. The receiver dedupes by `webhook-id`, as the spec
 * asks receivers to, and counts what it accepted per id.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type Server as NetServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { performance } from 'node:perf_hooks';
import { join } from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { loadBundle } from '../../src/adapters/http/contract.js';
import { createValidatingFetch } from '../support/contract-fetch.js';
import { requirePostgres, testServerUrl } from '../support/databases.js';
import { freePort } from '../support/ports.js';
import {
  accessToken,
  createUser,
  firstHealthz,
  spawnServer,
  startServer,
  useScratchDatabases,
  type Started,
} from '../support/server-process.js';

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv2020) => Ajv2020;

const serverUrl = testServerUrl();
const available = await requirePostgres(serverUrl);
const scratchDatabase = useScratchDatabases(serverUrl);

const DOCUMENT = loadBundle() as Record<string, any>;
/** Every answer of the servers is held to the contract. */
const contractFetch = createValidatingFetch(DOCUMENT, (request) => fetch(request));

const ALL_EVENTS = ['post.published', 'post.updated', 'post.unpublished', 'post.deleted'];
/** Delivering to the test's receiver on 127.0.0.1, polling often, the scheduler every second. */
const WEBHOOK_ENV = {
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
  WEBHOOK_POLL_MS: '200',
  PUBLISH_INTERVAL_SECONDS: '1',
  CONTENT_RATE_LIMIT_PER_MINUTE: '0',
  ACCESS_LOG: 'false',
};

// ---------------------------------------------------------------------------------------------
// The spec's postEvent request, as a validator of what the receiver got.

interface WebhookPayload {
  type: string;
  timestamp: string;
  data: { post: Record<string, unknown> & { id: string; slug: string; title: string } };
}

/** Problems of one request against the spec's `webhooks.postEvent`: its three headers and its JSON body. */
function postEventValidator(): (headers: Record<string, string>, body: unknown) => string[] {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema({ ...DOCUMENT, $id: 'urn:margin:webhooks' });
  const compile = (pointer: string): ValidateFunction => ajv.compile({ $ref: `urn:margin:webhooks#${pointer}` });
  const operation = DOCUMENT.webhooks.postEvent.post;
  const parameters = (operation.parameters as { $ref: string }[]).map((p) => p.$ref.split('/').pop()!);
  const headerChecks = parameters.map((name) => ({
    name: DOCUMENT.components.parameters[name].name as string,
    validate: compile(`/components/parameters/${name}/schema`),
  }));
  const requestBody = (operation.requestBody.$ref as string).split('/').pop()!;
  const validateBody = compile(`/components/requestBodies/${requestBody}/content/application~1json/schema`);
  return (headers, body) => {
    const problems: string[] = [];
    for (const { name, validate } of headerChecks) {
      if (!validate(headers[name])) problems.push(`header ${name}: ${ajv.errorsText(validate.errors)}`);
    }
    if (!validateBody(body)) problems.push(`body: ${ajv.errorsText(validateBody.errors, { dataVar: 'body' })}`);
    return problems;
  };
}
const checkPostEvent = postEventValidator();

// ---------------------------------------------------------------------------------------------
// The receiver.

/** One request the receiver got, whatever it answered. */
interface Received {
  id: string;
  body: string;
  payload: WebhookPayload;
  /** Whether the signature verified with the subscription's secret (the `standardwebhooks` package). */
  verified: boolean;
  /** How it departs from the spec's postEvent request; empty when it does not. */
  problems: string[];
  /** The status answered; null while held open or when never answered. */
  answered: number | null;
  /** When it came (`performance.now()`). */
  at: number;
}

type Mode = 'ok' | 'unavailable' | 'hang';

/**
 * A webhook receiver on 127.0.0.1: records every request, verifies its signature, and answers
 * 204 (`ok`), 503 (`unavailable`) or nothing (`hang`: the request is held open); `down()` closes
 * its port and `up()` opens the same port again.
 */
class Receiver {
  readonly requests: Received[] = [];
  mode: Mode = 'ok';
  /** Posts (by title) whose events are answered 500 while `mode` is `ok`. */
  readonly failing = new Set<string>();
  secret = '';
  #server: Server | null = null;

  private constructor(readonly port: number) {}

  static async start(): Promise<Receiver> {
    const receiver = new Receiver(await freePort());
    await receiver.up();
    return receiver;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/hooks/margin`;
  }

  /** The events it accepted (answered 2xx), one per `webhook-id`, in the order first accepted. */
  events(): Received[] {
    const seen = new Set<string>();
    return this.requests.filter((r) => r.answered === 204 && !seen.has(r.id) && seen.add(r.id));
  }

  /** How many times each `webhook-id` was accepted. */
  acceptedCounts(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const r of this.requests) if (r.answered === 204) counts.set(r.id, (counts.get(r.id) ?? 0) + 1);
    return counts;
  }

  async up(): Promise<void> {
    const server = createServer((request, response) => void this.#receive(request, response));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', resolve);
    });
    this.#server = server;
  }

  /** Closes the port and every connection, held requests included. */
  async down(): Promise<void> {
    const server = this.#server;
    this.#server = null;
    if (server === null) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  async #receive(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const headers = Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)]));
    let verified = false;
    try {
      new Webhook(this.secret).verify(body, headers);
      verified = true;
    } catch {
      verified = false;
    }
    let payload: unknown = null;
    try {
      payload = JSON.parse(body);
    } catch {
      payload = null;
    }
    const problems = checkPostEvent(headers, payload);
    if (request.method !== 'POST') problems.push(`method ${request.method}`);
    if (!(headers['content-type'] ?? '').startsWith('application/json')) problems.push(`content type ${headers['content-type']}`);
    const received: Received = {
      id: headers['webhook-id'] ?? '',
      body,
      payload: payload as WebhookPayload,
      verified,
      problems,
      answered: null,
      at: performance.now(),
    };
    this.requests.push(received);
    if (this.mode === 'hang') return;
    received.answered = this.mode !== 'ok' ? 503 : this.failing.has(received.payload?.data?.post?.title) ? 500 : 204;
    response.writeHead(received.answered).end();
  }
}

const receivers: Receiver[] = [];
const folders: string[] = [];
afterEach(async () => {
  for (const receiver of receivers.splice(0)) await receiver.down();
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

async function receiver(): Promise<Receiver> {
  const started = await Receiver.start();
  receivers.push(started);
  return started;
}

// ---------------------------------------------------------------------------------------------
// The servers' API.

interface Answer {
  status: number;
  etag: string | null;
  json: any;
}

/** Calls the API at `base` as the bearer of `token`, every answer validated against the spec. */
function client(base: string, token: string) {
  return async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> => {
    const response = await contractFetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, etag: response.headers.get('etag'), json: text === '' ? null : JSON.parse(text) };
  };
}
type Api = ReturnType<typeof client>;

const ADMIN = { email: 'hooks@example.com', password: 'Webhooks-are-signed-4-sure', name: 'Hooks' };

interface Site {
  url: string;
  servers: Started[];
  /** The API of each server, as the user (one token: the servers share JWT_SECRET). */
  apis: Api[];
  /** The first server and its API. */
  server: Started;
  api: Api;
}

/** A migrated scratch database with a user, and a server on it for each of `envs`, started with it. */
async function site(...envs: Record<string, string>[]): Promise<Site> {
  const { url } = await scratchDatabase();
  const [servers] = await Promise.all([Promise.all(envs.map((env) => startServer(url, env))), createUser(url, ADMIN)]);
  const token = await accessToken(servers[0]!.base, ADMIN.email, ADMIN.password);
  const apis = servers.map((server) => client(server.base, token));
  return { url, servers, apis, server: servers[0]!, api: apis[0]! };
}

/** Subscribes `to` to every event through `api`; the receiver learns the secret. */
async function subscribe(api: Api, to: Receiver): Promise<string> {
  const created = await api('POST', '/webhooks', { url: to.url, events: ALL_EVENTS, description: 'the test receiver' });
  expect(created.status, JSON.stringify(created.json)).toBe(201);
  expect(created.json.secret).toMatch(/^whsec_/);
  to.secret = created.json.secret as string;
  return created.json.id as string;
}

/** Creates a published post; gives its id and ETag. */
async function publish(api: Api, title: string, extra: Record<string, unknown> = {}): Promise<{ id: string; etag: string }> {
  const created = await api('POST', '/posts', { title, body: `The words of ${title}.`, tags: ['hooks'], status: 'published', ...extra });
  expect(created.status, JSON.stringify(created.json)).toBe(201);
  return { id: created.json.id as string, etag: created.etag! };
}

/** The whole delivery log of a subscription (at most 100 entries), the newest first. */
async function deliveries(api: Api, subscription: string, query = ''): Promise<any[]> {
  const page = await api('GET', `/webhooks/${subscription}/deliveries?limit=100${query}`);
  expect(page.status, JSON.stringify(page.json)).toBe(200);
  return page.json.items as any[];
}

/** Every request was a correctly signed postEvent, and each accepted event was accepted once. */
function expectSignedAndOnce(to: Receiver): void {
  for (const r of to.requests) {
    expect(r.problems, r.body).toEqual([]);
    expect(r.verified, `${r.id} verifies with the subscription's secret`).toBe(true);
  }
  for (const [id, count] of to.acceptedCounts()) expect(count, id).toBe(1);
}

const eventsOf = (to: Receiver) => to.events().map((r) => [r.payload.data.post.id, r.payload.type]);

/** Starting two server processes and a user takes 10 s on a busy machine; a restart test waits 7 s more for a claim to lapse. */
const PROCESS_TEST_MS = 60_000;

describe.skipIf(!available)('webhooks from server processes to a receiver on loopback', { timeout: PROCESS_TEST_MS }, () => {
  it('sends a post published directly as one signed post.published with the Content API post, then post.updated, post.unpublished and post.deleted, in order', async () => {
    const { api } = await site(WEBHOOK_ENV);
    const to = await receiver();
    const subscription = await subscribe(api, to);

    const post = await publish(api, 'Hello webhooks', { slug: 'hello-webhooks', excerpt: 'A first post.' });
    await expect.poll(() => to.events().length, { timeout: 10_000, interval: 50 }).toBe(1);
    const [published] = to.events();
    expect(published!.id).toMatch(/^msg_[0-9a-f]{32}$/);
    expect(published!.payload).toMatchObject({
      type: 'post.published',
      data: { post: { id: post.id, slug: 'hello-webhooks', title: 'Hello webhooks' } },
    });
    const shown = await api('GET', `/content/posts/${post.id}`);
    expect(shown.status).toBe(200);
    expect(published!.payload.data.post).toEqual(shown.json);

    const edited = await api('PATCH', `/posts/${post.id}`, { title: 'Hello again' }, { 'if-match': post.etag });
    expect(edited.status, JSON.stringify(edited.json)).toBe(200);
    const unpublished = await api('PATCH', `/posts/${post.id}`, { status: 'draft' }, { 'if-match': edited.etag! });
    expect(unpublished.status, JSON.stringify(unpublished.json)).toBe(200);
    const deleted = await api('DELETE', `/posts/${post.id}`, undefined, { 'if-match': unpublished.etag! });
    expect(deleted.status).toBe(204);

    await expect.poll(() => to.events().length, { timeout: 10_000, interval: 50 }).toBe(4);
    expect(eventsOf(to)).toEqual(ALL_EVENTS.map((type) => [post.id, type]));
    expect(to.events()[1]!.payload.data.post.title).toBe('Hello again');
    expect(to.requests).toHaveLength(4);
    expectSignedAndOnce(to);
    expect(new Set(to.requests.map((r) => r.id)).size).toBe(4);

    const log = await deliveries(api, subscription);
    expect(log.map((d) => [d.eventId, d.eventType, d.status, d.attempts, d.responseStatus])).toEqual(
      to
        .events()
        .reverse()
        .map((r) => [r.id, r.payload.type, 'succeeded', 1, 204]),
    );
  });

  it('sends a post the scheduler publishes as one post.published, with two processes running the scheduler', async () => {
    const { api } = await site(WEBHOOK_ENV, WEBHOOK_ENV);
    const to = await receiver();
    const subscription = await subscribe(api, to);

    const due = Date.now() + 1500;
    const created = await api('POST', '/posts', { title: 'Due soon', slug: 'due-soon', publishAt: new Date(due).toISOString() });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    expect(to.requests).toEqual([]);

    await expect
      .poll(async () => (await deliveries(api, subscription, '&status=succeeded')).length, { timeout: 15_000, interval: 100 })
      .toBe(1);
    expect(eventsOf(to)).toEqual([[created.json.id, 'post.published']]);
    const [event] = to.events();
    expect(event!.payload.data.post.slug).toBe('due-soon');
    expect(Date.parse(event!.payload.timestamp)).toBeGreaterThanOrEqual(due);
    expect(to.requests).toHaveLength(1);
    expectSignedAndOnce(to);
  });

  it('delivers every event of 30 posts written through two processes exactly once, each post’s events in order', async () => {
    const { apis } = await site(WEBHOOK_ENV, WEBHOOK_ENV);
    const to = await receiver();
    const subscription = await subscribe(apis[0]!, to);

    const ids = await Promise.all(
      Array.from({ length: 30 }, async (_, i) => {
        const post = await publish(apis[i % 2]!, `Twin ${i}`);
        const edited = await apis[(i + 1) % 2]!('PATCH', `/posts/${post.id}`, { body: `Edited ${i}.` }, { 'if-match': post.etag });
        expect(edited.status, JSON.stringify(edited.json)).toBe(200);
        return post.id;
      }),
    );

    await expect
      .poll(async () => (await deliveries(apis[1]!, subscription, '&status=succeeded')).length, { timeout: 30_000, interval: 250 })
      .toBe(60);
    const log = await deliveries(apis[0]!, subscription);
    expect(log).toHaveLength(60);
    expect(log.filter((d) => d.attempts !== 1)).toEqual([]);
    expect(to.requests).toHaveLength(60);
    expect(new Set(to.requests.map((r) => r.id)).size).toBe(60);
    expectSignedAndOnce(to);
    const received = eventsOf(to);
    for (const id of ids) {
      expect(
        received.filter(([postId]) => postId === id).map(([, type]) => type),
        id,
      ).toEqual(['post.published', 'post.updated']);
    }
  });

  it("delivers every event once to a receiver that answered 503 and then was down, once it is back: other posts' events not held back, a post's in order", async () => {
    const { api } = await site({ ...WEBHOOK_ENV, WEBHOOK_RETRY_SCHEDULE: Array.from({ length: 20 }, () => '1s').join(',') });
    const to = await receiver();
    const subscription = await subscribe(api, to);
    to.mode = 'unavailable';

    const first = await publish(api, 'Patient 0');
    const edited = await api('PATCH', `/posts/${first.id}`, { title: 'Patient 0 edited' }, { 'if-match': first.etag });
    expect(edited.status, JSON.stringify(edited.json)).toBe(200);
    const ids = [first.id];
    for (let i = 1; i < 5; i += 1) ids.push((await publish(api, `Patient ${i}`)).id);
    // Every post's first event is tried (and retried) on its own; the edit waits behind its post's first.
    await expect.poll(() => new Set(to.requests.map((r) => r.payload.data.post.id)).size, { timeout: 10_000, interval: 50 }).toBe(5);
    expect(to.requests.filter((r) => r.payload.type !== 'post.published')).toEqual([]);
    await to.down();
    await expect
      .poll(
        async () =>
          (await deliveries(api, subscription, '&status=pending')).find((d) => d.postId === first.id && d.eventType === 'post.published')
            ?.error,
        {
          timeout: 10_000,
          interval: 100,
        },
      )
      .toMatch(/refused/);
    to.mode = 'ok';
    await to.up();

    await expect.poll(() => to.events().length, { timeout: 15_000, interval: 100 }).toBe(6);
    expect(eventsOf(to).filter(([id]) => id === first.id)).toEqual([
      [first.id, 'post.published'],
      [first.id, 'post.updated'],
    ]);
    expect(new Set(eventsOf(to).map(([id]) => id))).toEqual(new Set(ids));
    expectSignedAndOnce(to);
    await expect
      .poll(async () => (await deliveries(api, subscription, '&status=succeeded')).length, { timeout: 5000, interval: 100 })
      .toBe(6);
    const firstLog = (await deliveries(api, subscription)).find((d) => d.postId === ids[0] && d.eventType === 'post.published');
    expect(firstLog).toMatchObject({ status: 'succeeded', responseStatus: 204, error: null });
    expect(firstLog.attempts).toBeGreaterThan(2);
  });

  it('gets event 2 of another post at once while the receiver answers 500 to event 1, which waits for its retry', async () => {
    const { api } = await site(WEBHOOK_ENV);
    const to = await receiver();
    const subscription = await subscribe(api, to);
    to.failing.add('Broken');

    const broken = await publish(api, 'Broken');
    await expect.poll(() => to.requests.map((r) => r.answered), { timeout: 10_000, interval: 20 }).toEqual([500]);
    const sentAt = performance.now();
    const fine = await publish(api, 'Fine');
    await expect.poll(() => eventsOf(to), { timeout: 3000, interval: 20 }).toEqual([[fine.id, 'post.published']]);
    const delayMs = to.events()[0]!.at - sentAt;
    console.log(`event 2 of another post delivered ${Math.round(delayMs)} ms after its write, event 1 failing`);
    const log = await deliveries(api, subscription);
    expect(log.find((d) => d.postId === broken.id)).toMatchObject({
      status: 'pending',
      attempts: 1,
      responseStatus: 500,
      error: 'HTTP 500',
    });
    expect(log.find((d) => d.postId === fine.id)).toMatchObject({ status: 'succeeded', attempts: 1 });
    expectSignedAndOnce(to);
  });

  it("ten receivers that accept and never answer delay a healthy subscription's deliveries by less than a second", async () => {
    const { api } = await site(WEBHOOK_ENV);
    const held: Socket[] = [];
    const hanging: NetServer[] = Array.from({ length: 10 }, () => createNetServer((socket) => held.push(socket)));
    try {
      const ports = await Promise.all(
        hanging.map(async (server) => {
          await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
          return (server.address() as { port: number }).port;
        }),
      );
      for (const port of ports) {
        const created = await api('POST', '/webhooks', { url: `http://127.0.0.1:${port}/hook`, events: ['post.published'] });
        expect(created.status, JSON.stringify(created.json)).toBe(201);
      }
      const to = await receiver();
      await subscribe(api, to);

      const written = new Map<string, number>();
      for (let i = 0; i < 3; i += 1) {
        const before = performance.now();
        written.set((await publish(api, `Healthy ${i}`)).id, before);
      }
      await expect.poll(() => to.events().length, { timeout: 15_000, interval: 20 }).toBe(3);
      const delays = to.events().map((r) => r.at - written.get(r.payload.data.post.id)!);
      console.log(
        `healthy subscription's deliveries, ms after each write, beside ten hanging receivers: ${delays.map(Math.round).join(', ')}`,
      );
      expect(Math.max(...delays)).toBeLessThan(1000);
      // Each hanging receiver holds its subscription's 2 attempts (of the 3 events), no more.
      await expect.poll(() => held.length, { timeout: 5000, interval: 20 }).toBe(20);
      expectSignedAndOnce(to);
    } finally {
      for (const socket of held) socket.destroy();
      await Promise.all(hanging.map((server) => new Promise((resolve) => server.close(resolve))));
    }
  });

  it('delivers, after a restart, the event whose request was in flight when the server was killed, with the same webhook-id', async () => {
    const env = { ...WEBHOOK_ENV, WEBHOOK_TIMEOUT_MS: '2000', WEBHOOK_RETRY_SCHEDULE: '1s,1s,1s' };
    const { url, server: first, api: firstApi } = await site(env);
    let api = firstApi;
    const to = await receiver();
    const subscription = await subscribe(api, to);
    to.mode = 'hang';

    const post = await publish(api, 'Interrupted');
    await expect.poll(() => to.requests.length, { timeout: 10_000, interval: 20 }).toBe(1);
    first.child.kill('SIGKILL');
    await first.exited;
    to.mode = 'ok';

    // The claim of the killed process lapses WEBHOOK_TIMEOUT_MS + 5 s after it was made.
    const second = await startServer(url, env);
    api = client(second.base, await accessToken(second.base, ADMIN.email, ADMIN.password));
    await expect.poll(() => to.events().length, { timeout: 20_000, interval: 100 }).toBe(1);
    const later = await publish(api, 'After the restart');
    await expect.poll(() => to.events().length, { timeout: 10_000, interval: 50 }).toBe(2);

    expect(eventsOf(to)).toEqual([
      [post.id, 'post.published'],
      [later.id, 'post.published'],
    ]);
    const [held, again] = to.requests;
    expect(held!.answered).toBeNull();
    expect(again!.id).toBe(held!.id);
    expect(again!.body).toBe(held!.body);
    expect(to.requests).toHaveLength(3);
    expectSignedAndOnce(to);
    await expect
      .poll(async () => (await deliveries(api, subscription, '&status=succeeded')).length, { timeout: 5000, interval: 100 })
      .toBe(2);
  });

  it('refuses a loopback URL, localhost, a name not found (something.invalid) and a fragment without WEBHOOK_ALLOW_PRIVATE_NETWORKS: 422 on /body/url at creation saying why, "not public" at delivery', async () => {
    const { WEBHOOK_ALLOW_PRIVATE_NETWORKS: _allowed, ...publicOnly } = WEBHOOK_ENV;
    // The second server may subscribe loopback URLs but delivers nothing (WEBHOOK_POLL_MS=0).
    const { apis } = await site(publicOnly, { ...WEBHOOK_ENV, WEBHOOK_POLL_MS: '0' });
    const [strict, lax] = [apis[0]!, apis[1]!];
    const to = await receiver();
    const refused = await strict('POST', '/webhooks', { url: to.url, events: ['post.published'] });
    expect(refused.status).toBe(422);
    expect(refused.json.errors.map((e: { pointer: string }) => e.pointer)).toEqual(['/body/url']);
    expect((await strict('GET', '/webhooks')).json.items).toEqual([]);

    for (const [url, message] of [
      ['http://localhost:8080/hook', 'host localhost is not public'],
      ['https://something.invalid/hook', 'host something.invalid was not found (it has no address)'],
      [`${to.url}#fragment`, 'a URL with a fragment (#…) is not allowed: a fragment is never sent to the receiver'],
    ]) {
      const answer = await strict('POST', '/webhooks', { url, events: ['post.published'] });
      expect(answer.status, url).toBe(422);
      expect(answer.json.errors, url).toEqual([{ pointer: '/body/url', message }]);
    }
    expect((await lax('POST', '/webhooks', { url: `${to.url}#fragment`, events: ['post.published'] })).status).toBe(422);
    expect((await strict('GET', '/webhooks')).json.items).toEqual([]);

    const subscription = await subscribe(lax, to);
    const post = await publish(lax, 'Kept inside');
    await expect
      .poll(async () => (await deliveries(strict, subscription)).map((d) => [d.postId, d.status, d.error]), {
        timeout: 10_000,
        interval: 100,
      })
      .toEqual([[post.id, 'pending', expect.stringMatching(/127\.0\.0\.1 is not public/)]]);
    expect(to.requests).toEqual([]);
  });
});

/** A first PGlite start (initdb and every migration, in WebAssembly) takes half a minute on a busy machine. */
const PGLITE_START_SECONDS = 100;

describe('webhooks on embedded PGlite', () => {
  it(
    'delivers a published post’s signed post.published with no database set up',
    async () => {
      const cwd = mkdtempSync(join(tmpdir(), 'margin-webhooks-'));
      folders.push(cwd);
      const port = await freePort();
      const server = spawnServer({ ...WEBHOOK_ENV, HOUSEKEEPING_INTERVAL_SECONDS: '0', HOST: '127.0.0.1', PORT: String(port) }, { cwd });
      const base = `http://127.0.0.1:${port}/api/v1`;
      await firstHealthz(server, base, PGLITE_START_SECONDS);
      const passwordFile = join(cwd, '.data', 'admin-password');
      await expect.poll(() => readFileSync(passwordFile, 'utf8').trim(), { timeout: 5000 }).not.toBe('');
      const api = client(base, await accessToken(base, 'admin@example.com', readFileSync(passwordFile, 'utf8').trim()));
      const to = await receiver();
      await subscribe(api, to);

      const post = await publish(api, 'Embedded');
      await expect.poll(() => to.events().length, { timeout: 10_000, interval: 50 }).toBe(1);
      expect(eventsOf(to)).toEqual([[post.id, 'post.published']]);
      expect(to.requests).toHaveLength(1);
      expectSignedAndOnce(to);
    },
    PGLITE_START_SECONDS * 1000 + 20_000,
  );
});
