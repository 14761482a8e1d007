/** Types the client modules share, kept apart so that none of them imports the package's index. */
import type { FetchResponse } from 'openapi-fetch';
import type { operations } from '../../generated/api.js';

/** What openapi-fetch answers for an operation: `data` on success, the problem in `error` otherwise. */
export type ApiResult<Op extends keyof operations> = Op extends keyof operations
  ? FetchResponse<operations[Op], Record<never, never>, `${string}/${string}`>
  : never;
