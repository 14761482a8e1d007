import type { components } from '../../../src/client/index.js';

type FieldError = components['schemas']['FieldError'];

/** A problem+json answer of the API (RFC 9457), with the field errors of a 422. */
export type Problem = Pick<components['schemas']['Problem'], 'title' | 'detail' | 'status'> & {
  type?: string;
  errors?: FieldError[];
};

/** A problem the API answered (or one standing for no answer), as an Error for TanStack Query. */
export class ApiProblem extends Error {
  constructor(
    readonly problem: Problem,
    /** Seconds from the answer's Retry-After (429, 503), when it has one. */
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(problem.detail);
    this.name = 'ApiProblem';
  }

  get status(): number {
    return this.problem.status;
  }

  /** The message of the field error at `pointer` (`/body/email`), if the problem has one. */
  fieldError(pointer: string): string | undefined {
    return this.problem.errors?.find((error) => error.pointer === pointer)?.message;
  }
}

const isProblem = (value: unknown): value is Problem =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as Problem).title === 'string' &&
  typeof (value as Problem).detail === 'string';

/** The ApiProblem of an error answer: its problem+json body, or one made from its status. */
export function problemOf(error: unknown, response: Response): ApiProblem {
  const retryAfter = response.headers.get('retry-after');
  const seconds = retryAfter !== null && /^\d+$/.test(retryAfter) ? Number(retryAfter) : null;
  const problem: Problem = isProblem(error)
    ? { ...error, status: response.status }
    : {
        title: 'The server answered with an error',
        detail: `HTTP ${response.status} ${response.statusText}`.trim(),
        status: response.status,
      };
  return new ApiProblem(problem, seconds);
}

/** What a request that got no answer at all (the network, the server down) shows. */
export function unreachable(): ApiProblem {
  return new ApiProblem({ title: 'The server could not be reached', detail: 'Check the connection and try again.', status: 0 });
}
