import { describe, expect, it } from 'vitest';
import { gateUntilOpen } from './server.js';

describe('gateUntilOpen', () => {
  it('holds requests until open() (the first admin exists), then answers them and the next at once', async () => {
    const answered: string[] = [];
    const gate = gateUntilOpen((request) => {
      answered.push(request.url);
      return new Response('ok');
    });
    const early = gate.fetch(new Request('http://localhost/api/v1/auth/login'));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(answered).toEqual([]);
    gate.open();
    expect((await early).status).toBe(200);
    const late = gate.fetch(new Request('http://localhost/api/v1/healthz'));
    expect(late).toBeInstanceOf(Response);
    expect(answered).toEqual(['http://localhost/api/v1/auth/login', 'http://localhost/api/v1/healthz']);
  });
});
