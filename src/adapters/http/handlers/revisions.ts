import type { HandlerRegistry } from '../registry.js';
import { notImplemented } from './not-implemented.js';

export function revisionHandlers(): Pick<HandlerRegistry, 'listRevisions' | 'getRevision' | 'restoreRevision'> {
  return {
    listRevisions: notImplemented('listRevisions'),
    getRevision: notImplemented('getRevision'),
    restoreRevision: notImplemented('restoreRevision'),
  };
}
