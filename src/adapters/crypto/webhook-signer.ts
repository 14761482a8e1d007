import { createHmac, randomBytes } from 'node:crypto';
import type { WebhookSigner } from '../../domain/index.js';

const PREFIX = 'whsec_';

/** Standard Webhooks signatures with node:crypto (see `WebhookSigner`). */
export function createWebhookSigner(): WebhookSigner {
  return {
    newSecret: () => `${PREFIX}${randomBytes(32).toString('base64')}`,
    sign(secret, id, timestampSeconds, body) {
      const key = Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');
      const mac = createHmac('sha256', key).update(`${id}.${timestampSeconds}.`, 'utf8').update(body, 'utf8').digest('base64');
      return `v1,${mac}`;
    },
  };
}
