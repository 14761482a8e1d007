import type { HandlerRegistry } from '../registry.js';
import { notImplemented } from './not-implemented.js';

export function statsHandlers(): Pick<HandlerRegistry, 'getStats'> {
  return { getStats: notImplemented('getStats') };
}
