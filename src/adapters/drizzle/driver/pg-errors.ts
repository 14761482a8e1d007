/**
 * The one place where database failures become domain errors: a SQLSTATE plus, for constraint
 * violations, the explicit constraint name from `schema.ts`.
 *
 * Drizzle wraps driver errors (`DrizzleQueryError`) with the original on `.cause`; postgres.js
 * names the violated constraint `constraint_name`, PGlite names it `constraint`. Connection
 * failures carry a Node or postgres.js code (`ECONNREFUSED`, `CONNECT_TIMEOUT`) instead.
 */
import {
  DuplicateIdError,
  NotFoundError,
  SlugTakenError,
  UnavailableError,
  ValidationError,
  VersionConflictError,
  type DomainError,
} from '../../../domain/errors.js';

/** What the failing call was about, so that the domain error can name it. */
export interface PgErrorContext {
  id?: string;
  /** The activity event's id, when a call writes an event beside another row (`id`). */
  eventId?: string;
  slug?: string;
  version?: number;
  /** A preview link's token hash, unique beside its id. */
  tokenHash?: string;
  /** The post a row refers to (a preview link's). */
  postId?: string;
}

/** The fields of a database error we look at, whichever driver raised it. */
export interface PgErrorInfo {
  code: string;
  constraint: string | undefined;
}

/** Seconds a client is told to wait when the store is unavailable. */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 1;

const UNIQUE_VIOLATION = '23505';
const FOREIGN_KEY_VIOLATION = '23503';
/**
 * program_limit_exceeded: a value past a limit of PostgreSQL's (a tsvector over 1 MiB, an index
 * row over its page's share). The domain's rules keep what we write within them (a search
 * document's `MAX_DOCUMENT_WORDS`); should one be missed, the input was too large: a 422, not a 500.
 */
const PROGRAM_LIMIT_EXCEEDED = '54000';

type Mapper = (ctx: PgErrorContext, cause: unknown) => DomainError;

const duplicateId: Mapper = (ctx) => new DuplicateIdError(ctx.id ?? '');

/** 23505 by constraint name. */
const UNIQUE_CONSTRAINTS: Readonly<Record<string, Mapper>> = {
  posts_pkey: duplicateId,
  posts_slug_key: (ctx) => new SlugTakenError(ctx.slug ?? ''),
  revisions_pkey: (ctx) => new VersionConflictError(ctx.version ?? 0, null),
  activity_events_pkey: (ctx) => new DuplicateIdError(ctx.eventId ?? ctx.id ?? ''),
  users_pkey: duplicateId,
  refresh_tokens_pkey: duplicateId,
  refresh_tokens_token_hash_key: duplicateId,
  webhook_subscriptions_pkey: duplicateId,
  preview_links_pkey: duplicateId,
  preview_links_token_hash_key: (ctx) => new DuplicateIdError(ctx.tokenHash ?? ''),
};

/** 23503 by constraint name: a row referring to one that does not exist. */
const FOREIGN_KEY_CONSTRAINTS: Readonly<Record<string, Mapper>> = {
  preview_links_post_fkey: (ctx) => new NotFoundError('post', ctx.postId ?? ''),
};

/** The constraints whose unique violations become domain errors (a test checks they exist). */
export const MAPPED_UNIQUE_CONSTRAINTS: readonly string[] = Object.keys(UNIQUE_CONSTRAINTS);
/** The foreign keys whose violations become domain errors (a test checks they exist). */
export const MAPPED_FOREIGN_KEYS: readonly string[] = Object.keys(FOREIGN_KEY_CONSTRAINTS);

/** SQLSTATEs meaning "try again later": the statement or the connection, not the request, failed. */
function isTransientSqlState(code: string): boolean {
  return (
    code.startsWith('08') || // connection exception
    code === '57014' || // query_canceled (statement_timeout)
    code === '57P01' || // admin_shutdown
    code === '57P02' || // crash_shutdown
    code === '57P03' || // cannot_connect_now
    code === '53300' || // too_many_connections
    code === '40001' || // serialization_failure
    code === '40P01' // deadlock_detected
  );
}

/** Codes that Node's net module and postgres.js put on connection failures. */
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  'CONNECT_TIMEOUT',
  // Our patch of postgres.js: the server sent nothing for answer_timeout while queries waited.
  'ANSWER_TIMEOUT',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
]);

const SQLSTATE = /^[0-9A-Z]{5}$/;

function stringField(value: unknown, field: string): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const v = (value as Record<string, unknown>)[field];
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/** The error itself, then its `.cause` chain and the members of an `AggregateError`. */
function* errorChain(error: unknown): Generator<unknown> {
  const seen = new Set<unknown>();
  const queue: unknown[] = [error];
  while (queue.length > 0) {
    const e = queue.shift();
    if (e === undefined || e === null || seen.has(e)) continue;
    seen.add(e);
    yield e;
    if (typeof e === 'object') {
      queue.push((e as { cause?: unknown }).cause);
      const members = (e as { errors?: unknown }).errors;
      if (Array.isArray(members)) queue.push(...members);
    }
  }
}

/** The first SQLSTATE found along the cause chain, with its constraint name, or null. */
export function pgErrorInfo(error: unknown): PgErrorInfo | null {
  for (const e of errorChain(error)) {
    const code = stringField(e, 'code');
    // Node's EPIPE has a SQLSTATE's shape; it is a connection failure, not a server's answer.
    if (code !== undefined && SQLSTATE.test(code) && !CONNECTION_CODES.has(code)) {
      return {
        code,
        constraint: stringField(e, 'constraint_name') ?? stringField(e, 'constraint'),
      };
    }
  }
  return null;
}

/** Where a connection failed and why: what a person needs to fix DATABASE_URL or the network. */
export interface ConnectionFailure {
  /** Node's errno name or postgres.js's code: `ECONNREFUSED`, `ENOTFOUND`, `CONNECT_TIMEOUT`… */
  code: string;
  /** The host or address tried (a Unix socket's path), when the error names it. */
  host: string | undefined;
  port: number | undefined;
}

/** The connection failure found along the cause chain (Node's and postgres.js's codes), or null. */
export function connectionFailureOf(error: unknown): ConnectionFailure | null {
  for (const e of errorChain(error)) {
    const code = stringField(e, 'code');
    if (code === undefined || !CONNECTION_CODES.has(code)) continue;
    const port = (e as { port?: unknown }).port;
    return {
      code,
      // A failed DNS look-up names the `hostname`; a refused or timed-out connection its `address`.
      host: stringField(e, 'address') ?? stringField(e, 'hostname'),
      port: typeof port === 'number' ? port : undefined,
    };
  }
  return null;
}

function isConnectionFailure(error: unknown): boolean {
  return connectionFailureOf(error) !== null;
}

/**
 * The domain error that `error` stands for, or null when it is not one we map (a bug, a
 * constraint we do not expect): callers rethrow the original then.
 */
export function domainErrorFor(error: unknown, ctx: PgErrorContext = {}): DomainError | null {
  const info = pgErrorInfo(error);
  if (info !== null) {
    if (info.constraint !== undefined) {
      const map =
        info.code === UNIQUE_VIOLATION
          ? UNIQUE_CONSTRAINTS[info.constraint]
          : info.code === FOREIGN_KEY_VIOLATION
            ? FOREIGN_KEY_CONSTRAINTS[info.constraint]
            : undefined;
      if (map) return map(ctx, error);
    }
    if (isTransientSqlState(info.code)) return unavailable(error);
    if (info.code === PROGRAM_LIMIT_EXCEEDED) return new ValidationError([{ pointer: '', message: 'is larger than the store can hold' }]);
    return null;
  }
  return isConnectionFailure(error) ? unavailable(error) : null;
}

function unavailable(cause: unknown): UnavailableError {
  return new UnavailableError(UNAVAILABLE_RETRY_AFTER_SECONDS, undefined, { cause });
}

/** The mapped domain error, or `error` unchanged. Use as `catch (e) { throw toDomainError(e) }`. */
export function toDomainError(error: unknown, ctx: PgErrorContext = {}): unknown {
  return domainErrorFor(error, ctx) ?? error;
}

/**
 * Runs `fn`, rethrowing its failure mapped by `toDomainError`. Not an `async` function: it runs on
 * every statement, and one more `await` layer is one more promise and turn of the microtask queue.
 */
export function mapPgErrors<T>(fn: () => Promise<T>, ctx?: PgErrorContext): Promise<T> {
  let running: Promise<T>;
  try {
    running = fn();
  } catch (e) {
    return Promise.reject(toDomainError(e, ctx) as Error);
  }
  return running.then(undefined, (e: unknown) => {
    throw toDomainError(e, ctx);
  });
}
