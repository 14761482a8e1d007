import { InvalidTokenError, type Actor } from '../../domain/index.js';
import type { Principal } from './registry.js';

/** The actor of a protected operation (the dispatch has already required its bearer token). */
export function actorOf(request: { principal: Principal | null }): Actor {
  if (!request.principal) {
    throw new InvalidTokenError('missing');
  }
  return { id: request.principal.userId, name: request.principal.name };
}
