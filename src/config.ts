import type { LogLevel } from './log.js';

export interface Config {
  host: string;
  port: number;
  logLevel: LogLevel;
  /** Request bodies over this many bytes are answered 413. */
  bodyLimitBytes: number;
  database:
    | { kind: 'pglite'; dataDir: string }
    | {
        kind: 'postgres';
        url: string;
        poolSize: number;
        connectTimeoutSeconds: number;
        idleTimeoutSeconds: number;
        statementTimeoutMs: number;
      };
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Every variable the server reads, with its default and meaning (mirrored in `.env.example`). */
export const ENV_VARIABLES = {
  HOST: { default: '127.0.0.1', doc: 'Interface to listen on.' },
  PORT: { default: '8080', doc: 'Port to listen on.' },
  LOG_LEVEL: { default: 'info', doc: 'debug | info | warn | error | silent.' },
  BODY_LIMIT_BYTES: { default: '1048576', doc: 'Largest accepted request body; larger is a 413.' },
  DATABASE_URL: { default: '', doc: 'postgres://… to use PostgreSQL; empty for embedded PGlite.' },
  DATA_DIR: { default: '.data', doc: 'Where embedded PGlite keeps its files (no DATABASE_URL).' },
  DB_POOL_SIZE: { default: '10', doc: 'PostgreSQL connections in the pool.' },
  DB_CONNECT_TIMEOUT_SECONDS: { default: '5', doc: 'Seconds to open a PostgreSQL connection.' },
  DB_IDLE_TIMEOUT_SECONDS: { default: '30', doc: 'Seconds before an idle connection is closed.' },
  DB_STATEMENT_TIMEOUT_MS: { default: '5000', doc: 'Server-side statement_timeout.' },
} as const;

type Env = Record<string, string | undefined>;

/**
 * Reads the environment once, purely: every variable is parsed and every bad value reported
 * together in one `ConfigError`.
 */
export function loadConfig(env: Env): Config {
  const problems: string[] = [];
  const read = (name: keyof typeof ENV_VARIABLES): string => {
    const value = env[name];
    return value === undefined || value.trim() === '' ? ENV_VARIABLES[name].default : value.trim();
  };
  const integer = (name: keyof typeof ENV_VARIABLES, min: number, max: number): number => {
    const raw = read(name);
    const value = Number(raw);
    if (!/^\d+$/.test(raw) || !Number.isSafeInteger(value) || value < min || value > max) {
      problems.push(`${name} must be an integer from ${min} to ${max} (got "${raw}")`);
      return Number(ENV_VARIABLES[name].default);
    }
    return value;
  };

  const logLevel = read('LOG_LEVEL');
  if (!['debug', 'info', 'warn', 'error', 'silent'].includes(logLevel)) {
    problems.push(`LOG_LEVEL must be one of debug, info, warn, error, silent (got "${logLevel}")`);
  }
  const host = read('HOST');
  const port = integer('PORT', 0, 65535);
  const bodyLimitBytes = integer('BODY_LIMIT_BYTES', 1024, 100 * 1024 * 1024);
  const poolSize = integer('DB_POOL_SIZE', 1, 1000);
  const connectTimeoutSeconds = integer('DB_CONNECT_TIMEOUT_SECONDS', 1, 600);
  const idleTimeoutSeconds = integer('DB_IDLE_TIMEOUT_SECONDS', 0, 86400);
  const statementTimeoutMs = integer('DB_STATEMENT_TIMEOUT_MS', 0, 3_600_000);

  const url = read('DATABASE_URL');
  let database: Config['database'];
  if (url === '') {
    database = { kind: 'pglite', dataDir: read('DATA_DIR') };
  } else {
    const problem = databaseUrlProblem(url);
    if (problem) problems.push(`DATABASE_URL ${problem} (got "${maskDatabaseUrl(url)}")`);
    database = { kind: 'postgres', url, poolSize, connectTimeoutSeconds, idleTimeoutSeconds, statementTimeoutMs };
  }

  if (problems.length > 0) throw new ConfigError(problems);
  return { host, port, logLevel: logLevel as LogLevel, bodyLimitBytes, database };
}

function databaseUrlProblem(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'is not a URL; expected postgres://user:password@host:5432/database';
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
    return `must start with postgres:// or postgresql://, not ${parsed.protocol}//`;
  }
  if (parsed.hostname === '' && !parsed.searchParams.has('host')) return 'has no host';
  if (parsed.pathname === '' || parsed.pathname === '/') return 'names no database (add /<database> after the host)';
  return null;
}

/** The URL with its password replaced by `***`, safe to log; unparsable input is masked whole. */
export function maskDatabaseUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return url.replace(/(\/\/[^:/@]*:)[^@]*@/, '$1***@');
  }
}
