import type { Actor } from '../../domain/index.js';
import { HttpProblem } from './problem.js';
import type { Principal } from './registry.js';

/** The actor of a protected operation (the security handler has already required a principal). */
export function actorOf(request: { principal: Principal | null }): Actor {
  if (!request.principal) {
    throw new HttpProblem(401, 'unauthorized', 'A bearer token is required.', {}, { 'www-authenticate': 'Bearer error="invalid_token"' });
  }
  return { id: request.principal.userId, name: request.principal.name };
}
