import type { Store } from '../../../domain/index.js';
import type { HandlerRegistry } from '../registry.js';

export function metaHandlers(store: Pick<Store, 'kind' | 'ping'>): Pick<HandlerRegistry, 'getHealth' | 'getReadiness'> {
  return {
    getHealth: async () => ({ status: 200, body: { status: 'ok' } }),
    getReadiness: async () => {
      await store.ping();
      return { status: 200, body: { status: 'ready', database: store.kind } };
    },
  };
}
