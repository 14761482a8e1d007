import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';
import type { RefreshTokenSecrets } from '../../domain/index.js';

/**
 * Random tokens (256 bits from `randomBytes`, base64url) and the SHA-256 (hex) stored instead of
 * them: refresh tokens' and preview links'.
 */
export function createRandomTokens(): Pick<RefreshTokenSecrets, 'newToken' | 'hash'> {
  return {
    newToken: () => randomBytes(32).toString('base64url'),
    hash: (token) => createHash('sha256').update(token).digest('hex'),
  };
}

/**
 * Refresh-token secrets from node:crypto: random tokens, SHA-256 hashes, and replay answers
 * sealed with AES-256-GCM under a key derived (HKDF-SHA-256) from the token they answer and a
 * server-side secret, so a database leak alone opens no replay.
 */
export function createRefreshTokenSecrets(serverSecret: Uint8Array): RefreshTokenSecrets {
  const keyFor = (token: string) => Buffer.from(hkdfSync('sha256', token, serverSecret, 'margin-cms refresh replay', 32));
  return {
    ...createRandomTokens(),
    seal(token, text) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', keyFor(token), iv);
      const sealed = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
      return [iv, cipher.getAuthTag(), sealed].map((b) => b.toString('base64url')).join('.');
    },
    open(token, sealed) {
      try {
        const [iv, tag, body] = sealed.split('.').map((p) => Buffer.from(p, 'base64url'));
        if (!iv || !tag || !body) return null;
        const decipher = createDecipheriv('aes-256-gcm', keyFor(token), iv);
        decipher.setAuthTag(tag);
        return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
      } catch {
        return null;
      }
    },
  };
}
