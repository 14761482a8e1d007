import { pino, stdSerializers, stdTimeFunctions, type DestinationStream } from 'pino';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
  /** Writes out what is buffered (before the process exits). */
  flush(): void;
}

/**
 * Top-level field names whose values are never written: defence in depth behind the rule that
 * callers mask URLs and never pass tokens, passwords or bodies. (Wildcard paths would make pino
 * walk every field of every line.)
 */
const REDACTED = ['authorization', 'password', 'accessToken', 'refreshToken', 'token', 'cookie', 'body'];

/**
 * A failed query's parameters, as Drizzle writes them into its error's message (`Failed query:
 * …\nparams: …`) and stack: up to the stack's first frame, or the end of the message.
 */
const PARAMS_IN_TEXT = /\nparams: [\s\S]*?(?=\n {4}at |$)/;

/**
 * An error as `errWithCause` writes it, with the parameters of any failed query in it or its
 * causes left out: they may be a webhook secret, a token's hash or a post's body, and a database
 * that times out or drops the connection mid-statement would otherwise log them.
 */
function serializeError(error: Error): Record<string, unknown> {
  return withoutParams(stdSerializers.errWithCause(error)) as Record<string, unknown>;
}

function withoutParams(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  for (const key of ['params', 'parameters']) if (key in out) out[key] = '[redacted]';
  for (const key of ['message', 'stack']) {
    const text = out[key];
    if (typeof text === 'string') out[key] = text.replace(PARAMS_IN_TEXT, '\nparams: [redacted]');
  }
  if ('cause' in out) out.cause = withoutParams(out.cause);
  return out;
}

/** Written out once this many bytes are buffered, or at the latest after FLUSH_MS. */
const BUFFER_BYTES = 8 * 1024;
const FLUSH_MS = 500;

/**
 * Standard output through pino's asynchronous destination, buffered: a line per request written
 * with a write of its own cost a fifth of a GET's throughput; in 8 KiB batches it costs a few
 * per cent. A timer writes out what waits (lines are at most FLUSH_MS late), and pino writes the
 * rest synchronously when the process exits.
 */
function bufferedStdout(): DestinationStream {
  const stream = pino.destination({ dest: 1, sync: false, minLength: BUFFER_BYTES });
  setInterval(() => stream.flush(), FLUSH_MS).unref();
  return stream;
}

/**
 * One JSON object per line through pino: `{"level":"info","time":"2026-…Z","message":…, …fields}`.
 * Without `write` it goes to standard output through pino's asynchronous destination (buffered,
 * flushed on exit); with it, each line is handed to `write` as it is made (tests).
 */
export function createLogger(level: LogLevel, write?: (line: string) => void): Logger {
  const destination: DestinationStream = write
    ? { write: (chunk: string) => write(chunk.endsWith('\n') ? chunk.slice(0, -1) : chunk) }
    : bufferedStdout();
  const log = pino(
    {
      level,
      base: undefined,
      messageKey: 'message',
      timestamp: stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      serializers: { error: serializeError },
      redact: { paths: REDACTED, censor: '[redacted]' },
    },
    destination,
  );
  const at =
    (name: Exclude<LogLevel, 'silent'>) =>
    (message: string, fields?: Record<string, unknown>): void => {
      if (fields === undefined) log[name](message);
      else log[name](fields, message);
    };
  return {
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    flush: () => {
      if (!write) log.flush();
    },
  };
}
