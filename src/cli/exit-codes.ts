/**
 * The exit codes scripts can rely on (README, `margin --help`). Each names what went wrong, not
 * which HTTP status said so; the problem's `detail` goes to stderr with it.
 */
export const EXIT = {
  ok: 0,
  /** Something the CLI did not expect (a bug, an unreadable file). */
  failed: 1,
  /** Unknown command or option, or a missing argument. */
  usage: 2,
  /** Not logged in, the session expired, or the credentials were refused (401). */
  unauthorized: 3,
  /** The post changed meanwhile (412), or a create is still running or clashes (409, 428). */
  conflict: 4,
  /** No such post or revision (404). */
  notFound: 5,
  /** The server refused the input (400, 413, 422). */
  invalid: 6,
  /** The server could not be reached or could not answer (network error, 429, 5xx). */
  unavailable: 7,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

function exitCodeOf(status: number): ExitCode {
  if (status === 401 || status === 403) return EXIT.unauthorized;
  if (status === 404) return EXIT.notFound;
  if (status === 409 || status === 412 || status === 428) return EXIT.conflict;
  if (status === 400 || status === 413 || status === 422) return EXIT.invalid;
  if (status === 429 || status >= 500) return EXIT.unavailable;
  return EXIT.failed;
}

/** A failure the CLI reports and exits with: a message for stderr and the code. */
export class CliError extends Error {
  constructor(
    readonly code: ExitCode,
    message: string,
    /** Extra lines for stderr (the fields a 422 names). */
    readonly lines: readonly string[] = [],
  ) {
    super(message);
  }
}

interface ProblemLike {
  title?: unknown;
  detail?: unknown;
  errors?: unknown;
}

/** The CliError for an error answer: its problem's title and detail, and each invalid field. */
export function problemError(status: number, problem: unknown): CliError {
  const p = (typeof problem === 'object' && problem !== null ? problem : {}) as ProblemLike;
  const title = typeof p.title === 'string' ? p.title : `HTTP ${status}`;
  const detail = typeof p.detail === 'string' ? p.detail : '';
  const lines = Array.isArray(p.errors)
    ? p.errors.map((error: { pointer?: unknown; message?: unknown }) => `  ${String(error.pointer ?? '')}: ${String(error.message ?? '')}`)
    : [];
  return new CliError(exitCodeOf(status), detail ? `${title}: ${detail}` : title, lines);
}
