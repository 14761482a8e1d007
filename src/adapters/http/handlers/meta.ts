import type { Store } from '../../../domain/index.js';
import type { HandlerRegistry } from '../registry.js';

/** What readiness needs: a check that throws `UnavailableError` saying why the process is not ready. */
export interface ReadinessCheck {
  check(): Promise<void>;
}

export function metaHandlers(
  store: Pick<Store, 'kind' | 'ping'>,
  readiness: ReadinessCheck = { check: () => store.ping() },
): Pick<HandlerRegistry, 'getHealth' | 'getReadiness'> {
  return {
    getHealth: async () => ({ status: 200, body: { status: 'ok' } }),
    getReadiness: async () => {
      await readiness.check();
      return { status: 200, body: { status: 'ready', database: store.kind } };
    },
  };
}
