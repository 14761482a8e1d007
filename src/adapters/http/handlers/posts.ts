import type { HandlerRegistry } from '../registry.js';
import { notImplemented } from './not-implemented.js';

export function postHandlers(): Pick<
  HandlerRegistry,
  'listPosts' | 'createPost' | 'bulkPosts' | 'getPost' | 'updatePost' | 'deletePost' | 'exportPost'
> {
  return {
    listPosts: notImplemented('listPosts'),
    createPost: notImplemented('createPost'),
    bulkPosts: notImplemented('bulkPosts'),
    getPost: notImplemented('getPost'),
    updatePost: notImplemented('updatePost'),
    deletePost: notImplemented('deletePost'),
    exportPost: notImplemented('exportPost'),
  };
}
