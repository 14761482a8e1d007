import type { PreferAnswer } from '../../../src/client/index.js';

/** Which requests an armed `Prefer` goes with. */
export type PreferScope = 'next-change' | 'next-request' | 'every-request';

export const SCOPES: Record<PreferScope, string> = {
  'next-change': 'the next change (POST, PATCH, PUT or DELETE), once',
  'next-request': 'the next request, once',
  'every-request': 'every request, until cleared',
};

export interface PreferState {
  /** The value armed, or null when requests go as they are. */
  armed: { value: string; scope: PreferScope } | null;
  /** The requests that went with a chosen value, the latest first (at most LOG_SIZE). */
  log: readonly PreferAnswer[];
}

const LOG_SIZE = 6;

/**
 * The development panel's state: the `Prefer` value armed for the next change, the next request
 * or every request, handed out by `choose` (src/client's preferMiddleware asks it per request),
 * and the answers those requests got. An immutable snapshot per change, for useSyncExternalStore.
 */
export function createPreferSwitch() {
  let state: PreferState = { armed: null, log: [] };
  const listeners = new Set<() => void>();
  const update = (next: PreferState) => {
    state = next;
    listeners.forEach((listener) => listener());
  };
  return {
    snapshot: (): PreferState => state,
    subscribe(listener: () => void): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    arm(value: string, scope: PreferScope): void {
      update({ ...state, armed: value.trim() === '' ? null : { value: value.trim(), scope } });
    },
    clear(): void {
      update({ ...state, armed: null });
    },
    choose(request: Request): string | undefined {
      const { armed } = state;
      if (!armed || (armed.scope === 'next-change' && (request.method === 'GET' || request.method === 'HEAD'))) return undefined;
      if (armed.scope !== 'every-request') update({ ...state, armed: null });
      return armed.value;
    },
    answered(answer: PreferAnswer): void {
      update({ ...state, log: [answer, ...state.log].slice(0, LOG_SIZE) });
    },
  };
}

export type PreferSwitch = ReturnType<typeof createPreferSwitch>;
