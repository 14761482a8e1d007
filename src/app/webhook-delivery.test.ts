import { Webhook } from 'standardwebhooks';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createServer, type Server } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Server as NetServer, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { createWebhookSigner } from '../adapters/crypto/webhook-signer.js';
import { createHttpWebhookTransport } from '../adapters/webhooks/http-transport.js';
import { newPost, ulid } from '../adapters/contract/fixtures.js';
import { newSubscription, subscriptionId } from '../adapters/contract/webhook-fixtures.js';
import { createMemoryStore } from '../adapters/memory/store.js';
import {
  WEBHOOK_IN_FLIGHT_PER_SUBSCRIPTION,
  type Post,
  type Store,
  type WebhookRequest,
  type WebhookResponse,
  type WebhookSubscription,
} from '../domain/index.js';
import { WebhookDeliveryWorker, type WebhookDeliveryOptions } from './webhook-delivery.js';

const signer = createWebhookSigner();
const SCHEDULE = [5_000, 300_000];

/** A transport whose answers the test decides; it records every request. */
function fakeTransport(answer: (request: WebhookRequest) => WebhookResponse | Promise<WebhookResponse> = () => ok(204)) {
  const sent: WebhookRequest[] = [];
  return {
    sent,
    send: async (request: WebhookRequest) => {
      sent.push(request);
      return answer(request);
    },
  };
}
const ok = (status: number): WebhookResponse => ({ kind: 'answered', status, latencyMs: 7 });
const refused: WebhookResponse = { kind: 'failed', error: 'connection refused', latencyMs: 3 };

function fakeLog() {
  const lines: { level: string; message: string; fields?: Record<string, unknown> }[] = [];
  const at = (level: string) => (message: string, fields?: Record<string, unknown>) => lines.push({ level, message, fields });
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn') };
}

/** A deferred: a promise and what settles it. */
function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

let store: Store;
let now: Date;
const clock = { now: () => new Date(now) };
const advance = (ms: number) => (now = new Date(now.getTime() + ms));

beforeEach(() => {
  store = createMemoryStore();
  // Near the real time: the reference implementation checks the timestamp against it.
  now = new Date(Math.floor(Date.now() / 1000) * 1000);
});

afterEach(async () => {
  vi.useRealTimers();
  await store.close();
});

function workerOf(transport: WebhookDeliveryOptions['transport'], options: Partial<WebhookDeliveryOptions> = {}) {
  const log = fakeLog();
  const worker = new WebhookDeliveryWorker({
    webhooks: store.webhooks,
    transport,
    signer,
    clock,
    presentPost: (post: Post) => ({ id: post.id, title: post.title, publishedAt: post.publishedAt?.toISOString() }),
    timeoutMs: 10_000,
    retrySchedule: SCHEDULE,
    random: () => 0.5,
    log,
    ...options,
  });
  return { worker, log };
}

const listen = (n = 1, overrides: Partial<WebhookSubscription> = {}) => store.webhooks.create(newSubscription(n, overrides));
/** A post published now (the outbox's delivery is created at the post's `updatedAt`). */
const publish = (n: number) =>
  store.posts.create(newPost(n, { status: 'published', createdAt: new Date(now), publishedAt: new Date(now) }));
/** Edits published post `n`, its `version`-th write, now: a post.updated. */
const edit = (n: number, version: number, title: string) => store.posts.update(ulid(n), version, { title }, new Date(now));
const deliveriesOf = async (n = 1) => (await store.webhooks.deliveries(subscriptionId(n), { limit: 100 })).items;

describe('WebhookDeliveryWorker', () => {
  it('sends each due delivery signed as Standard Webhooks says, and records its success', async () => {
    const subscription = await listen();
    const post = await publish(1);
    const transport = fakeTransport();
    const { worker } = workerOf(transport);

    expect(await worker.runOnce()).toEqual({ claimed: 1, succeeded: 1, failed: 0 });

    const [request] = transport.sent;
    const [delivery] = await deliveriesOf();
    expect(request!.url).toBe(subscription.url);
    expect(request!.headers).toEqual({
      'webhook-id': delivery!.eventId,
      'webhook-timestamp': String(now.getTime() / 1000),
      'webhook-signature': expect.stringMatching(/^v1,[A-Za-z0-9+/]{43}=$/) as string,
    });
    expect(new Webhook(subscription.secret).verify(request!.body, request!.headers)).toEqual({
      type: 'post.published',
      timestamp: post.updatedAt.toISOString(),
      data: { post: { id: post.id, title: post.title, publishedAt: post.publishedAt!.toISOString() } },
    });
    expect(delivery).toMatchObject({
      status: 'succeeded',
      attempts: 1,
      responseStatus: 204,
      error: null,
      latencyMs: 7,
      nextAttemptAt: null,
    });
  });

  it("delivers each subscription a post's events in the order of its changes, subscriptions at once", async () => {
    await listen(1);
    await listen(2);
    await publish(1);
    await edit(1, 1, 'Edit 1');
    await edit(1, 2, 'Edit 2');
    const inFlight = new Set<string>();
    let most = 0;
    const bothStarted = deferred();
    const transport = fakeTransport(async (request) => {
      inFlight.add(request.url);
      most = Math.max(most, inFlight.size);
      if (inFlight.size === 2) bothStarted.resolve();
      await bothStarted.promise;
      inFlight.delete(request.url);
      return ok(200);
    });
    const { worker } = workerOf(transport);

    await worker.runDue();

    expect(most).toBe(2);
    const titles = (n: number) =>
      transport.sent
        .filter((r) => r.url === `https://hooks.example/${n}`)
        .map((r) => (JSON.parse(r.body) as { data: { post: { title: string } } }).data.post.title);
    expect(titles(1)).toEqual(['Post 1', 'Edit 1', 'Edit 2']);
    expect(titles(2)).toEqual(['Post 1', 'Edit 1', 'Edit 2']);
  });

  it("does not hold a fast subscription's events behind a slow receiver, which holds perSubscription deliveries in flight", async () => {
    await listen(1);
    await listen(2);
    for (const n of [1, 2, 3]) await publish(n);
    const slow = deferred<WebhookResponse>();
    const transport = fakeTransport((request) => (request.url.endsWith('/1') ? slow.promise : ok(204)));
    const { worker } = workerOf(transport);
    const sentTo = (n: number) => transport.sent.filter((r) => r.url === `https://hooks.example/${n}`).length;

    const running = worker.runDue();
    await vi.waitFor(() => expect(sentTo(2)).toBe(3));
    expect(sentTo(1)).toBe(WEBHOOK_IN_FLIGHT_PER_SUBSCRIPTION);
    expect((await deliveriesOf(2)).map((d) => d.status)).toEqual(['succeeded', 'succeeded', 'succeeded']);

    slow.resolve(ok(204));
    await running;
    expect(sentTo(1)).toBe(3);
  });

  it('keeps at most `concurrency` deliveries in flight, and claims the next as soon as one settles', async () => {
    for (const n of [1, 2, 3]) await listen(n);
    await publish(1);
    const answers = new Map<string, ReturnType<typeof deferred<WebhookResponse>>>();
    const transport = fakeTransport((request) => {
      const answer = deferred<WebhookResponse>();
      answers.set(request.url, answer);
      return answer.promise;
    });
    const { worker } = workerOf(transport, { concurrency: 2 });

    const running = worker.runDue();
    await vi.waitFor(() => expect(transport.sent).toHaveLength(2));
    await Promise.resolve();
    expect(transport.sent).toHaveLength(2);
    answers.get(transport.sent[0]!.url)!.resolve(ok(204));
    await vi.waitFor(() => expect(transport.sent).toHaveLength(3));
    for (const answer of answers.values()) answer.resolve(ok(204));
    await running;
    expect(new Set(transport.sent.map((r) => r.url)).size).toBe(3);
  });

  it("retries a failed attempt after the schedule's pause, lengthened by up to 20 %, with the same webhook-id", async () => {
    await listen();
    await publish(1);
    const transport = fakeTransport(() => ok(500));
    const low = workerOf(transport, { random: () => 0 }).worker;
    const high = workerOf(transport, { random: () => 0.99 }).worker;
    const start = now.getTime();

    expect(await low.runOnce()).toEqual({ claimed: 1, succeeded: 0, failed: 1 });
    let [delivery] = await deliveriesOf();
    expect(delivery).toMatchObject({ status: 'pending', attempts: 1, responseStatus: 500, error: 'HTTP 500' });
    expect(delivery!.nextAttemptAt!.getTime() - start).toBe(5_000);

    advance(4_999);
    expect(await high.runOnce()).toEqual({ claimed: 0, succeeded: 0, failed: 0 });
    advance(1);
    expect(await high.runOnce()).toEqual({ claimed: 1, succeeded: 0, failed: 1 });
    [delivery] = await deliveriesOf();
    expect(delivery).toMatchObject({ status: 'pending', attempts: 2 });
    expect(delivery!.nextAttemptAt!.getTime() - now.getTime()).toBe(Math.round(300_000 * (1 + 0.2 * 0.99)));
    expect(delivery!.nextAttemptAt!.getTime() - now.getTime()).toBeLessThan(360_000);
    expect(new Set(transport.sent.map((r) => r.headers['webhook-id'])).size).toBe(1);
  });

  it('words a redirect as not followed and retries it', async () => {
    await listen();
    await publish(1);
    const { worker } = workerOf(fakeTransport(() => ok(302)));
    await worker.runOnce();
    expect((await deliveriesOf())[0]).toMatchObject({ status: 'pending', responseStatus: 302, error: 'HTTP 302: redirect not followed' });
  });

  it('gives up after the last attempt: the delivery fails and its subscription is disabled, saying why', async () => {
    await listen();
    await publish(1);
    await edit(1, 1, 'Waits behind');
    const transport = fakeTransport(() => refused);
    const { worker, log } = workerOf(transport);
    const start = now.getTime();
    await worker.runOnce();
    advance(6_000);
    await worker.runOnce();
    advance(360_000);
    expect(await worker.runOnce()).toEqual({ claimed: 1, succeeded: 0, failed: 1 });

    const deliveries = await deliveriesOf();
    const first = deliveries.find((d) => d.eventId === transport.sent[0]!.headers['webhook-id']);
    expect(deliveries.map((d) => d.status).sort()).toEqual(['failed', 'pending']);
    expect(first).toMatchObject({ status: 'failed', attempts: 3, nextAttemptAt: null, error: 'connection refused', responseStatus: null });
    const subscription = await store.webhooks.get(subscriptionId(1));
    expect(subscription!.enabled).toBe(false);
    const minutes = Math.round(((now.getTime() - start) / 60_000) * 10) / 10;
    expect(subscription!.disabledReason).toBe(
      `Disabled at ${now.toISOString()} after the delivery ${first!.eventId} failed 3 attempts over ${minutes} minutes; ` +
        'the last attempt failed: connection refused.',
    );
    expect(log.lines.some((l) => l.level === 'warn' && l.message.includes('subscription disabled'))).toBe(true);
    // A disabled subscription's later events wait: nothing more is claimed.
    advance(86_400_000);
    expect(await worker.runOnce()).toEqual({ claimed: 0, succeeded: 0, failed: 0 });
    expect(transport.sent).toHaveLength(3);
  });

  it("names the receiver's last status when it answered", async () => {
    await listen();
    await publish(1);
    const { worker } = workerOf(
      fakeTransport(() => ok(503)),
      { retrySchedule: [] },
    );
    await worker.runOnce();
    expect((await store.webhooks.get(subscriptionId(1)))!.disabledReason).toMatch(
      /^Disabled at .* after the delivery msg_[0-9a-f]{32} failed 1 attempt over \d+(\.\d)? \w+; the last answer was HTTP 503\.$/,
    );
  });

  it('co-signs with the previous secret until it expires, then with the current one alone', async () => {
    const previous = signer.newSecret();
    const subscription = await listen(1, { previousSecret: { secret: previous, expiresAt: new Date(now.getTime() + 60_000) } });
    await publish(1);
    const transport = fakeTransport();
    const { worker } = workerOf(transport);

    await worker.runOnce();
    await publish(2);
    const [first] = transport.sent;
    expect(first!.headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(() => new Webhook(subscription.secret).verify(first!.body, first!.headers)).not.toThrow();
    expect(() => new Webhook(previous).verify(first!.body, first!.headers)).not.toThrow();

    advance(60_000);
    await worker.runOnce();
    const [, second] = transport.sent;
    expect(second!.headers['webhook-signature']!.split(' ')).toHaveLength(1);
    expect(() => new Webhook(subscription.secret).verify(second!.body, second!.headers)).not.toThrow();
    expect(() => new Webhook(previous).verify(second!.body, second!.headers)).toThrow(/No matching signature/);
  });

  it('records nothing of an attempt whose claim lapsed and another worker took: counted neither way', async () => {
    await listen();
    await publish(1);
    const release = deferred<WebhookResponse>();
    const slow = fakeTransport(() => release.promise);
    const { worker: a, log } = workerOf(slow);
    const { worker: b } = workerOf(fakeTransport(() => ok(204)));

    const roundA = a.runOnce();
    await vi.waitFor(() => expect(slow.sent).toHaveLength(1));
    advance(a.leaseMs);
    expect(await b.runOnce()).toEqual({ claimed: 1, succeeded: 1, failed: 0 });
    release.resolve(ok(500));
    expect(await roundA).toEqual({ claimed: 1, succeeded: 0, failed: 0 });

    expect((await deliveriesOf())[0]).toMatchObject({ status: 'succeeded', attempts: 2, responseStatus: 204, error: null });
    expect(log.lines.some((l) => l.message.includes('not recorded'))).toBe(true);
  });

  it('holds a claim for the timeout and 5 s', () => {
    expect(workerOf(fakeTransport(), { timeoutMs: 2_000 }).worker.leaseMs).toBe(7_000);
  });

  it("shows a deleted draft's publishedAt as the event's time, and a scheduled one's as its publishAt", async () => {
    await listen();
    const publishAt = new Date('2030-01-01T09:00:00.000Z');
    await store.posts.create(newPost(1));
    await store.posts.create(newPost(2, { publishAt }));
    const gone = await store.posts.delete(ulid(1), 1);
    await store.posts.delete(ulid(2), 1);
    const transport = fakeTransport();
    await workerOf(transport).worker.runDue();
    const bodies = transport.sent.map(
      (r) => JSON.parse(r.body) as { type: string; timestamp: string; data: { post: { publishedAt: string } } },
    );
    expect(bodies.map((b) => b.type)).toEqual(['post.deleted', 'post.deleted']);
    expect(bodies[0]!.data.post.publishedAt).toBe(bodies[0]!.timestamp);
    expect(gone.publishedAt).toBeNull();
    expect(bodies[1]!.data.post.publishedAt).toBe(publishAt.toISOString());
  });

  it('never logs the secret, the signature or the body', async () => {
    const subscription = await listen();
    await publish(1);
    const transport = fakeTransport(() => ok(500));
    const { worker, log } = workerOf(transport, { retrySchedule: [] });
    await worker.runOnce();
    const logged = JSON.stringify(log.lines);
    expect(log.lines.length).toBeGreaterThan(0);
    expect(logged).not.toContain(subscription.secret.slice('whsec_'.length, 20));
    expect(logged).not.toContain(transport.sent[0]!.headers['webhook-signature']!.slice(3));
    expect(logged).not.toContain('Post 1');
  });

  it('leaves a delivery whose payload cannot be made to its claim, and goes on with the others', async () => {
    await listen(1);
    await listen(2);
    await publish(1);
    const transport = fakeTransport();
    let calls = 0;
    const { worker, log } = workerOf(transport, {
      presentPost: (post) => {
        calls += 1;
        if (calls === 1) throw new Error('media lookup failed');
        return { id: post.id };
      },
    });
    expect(await worker.runOnce()).toEqual({ claimed: 2, succeeded: 1, failed: 0 });
    expect(log.lines.some((l) => l.level === 'warn' && l.message.includes('retried when its claim lapses'))).toBe(true);
    advance(worker.leaseMs);
    expect(await worker.runOnce()).toEqual({ claimed: 1, succeeded: 1, failed: 0 });
  });
});

describe('WebhookDeliveryWorker over HTTP', () => {
  it('a receiver on loopback, with private networks allowed, gets post.published once, verified by the reference implementation', async () => {
    const received: { headers: Record<string, string>; body: string }[] = [];
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        received.push({ headers: req.headers as Record<string, string>, body: Buffer.concat(chunks).toString('utf8') });
        res.writeHead(200).end('thanks');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const subscription = await listen(1, { url: `http://127.0.0.1:${port}/hooks`, secret: signer.newSecret() });
      const post = await publish(1);
      const { worker } = workerOf(createHttpWebhookTransport({ allowPrivateNetworks: true, timeoutMs: 5000 }));
      await worker.runDue();
      expect(received).toHaveLength(1);
      const payload = new Webhook(subscription.secret).verify(received[0]!.body, received[0]!.headers) as {
        type: string;
        data: { post: { id: string } };
      };
      expect(payload).toMatchObject({ type: 'post.published', data: { post: { id: post.id } } });
      expect((await deliveriesOf())[0]).toMatchObject({ status: 'succeeded', responseStatus: 200 });

      // The same receiver, private networks not allowed: refused before connecting, and retried later.
      await publish(2);
      const { worker: strict } = workerOf(createHttpWebhookTransport({ allowPrivateNetworks: false }));
      await strict.runOnce();
      expect(received).toHaveLength(1);
      const refusedOne = (await deliveriesOf()).find((d) => d.status === 'pending');
      expect(refusedOne).toMatchObject({ attempts: 1, responseStatus: null, error: 'address 127.0.0.1 is not public' });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("a receiver that answers 500 to one post's event gets another post's event at once, the first waiting for its retry", async () => {
    const answered: { postId: string; status: number }[] = [];
    let failing = '';
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const { data } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data: { post: { id: string } } };
        const status = data.post.id === failing ? 500 : 204;
        answered.push({ postId: data.post.id, status });
        res.writeHead(status).end();
      });
    });
    const { port } = await listening(server);
    try {
      await listen(1, { url: `http://127.0.0.1:${port}/hooks` });
      failing = (await publish(1)).id;
      const other = await publish(2);
      const { worker } = workerOf(createHttpWebhookTransport({ allowPrivateNetworks: true, timeoutMs: 5000 }), { perSubscription: 1 });
      await worker.runDue();
      expect(answered).toEqual([
        { postId: failing, status: 500 },
        { postId: other.id, status: 204 },
      ]);
      const log = await deliveriesOf();
      expect(log.find((d) => d.postId === failing)).toMatchObject({ status: 'pending', attempts: 1, error: 'HTTP 500' });
      expect(log.find((d) => d.postId === other.id)).toMatchObject({ status: 'succeeded', attempts: 1 });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("ten receivers that accept and never answer delay a healthy subscription's deliveries by less than a second", async () => {
    const held: Socket[] = [];
    const hanging = Array.from({ length: 10 }, () => createNetServer((socket) => held.push(socket)));
    const accepted: number[] = [];
    const healthy = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        accepted.push(performance.now());
        res.writeHead(204).end();
      });
    });
    const ports = await Promise.all([...hanging, healthy].map(async (server) => (await listening(server)).port));
    try {
      for (const [i, port] of ports.entries()) await listen(i + 1, { url: `http://127.0.0.1:${port}/hooks` });
      for (const n of [1, 2, 3]) await publish(n);
      const { worker } = workerOf(createHttpWebhookTransport({ allowPrivateNetworks: true, timeoutMs: 10_000 }));
      const started = performance.now();
      const running = worker.runDue();
      await vi.waitFor(() => expect(accepted).toHaveLength(3), { timeout: 15_000, interval: 10 });
      const delayMs = Math.max(...accepted) - started;
      expect(held.length, "the hanging receivers hold their subscriptions' share").toBe(10 * WEBHOOK_IN_FLIGHT_PER_SUBSCRIPTION);
      expect(delayMs).toBeLessThan(1000);
      for (const socket of held) socket.destroy();
      await running;
    } finally {
      for (const socket of held) socket.destroy();
      await Promise.all([...hanging, healthy].map((server) => new Promise((resolve) => server.close(resolve))));
    }
  });
});

/** Listens on an ephemeral port of 127.0.0.1; answers the port. */
async function listening(server: Server | NetServer): Promise<AddressInfo> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server.address() as AddressInfo;
}

describe('WebhookDeliveryWorker.start', () => {
  it('polls; a round that throws (the store down) is logged, and the next one delivers', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    await listen();
    await publish(1);
    let failures = 1;
    const webhooks: WebhookDeliveryOptions['webhooks'] = {
      claim: (...args) => (failures-- > 0 ? Promise.reject(new Error('database down')) : store.webhooks.claim(...args)),
      settle: (...args) => store.webhooks.settle(...args),
    };
    const transport = fakeTransport();
    const { worker, log } = workerOf(transport, { webhooks });
    const stop = worker.start(1000);

    await vi.advanceTimersByTimeAsync(1000);
    expect(log.lines).toContainEqual(expect.objectContaining({ level: 'warn', message: 'webhook delivery failed' }));
    expect(transport.sent).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1000);
    await vi.waitFor(() => expect(transport.sent).toHaveLength(1));
    await stop();
    expect((await deliveriesOf())[0]!.status).toBe('succeeded');
  });

  it('stops after the deliveries in flight are settled', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    await listen();
    await publish(1);
    const release = deferred<WebhookResponse>();
    const transport = fakeTransport(() => release.promise);
    const { worker } = workerOf(transport);
    const stop = worker.start(1000);
    await vi.advanceTimersByTimeAsync(1000);
    await vi.waitFor(() => expect(transport.sent).toHaveLength(1));

    let stopped = false;
    const stopping = stop().then(() => (stopped = true));
    await Promise.resolve();
    expect(stopped).toBe(false);
    release.resolve(ok(204));
    await stopping;
    expect((await deliveriesOf())[0]!.status).toBe('succeeded');
  });

  it('wake() runs a round without waiting for the next tick', async () => {
    await listen();
    const transport = fakeTransport();
    const { worker } = workerOf(transport);
    const stop = worker.start(3_600_000);
    await publish(1);
    worker.wake();
    await vi.waitFor(() => expect(transport.sent).toHaveLength(1));
    await stop();
  });

  it('wake() during a run goes round once more for what was enqueued meanwhile', async () => {
    await listen();
    await publish(1);
    const first = deferred<WebhookResponse>();
    const transport = fakeTransport(() => (transport.sent.length === 1 ? first.promise : ok(204)));
    const { worker } = workerOf(transport);
    worker.wake();
    await vi.waitFor(() => expect(transport.sent).toHaveLength(1));
    await publish(2);
    worker.wake();
    first.resolve(ok(204));
    await vi.waitFor(() => expect(transport.sent).toHaveLength(2));
    expect((await deliveriesOf()).map((d) => d.status)).toEqual(['succeeded', 'succeeded']);
  });
});
