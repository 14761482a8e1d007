import { connectionFailureOf, type ConnectionFailure } from './adapters/drizzle/driver/pg-errors.js';
import { parseDatabaseUrl } from './database-url.js';
import { maskUrl } from './mask-url.js';

/**
 * Why the server could not start, in words a person can act on: what failed, where, and what to
 * change. Its message is printed as it is, after "MarginCMS could not start: ".
 */
export class StartupError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StartupError';
  }
}

/** Which address a listener was given, and the variables that set it. */
export interface ListenTarget {
  host: string;
  port: number;
  hostVariable: 'HOST' | 'METRICS_HOST';
  portVariable: 'PORT' | 'METRICS_PORT';
}

/** A failed `listen`, told as a `StartupError` when we know what to do about it; else the error itself. */
export function listenError(error: unknown, target: ListenTarget): unknown {
  const { host, port, hostVariable, portVariable } = target;
  switch ((error as NodeJS.ErrnoException | null)?.code) {
    case 'EADDRINUSE':
      return new StartupError(
        `port ${port} on ${host} is already in use (EADDRINUSE): another program, perhaps another MarginCMS, listens there. ` +
          `Stop it, or choose another port with ${portVariable}=… (in the environment or in .env).`,
        { cause: error },
      );
    case 'EACCES':
      return new StartupError(
        `not allowed to listen on port ${port} of ${host} (EACCES): ports below 1024 need privileges. Choose another with ${portVariable}=….`,
        { cause: error },
      );
    case 'EADDRNOTAVAIL':
      return new StartupError(
        `${host} is not an address of this machine (EADDRNOTAVAIL): set ${hostVariable}= to one of its addresses (127.0.0.1, or 0.0.0.0 for all).`,
        { cause: error },
      );
    default:
      return error;
  }
}

/** What each connection failure most likely means. */
const HINTS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'nothing listens there: is PostgreSQL running, and are the host and port right?',
  ENOTFOUND: 'the host name does not resolve: check the host in DATABASE_URL.',
  EAI_AGAIN: 'the host name could not be resolved right now: check DNS and the host in DATABASE_URL.',
  CONNECT_TIMEOUT: 'no answer within DB_CONNECT_TIMEOUT_SECONDS: is the address right, and does a firewall let it through?',
  ETIMEDOUT: 'no answer: is the address right, and does a firewall let it through?',
  EHOSTUNREACH: 'no route to that host: is the address right?',
  ENETUNREACH: 'no route to that network: is the address right?',
};

/**
 * A failure to reach PostgreSQL at start-up, told with the host, port and code it failed with and
 * the URL (password masked); null when `error` is no connection failure (a wrong password, a
 * missing database: PostgreSQL's own message says those).
 */
export function unreachableDatabaseError(error: unknown, url: string): StartupError | null {
  const failure = connectionFailureOf(error);
  if (failure === null) return null;
  const hint = HINTS[failure.code] ?? 'is PostgreSQL running, and is DATABASE_URL right?';
  return new StartupError(`cannot reach PostgreSQL at ${where(failure, url)} (${failure.code}): ${hint} DATABASE_URL is ${maskUrl(url)}`, {
    cause: error,
  });
}

/** `host:port` as the error names them (the port from DATABASE_URL when it does not), else every host of DATABASE_URL. */
function where(failure: ConnectionFailure, url: string): string {
  const { hosts, ports } = parseDatabaseUrl(url);
  if (failure.host === undefined) return hosts.map((host, i) => `${host}:${ports[i]}`).join(', ');
  const port = failure.port ?? ports[hosts.indexOf(failure.host)];
  return port === undefined ? failure.host : `${failure.host}:${port}`;
}
