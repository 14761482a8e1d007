import type { HandlerRegistry } from '../registry.js';
import { notImplemented } from './not-implemented.js';

export function authHandlers(): Pick<HandlerRegistry, 'login' | 'refreshTokens' | 'logout' | 'getMe'> {
  return {
    login: notImplemented('login'),
    refreshTokens: notImplemented('refreshTokens'),
    logout: notImplemented('logout'),
    getMe: notImplemented('getMe'),
  };
}
