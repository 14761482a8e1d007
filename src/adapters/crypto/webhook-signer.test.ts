import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { createWebhookSigner } from './webhook-signer.js';

const signer = createWebhookSigner();

describe('webhook signer', () => {
  it('makes whsec_ secrets of 32 random bytes, a new one each time', () => {
    const secret = signer.newSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice('whsec_'.length), 'base64')).toHaveLength(32);
    expect(signer.newSecret()).not.toBe(secret);
  });

  it("reproduces the Standard Webhooks specification's published test vector", () => {
    // The vector of the specification's reference libraries (standard-webhooks/standard-webhooks);
    // the npm package ships no tests, so it is written out here.
    expect(signer.sign('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}')).toBe(
      'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    );
  });

  it('signs so that the reference implementation verifies the body, also with non-ASCII text', () => {
    const secret = signer.newSecret();
    const body = JSON.stringify({ type: 'post.published', data: { post: { title: 'Café — 東京 🚀' } } });
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = { 'webhook-id': 'msg_0123456789abcdef0123456789abcdef', 'webhook-timestamp': String(timestamp) };
    const signature = signer.sign(secret, headers['webhook-id'], timestamp, body);
    expect(signature).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(new Webhook(secret).verify(body, { ...headers, 'webhook-signature': signature })).toEqual(JSON.parse(body));
    expect(() => new Webhook(signer.newSecret()).verify(body, { ...headers, 'webhook-signature': signature })).toThrow(
      /No matching signature/,
    );
    expect(() => new Webhook(secret).verify(`${body} `, { ...headers, 'webhook-signature': signature })).toThrow(/No matching signature/);
  });

  it('writes two signatures, space-separated, that the reference implementation accepts with either secret', () => {
    const [current, previous] = [signer.newSecret(), signer.newSecret()];
    const timestamp = Math.floor(Date.now() / 1000);
    const id = 'msg_fedcba9876543210fedcba9876543210';
    const both = [current, previous].map((secret) => signer.sign(secret, id, timestamp, '{}')).join(' ');
    const headers = { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': both };
    expect(new Webhook(current).verify('{}', headers)).toEqual({});
    expect(new Webhook(previous).verify('{}', headers)).toEqual({});
  });
});
