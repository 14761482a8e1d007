import { describe, expect, it } from 'vitest';
import { createRefreshTokenSecrets } from './refresh-token-secrets.js';

const secrets = createRefreshTokenSecrets(new TextEncoder().encode('s'.repeat(32)));

describe('refresh-token secrets', () => {
  it('makes distinct 256-bit base64url tokens and hashes them the same way every time', () => {
    const a = secrets.newToken();
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(secrets.newToken()).not.toBe(a);
    expect(secrets.hash(a)).toBe(secrets.hash(a));
    expect(secrets.hash(a)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('opens a sealed answer only with the token it was sealed for and the same server secret', () => {
    const token = secrets.newToken();
    const sealed = secrets.seal(token, '{"accessToken":"x"}');
    expect(sealed).not.toContain('accessToken');
    expect(secrets.open(token, sealed)).toBe('{"accessToken":"x"}');
    expect(secrets.open(secrets.newToken(), sealed)).toBeNull();
    expect(createRefreshTokenSecrets(new TextEncoder().encode('t'.repeat(32))).open(token, sealed)).toBeNull();
  });

  it('answers null, never throws, for tampered or malformed text', () => {
    const token = secrets.newToken();
    const [iv, tag, body] = secrets.seal(token, 'hello').split('.');
    // The first character carries six bits of the first byte (the last may carry only padding).
    const flipped = (body!.startsWith('A') ? 'B' : 'A') + body!.slice(1);
    expect(secrets.open(token, [iv, tag, flipped].join('.'))).toBeNull();
    expect(secrets.open(token, 'not sealed')).toBeNull();
    expect(secrets.open(token, '')).toBeNull();
  });
});
