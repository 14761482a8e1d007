export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';
const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 99 };

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

function serialise(value: unknown): unknown {
  if (value instanceof Error) {
    return { name: value.name, message: value.message, stack: value.stack, cause: serialise(value.cause) };
  }
  return value;
}

/** One JSON object per line. Never give it secrets: callers mask URLs and drop tokens. */
export function createLogger(level: LogLevel, write: (line: string) => void = (l) => process.stdout.write(l + '\n')): Logger {
  const at =
    (name: Exclude<LogLevel, 'silent'>) =>
    (message: string, fields: Record<string, unknown> = {}) => {
      if (ORDER[name] < ORDER[level]) return;
      const entry: Record<string, unknown> = { time: new Date().toISOString(), level: name, message };
      for (const [key, value] of Object.entries(fields)) entry[key] = serialise(value);
      write(JSON.stringify(entry));
    };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}
