import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConfigError, ENV_VARIABLES, loadConfig, maskDatabaseUrl } from './config.js';

describe('loadConfig', () => {
  it('defaults to embedded PGlite under .data on 127.0.0.1:8080 with a 1 MiB body limit', () => {
    expect(loadConfig({})).toEqual({
      host: '127.0.0.1',
      port: 8080,
      logLevel: 'info',
      bodyLimitBytes: 1048576,
      database: { kind: 'pglite', dataDir: '.data' },
    });
  });

  it('uses PostgreSQL with the pool settings when DATABASE_URL is set', () => {
    const config = loadConfig({ DATABASE_URL: 'postgres://u:p@db:5432/blog', DB_POOL_SIZE: '4', DB_STATEMENT_TIMEOUT_MS: '2500' });
    expect(config.database).toEqual({
      kind: 'postgres',
      url: 'postgres://u:p@db:5432/blog',
      poolSize: 4,
      connectTimeoutSeconds: 5,
      idleTimeoutSeconds: 30,
      statementTimeoutMs: 2500,
    });
  });

  it('reports every bad value at once', () => {
    let error: unknown;
    try {
      loadConfig({ PORT: 'eighty', LOG_LEVEL: 'loud', DB_POOL_SIZE: '0' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toHaveLength(3);
  });

  it('names what is wrong with an invalid DATABASE_URL and masks its password', () => {
    for (const [url, fragment] of [
      ['mysql://root:hunter2@db/blog', 'must start with postgres://'],
      ['postgres://root:hunter2@db', 'names no database'],
      ['not a url at all', 'is not a URL'],
    ] as const) {
      let message = '';
      try {
        loadConfig({ DATABASE_URL: url });
      } catch (e) {
        message = (e as Error).message;
      }
      expect(message).toContain(fragment);
      expect(message).not.toContain('hunter2');
    }
  });

  it('lists every variable it reads in .env.example', () => {
    const example = readFileSync(new URL('../.env.example', import.meta.url), 'utf8');
    const listed = [...example.matchAll(/^([A-Z_]+)=/gm)].map((m) => m[1]).sort();
    expect(listed).toEqual(Object.keys(ENV_VARIABLES).sort());
  });
});

describe('maskDatabaseUrl', () => {
  it('replaces the password with *** and keeps the rest', () => {
    expect(maskDatabaseUrl('postgres://margin:s3cr%40t@db.local:5432/blog?sslmode=require')).toBe(
      'postgres://margin:***@db.local:5432/blog?sslmode=require',
    );
    expect(maskDatabaseUrl('postgres://margin@db/blog')).toBe('postgres://margin@db/blog');
  });
});
