import { parseIfMatch } from './mappers.js';
import { HttpProblem } from './problem.js';

/**
 * The versions If-Match accepts: 428 when it is missing (the server, not the schema, requires it),
 * 422 at `/headers/if-match` when it is not `*` or a list of entity tags.
 */
export function requireIfMatch(header: string | undefined) {
  if (header === undefined) {
    throw new HttpProblem(428, 'precondition-required', "Send If-Match with the post's current ETag to change it.");
  }
  const expected = parseIfMatch(header);
  if (expected === null) {
    throw new HttpProblem(422, 'validation-failed', 'If-Match is not * or a list of quoted entity tags such as "3".', {
      errors: [{ pointer: '/headers/if-match', message: 'must be * or a comma-separated list of quoted entity tags such as "3"' }],
    });
  }
  return expected;
}
