import { HttpProblem } from '../problem.js';
import type { Handler, OperationId } from '../registry.js';

/** The answer of an operation that is specified but not built yet: 501 problem, never a fake success. */
export function notImplemented<K extends OperationId>(operationId: K): Handler<K> {
  return async () => {
    throw new HttpProblem(501, 'not-implemented', `${operationId} is specified but not implemented yet.`);
  };
}
