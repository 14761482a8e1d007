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
 * Field names whose values are never written, wherever a caller puts them: defence in depth
 * behind the rule that callers mask URLs and never pass tokens, passwords or bodies.
 */
const REDACTED = ['authorization', 'password', 'accessToken', 'refreshToken', 'token', 'cookie', 'body'].flatMap((name) => [
  name,
  `*.${name}`,
]);

/**
 * One JSON object per line through pino: `{"level":"info","time":"2026-…Z","message":…, …fields}`.
 * Without `write` it goes to standard output through pino's asynchronous destination (buffered,
 * flushed on exit); with it, each line is handed to `write` as it is made (tests).
 */
export function createLogger(level: LogLevel, write?: (line: string) => void): Logger {
  const destination: DestinationStream = write
    ? { write: (chunk: string) => write(chunk.endsWith('\n') ? chunk.slice(0, -1) : chunk) }
    : pino.destination({ dest: 1, sync: false });
  const log = pino(
    {
      level,
      base: undefined,
      messageKey: 'message',
      timestamp: stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      serializers: { error: stdSerializers.errWithCause },
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
