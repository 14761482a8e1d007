import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { HttpBindings } from './adapters/http/node-server.js';
import { gateUntilOpen, originOf } from './server.js';

/** Stands for the connection the Node adapter passes beside a request. */
const bindings = { incoming: {}, outgoing: {} } as HttpBindings;

describe('gateUntilOpen', () => {
  it('holds requests until open() (the first admin exists), then answers them and the next at once', async () => {
    const answered: string[] = [];
    const gate = gateUntilOpen((request) => {
      answered.push(request.url);
      return new Response('ok');
    });
    const early = gate.fetch(new Request('http://localhost/api/v1/auth/login'), bindings);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(answered).toEqual([]);
    gate.open();
    expect((await early).status).toBe(200);
    const late = gate.fetch(new Request('http://localhost/api/v1/healthz'), bindings);
    expect(late).toBeInstanceOf(Response);
    expect(answered).toEqual(['http://localhost/api/v1/auth/login', 'http://localhost/api/v1/healthz']);
  });

  it('passes the connection beside each request on to the app, before and after open(): the client address is read there', async () => {
    const seen: unknown[] = [];
    const gate = gateUntilOpen((_request, env) => {
      seen.push(env);
      return new Response('ok');
    });
    const early = gate.fetch(new Request('http://localhost/api/v1/healthz'), bindings);
    gate.open();
    await early;
    await gate.fetch(new Request('http://localhost/api/v1/healthz'), bindings);
    expect(seen).toEqual([bindings, bindings]);
    expect(seen[0]).toBe(bindings);
  });
});

describe('originOf', () => {
  it('names the port the server was given when PORT=0 asked for any, and localhost for a local address', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as { port: number };
      expect(port).toBeGreaterThan(0);
      expect(originOf('127.0.0.1', server)).toBe(`http://localhost:${port}`);
      expect(originOf('blog.internal', server)).toBe(`http://blog.internal:${port}`);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
