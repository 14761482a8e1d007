import { DrizzleQueryError } from 'drizzle-orm/errors';
import { describe, expect, it } from 'vitest';
import { createLogger } from './log.js';

describe('createLogger', () => {
  it('writes one JSON object per line with level, ISO time, message and fields, and errors with their cause', () => {
    const lines: string[] = [];
    const logger = createLogger('info', (line) => lines.push(line));
    logger.debug('hidden');
    logger.info('hello', { count: 2 });
    logger.error('failed', { error: new Error('outer', { cause: new Error('inner') }) });
    expect(lines).toHaveLength(2);
    expect(JSON.parse(lines[0]!)).toEqual({ level: 'info', time: expect.stringMatching(/Z$/), message: 'hello', count: 2 });
    const failed = JSON.parse(lines[1]!);
    expect(failed).toMatchObject({ level: 'error', message: 'failed', error: { message: 'outer' } });
    expect(JSON.stringify(failed.error)).toContain('inner');
  });

  it('never writes the value of a field named like a secret', () => {
    const lines: string[] = [];
    const logger = createLogger('info', (line) => lines.push(line));
    logger.warn('oops', { password: 'hunter2-hunter2', authorization: 'Bearer abc.def', token: 't0k3n', body: '{"x":1}', user: 'ada' });
    expect(JSON.parse(lines[0]!)).toMatchObject({
      password: '[redacted]',
      authorization: '[redacted]',
      token: '[redacted]',
      body: '[redacted]',
      user: 'ada',
    });
    expect(lines[0]).not.toMatch(/hunter2|abc\.def|t0k3n/);
  });

  it("never writes a failed query's parameters, in its message, its stack or its fields, however deep in the causes", () => {
    const lines: string[] = [];
    const logger = createLogger('info', (line) => lines.push(line));
    const timeout = new Error('canceling statement due to statement timeout');
    const failed = new DrizzleQueryError(
      'insert into "webhook_subscriptions" ("id", "secret") values ($1, $2)',
      ['01JX00000000000000000HOOK1', 'whsec_c2VjcmV0IHRoYXQgbXVzdCBub3QgbGVhaw==', 'a body\nof two lines'],
      timeout,
    );
    logger.warn('store unavailable', { error: new Error('Service unavailable', { cause: failed }) });
    expect(lines[0]).not.toMatch(/whsec_|HOOK1|two lines/);
    const { error } = JSON.parse(lines[0]!) as {
      error: { cause: { message: string; stack: string; params: unknown; cause: { message: string } } };
    };
    expect(error.cause.message).toBe(
      'Failed query: insert into "webhook_subscriptions" ("id", "secret") values ($1, $2)\nparams: [redacted]',
    );
    expect(error.cause.stack).toMatch(/params: \[redacted\]\n {4}at /);
    expect(error.cause.params).toBe('[redacted]');
    expect(error.cause.cause.message).toBe('canceling statement due to statement timeout');
  });
});
