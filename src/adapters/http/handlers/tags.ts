import type { HandlerRegistry } from '../registry.js';
import { notImplemented } from './not-implemented.js';

export function tagHandlers(): Pick<HandlerRegistry, 'listTags'> {
  return { listTags: notImplemented('listTags') };
}
