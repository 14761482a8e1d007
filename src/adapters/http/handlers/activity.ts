import type { HandlerRegistry } from '../registry.js';
import { notImplemented } from './not-implemented.js';

export function activityHandlers(): Pick<HandlerRegistry, 'listActivity'> {
  return { listActivity: notImplemented('listActivity') };
}
