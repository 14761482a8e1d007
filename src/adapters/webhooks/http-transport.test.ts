import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createHttpWebhookTransport, WEBHOOK_USER_AGENT } from './http-transport.js';

interface Received {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

const servers: Server[] = [];

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A receiver on 127.0.0.1 that records each request and answers with `answer` (default 204). */
async function receiver(answer: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.writeHead(204).end()) {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      answer(req, res);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { received, port, url: `http://127.0.0.1:${port}/hooks?x=1` };
}

const request = (url: string) => ({
  url,
  headers: { 'webhook-id': 'msg_1', 'webhook-timestamp': '1700000000', 'webhook-signature': 'v1,c2lnbmF0dXJl' },
  body: '{"type":"post.published","data":{"title":"Café"}}',
});

describe('HTTP webhook transport: refusal', () => {
  /** Names as a resolver of the test's answers them; any other is not found. */
  const names: Record<string, { address: string; family: number }[]> = {
    'hooks.example.com': [{ address: '93.184.215.14', family: 4 }],
    'receiver.example': [{ address: '127.0.0.1', family: 4 }],
    'mixed.example': [
      { address: '93.184.215.14', family: 4 },
      { address: '10.0.0.12', family: 4 },
    ],
    'empty.example': [],
  };
  const resolved: string[] = [];
  const resolve = async (hostname: string) => {
    resolved.push(hostname);
    const found = names[hostname];
    if (found === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return found;
  };
  const transport = createHttpWebhookTransport({ allowPrivateNetworks: false, resolve });
  const allowing = createHttpWebhookTransport({ allowPrivateNetworks: true, resolve });

  it('accepts http and https URLs to names that resolve to public addresses only, and to public addresses', async () => {
    expect(await transport.refusal('https://hooks.example.com/margin')).toBeNull();
    expect(await transport.refusal('http://93.184.215.14:8080/x')).toBeNull();
    expect(await transport.refusal('https://[2606:4700:4700::1111]/x')).toBeNull();
  });

  it('refuses other schemes, credentials, a fragment, URLs over 2000 characters and what is no URL', async () => {
    expect(await transport.refusal('ftp://example.com/x')).toBe('only http: and https: URLs may receive webhooks');
    expect(await transport.refusal('file:///etc/passwd')).toBe('only http: and https: URLs may receive webhooks');
    expect(await transport.refusal('https://user:pass@example.com/')).toBe('a URL with a user name or password is not allowed');
    expect(await transport.refusal('https://user@example.com/')).toBe('a URL with a user name or password is not allowed');
    const fragment = 'a URL with a fragment (#…) is not allowed: a fragment is never sent to the receiver';
    expect(await transport.refusal('https://hooks.example.com/margin#build')).toBe(fragment);
    expect(await transport.refusal('https://hooks.example.com/margin#')).toBe(fragment);
    expect(await allowing.refusal('http://127.0.0.1/#x')).toBe(fragment);
    expect(await transport.refusal(`https://example.com/${'a'.repeat(2000)}`)).toBe('the URL is longer than 2000 characters');
    expect(await transport.refusal('/relative')).toBe('not an absolute URL');
  });

  it('refuses literal addresses that are not public, however they are written, unless private networks are allowed', async () => {
    expect(await transport.refusal('http://127.0.0.1:8080/')).toBe('address 127.0.0.1 is not public');
    expect(await transport.refusal('http://2130706433/')).toBe('address 127.0.0.1 is not public');
    expect(await transport.refusal('http://0x7f.1/')).toBe('address 127.0.0.1 is not public');
    expect(await transport.refusal('http://[::ffff:127.0.0.1]/')).toBe('address 127.0.0.1 is not public');
    expect(await transport.refusal('http://[::1]/')).toBe('address ::1 is not public');
    expect(await transport.refusal('http://[::7f00:1]/')).toBe('address ::7f00:1 is not public');
    expect(await transport.refusal('http://169.254.169.254/latest/meta-data/')).toBe('address 169.254.169.254 is not public');
    expect(await transport.refusal('http://10.0.0.1/')).toBe('address 10.0.0.1 is not public');
    expect(await transport.refusal('http://localhost:8080/')).toBe('host localhost is not public');
    expect(await transport.refusal('http://api.LOCALHOST./')).toBe('host api.localhost. is not public');
    expect(await allowing.refusal('http://localhost:8080/')).toBeNull();
    expect(await allowing.refusal('http://127.0.0.1:8080/')).toBeNull();
    expect(await allowing.refusal('ftp://127.0.0.1/')).toBe('only http: and https: URLs may receive webhooks');
  });

  it('resolves a name now and refuses it when any address is not public, or when it has none or is not found', async () => {
    const privateHint = 'which is not a public address (WEBHOOK_ALLOW_PRIVATE_NETWORKS=true allows private targets)';
    expect(await transport.refusal('http://receiver.example:8080/hook')).toBe(
      `host receiver.example resolves to 127.0.0.1, ${privateHint}`,
    );
    expect(await transport.refusal('https://mixed.example/')).toBe(`host mixed.example resolves to 10.0.0.12, ${privateHint}`);
    expect(await transport.refusal('https://empty.example/')).toBe('host empty.example was not found (it has no address)');
    expect(await transport.refusal('https://something.invalid/')).toBe('host something.invalid was not found (it has no address)');
    expect(await transport.refusal('https://localhost.example.com/')).toBe('host localhost.example.com was not found (it has no address)');
  });

  it('words a temporary DNS failure and a resolver slower than the timeout', async () => {
    const again = createHttpWebhookTransport({
      allowPrivateNetworks: false,
      resolve: () => Promise.reject(Object.assign(new Error('getaddrinfo EAI_AGAIN'), { code: 'EAI_AGAIN' })),
    });
    expect(await again.refusal('https://hooks.example.com/')).toBe(
      'host hooks.example.com could not be resolved (temporary DNS failure): try again',
    );
    const slow = createHttpWebhookTransport({ allowPrivateNetworks: false, timeoutMs: 100, resolve: () => new Promise(() => undefined) });
    expect(await slow.refusal('https://hooks.example.com/')).toBe('host hooks.example.com could not be resolved within 100 ms');
  });

  it('resolves no name while private networks are allowed, nor an address literal', async () => {
    resolved.length = 0;
    expect(await allowing.refusal('https://something.invalid/')).toBeNull();
    expect(await transport.refusal('http://93.184.215.14/')).toBeNull();
    expect(resolved).toEqual([]);
  });
});

describe('HTTP webhook transport: send', () => {
  it('POSTs the body with the given headers, its user agent and JSON content type, when private networks are allowed', async () => {
    const { received, url } = await receiver();
    const transport = createHttpWebhookTransport({ allowPrivateNetworks: true });
    const response = await transport.send(request(url));
    expect(response).toMatchObject({ kind: 'answered', status: 204 });
    expect(response.latencyMs).toBeGreaterThanOrEqual(0);
    expect(received).toHaveLength(1);
    const [got] = received;
    expect(got).toMatchObject({ method: 'POST', url: '/hooks?x=1', body: request(url).body });
    expect(got!.headers).toMatchObject({
      'webhook-id': 'msg_1',
      'webhook-timestamp': '1700000000',
      'webhook-signature': 'v1,c2lnbmF0dXJl',
      'user-agent': WEBHOOK_USER_AGENT,
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(request(url).body)),
    });
  });

  it('keeps its own user agent and content type whatever the request says', async () => {
    const { received, url } = await receiver();
    const transport = createHttpWebhookTransport({ allowPrivateNetworks: true });
    await transport.send({ ...request(url), headers: { 'user-agent': 'x', 'content-type': 'text/plain' } });
    expect(received[0]!.headers).toMatchObject({ 'user-agent': WEBHOOK_USER_AGENT, 'content-type': 'application/json' });
  });

  it('answers any status as answered: a 500 and a 302 alike', async () => {
    const transport = createHttpWebhookTransport({ allowPrivateNetworks: true });
    const failing = await receiver((_req, res) => res.writeHead(500).end('oops'));
    expect(await transport.send(request(failing.url))).toMatchObject({ kind: 'answered', status: 500 });
  });

  it('refuses a loopback receiver before connecting when private networks are not allowed: by address, by name, IPv4-mapped', async () => {
    const { received, port } = await receiver();
    const transport = createHttpWebhookTransport({ allowPrivateNetworks: false });
    expect(await transport.send(request(`http://127.0.0.1:${port}/`))).toMatchObject({
      kind: 'failed',
      error: 'address 127.0.0.1 is not public',
    });
    expect(await transport.send(request(`http://localhost:${port}/`))).toMatchObject({
      kind: 'failed',
      error: 'host localhost is not public',
    });
    // A name the resolver maps to loopback is refused when resolved.
    const resolving = createHttpWebhookTransport({
      allowPrivateNetworks: false,
      resolve: async () => [{ address: '127.0.0.1', family: 4 }],
    });
    expect(await resolving.send(request(`http://receiver.example:${port}/`))).toMatchObject({
      kind: 'failed',
      error: 'address 127.0.0.1 is not public',
    });
    expect(await transport.send(request(`http://[::ffff:127.0.0.1]:${port}/`))).toMatchObject({
      kind: 'failed',
      error: 'address 127.0.0.1 is not public',
    });
    expect(received).toHaveLength(0);
  });

  it('refuses the metadata service and private addresses', async () => {
    const transport = createHttpWebhookTransport({ allowPrivateNetworks: false });
    expect(await transport.send(request('http://169.254.169.254/latest/meta-data/'))).toMatchObject({
      kind: 'failed',
      error: 'address 169.254.169.254 is not public',
    });
    expect(await transport.send(request('http://10.0.0.1/'))).toMatchObject({ kind: 'failed', error: 'address 10.0.0.1 is not public' });
  });

  it('refuses a name when any of its addresses is not public, and one that resolves to none', async () => {
    const names: Record<string, { address: string; family: number }[]> = {
      'mixed.example': [
        { address: '93.184.215.14', family: 4 },
        { address: '10.1.2.3', family: 4 },
      ],
      'metadata.example': [{ address: '::ffff:169.254.169.254', family: 6 }],
      'empty.example': [],
    };
    const resolved: string[] = [];
    const transport = createHttpWebhookTransport({
      allowPrivateNetworks: false,
      resolve: async (hostname) => {
        resolved.push(hostname);
        return names[hostname] ?? [];
      },
    });
    expect(await transport.send(request('https://mixed.example/hook'))).toMatchObject({
      kind: 'failed',
      error: 'address 10.1.2.3 is not public',
    });
    expect(await transport.send(request('http://metadata.example/'))).toMatchObject({
      kind: 'failed',
      error: 'address 169.254.169.254 is not public',
    });
    expect(await transport.send(request('http://empty.example/'))).toMatchObject({
      kind: 'failed',
      error: 'host empty.example has no address',
    });
    // Resolved once each, by the check that the connection then uses: no second answer to trust.
    expect(resolved).toEqual(['mixed.example', 'metadata.example', 'empty.example']);
  });

  it('says a host was not found', async () => {
    const notFound = Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.invalid'), { code: 'ENOTFOUND' });
    const transport = createHttpWebhookTransport({ allowPrivateNetworks: false, resolve: () => Promise.reject(notFound) });
    expect(await transport.send(request('http://nowhere.invalid/'))).toMatchObject({
      kind: 'failed',
      error: 'host nowhere.invalid not found',
    });
  });

  it('gives up on a receiver that never answers after its timeout', async () => {
    const silent = await receiver(() => undefined);
    const transport = createHttpWebhookTransport({ allowPrivateNetworks: true, timeoutMs: 150 });
    const response = await transport.send(request(silent.url));
    expect(response).toMatchObject({ kind: 'failed', error: 'timed out after 150 ms' });
    expect(response.latencyMs).toBeGreaterThanOrEqual(140);
    expect(silent.received).toHaveLength(1);
  });

  it('words the default timeout in seconds', async () => {
    const silent = await receiver(() => undefined);
    const transport = createHttpWebhookTransport({ allowPrivateNetworks: true, timeoutMs: 1000 });
    expect(await transport.send(request(silent.url))).toMatchObject({ kind: 'failed', error: 'timed out after 1 s' });
  });

  it('says the connection was refused when nothing listens', async () => {
    const { port } = await receiver();
    const server = servers.pop()!;
    await new Promise((resolve) => server.close(resolve));
    const transport = createHttpWebhookTransport({ allowPrivateNetworks: true });
    expect(await transport.send(request(`http://127.0.0.1:${port}/`))).toMatchObject({ kind: 'failed', error: 'connection refused' });
  });

  it('does not follow a redirect, to a private address or anywhere', async () => {
    const target = await receiver();
    const redirecting = await receiver((_req, res) => res.writeHead(302, { location: `http://127.0.0.1:${target.port}/` }).end());
    const transport = createHttpWebhookTransport({ allowPrivateNetworks: true });
    expect(await transport.send(request(redirecting.url))).toMatchObject({ kind: 'answered', status: 302 });
    expect(redirecting.received).toHaveLength(1);
    expect(target.received).toHaveLength(0);
  });

  it('answers as soon as the headers come, reading no more than 64 KiB of a large body', async () => {
    let written = 0;
    let closed!: () => void;
    const serverSideClosed = new Promise<void>((resolve) => (closed = resolve));
    const large = await receiver((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(64 * 1024, 'x');
      const pump = () => {
        while (written < 64 * 1024 * 1024 && !res.destroyed) {
          written += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      res.on('close', closed);
      pump();
    });
    const transport = createHttpWebhookTransport({ allowPrivateNetworks: true });
    expect(await transport.send(request(large.url))).toMatchObject({ kind: 'answered', status: 200 });
    // The client closed the connection after 64 KiB: the server stops well short of 64 MiB.
    await serverSideClosed;
    expect(written).toBeLessThan(64 * 1024 * 1024);
  });

  it('never puts the request headers or body in an error', async () => {
    const transport = createHttpWebhookTransport({ allowPrivateNetworks: true });
    const bad = await transport.send({ ...request('http://127.0.0.1:9/'), headers: { 'webhook-signature': 'v1,secret\nvalue' } });
    expect(bad.kind).toBe('failed');
    expect(JSON.stringify(bad)).not.toContain('secret');
  });
});
