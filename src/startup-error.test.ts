import { describe, expect, it } from 'vitest';
import { listenError, StartupError, unreachableDatabaseError } from './startup-error.js';

const errno = (code: string, fields: Record<string, unknown> = {}) => Object.assign(new Error(code), { code, ...fields });
const API = { host: '127.0.0.1', port: 8080, hostVariable: 'HOST', portVariable: 'PORT' } as const;

describe('listenError', () => {
  it('tells a port in use by number and the variable that chooses another', () => {
    const error = listenError(errno('EADDRINUSE'), API);
    expect(error).toBeInstanceOf(StartupError);
    expect((error as StartupError).message).toMatch(/^port 8080 on 127\.0\.0\.1 is already in use \(EADDRINUSE\).*PORT=/);
  });

  it("names the metrics listener's own variables for its port", () => {
    const error = listenError(errno('EADDRINUSE'), {
      host: '0.0.0.0',
      port: 9464,
      hostVariable: 'METRICS_HOST',
      portVariable: 'METRICS_PORT',
    });
    expect((error as StartupError).message).toContain('METRICS_PORT=');
  });

  it('tells a privileged port and an address the machine does not have', () => {
    expect((listenError(errno('EACCES'), { ...API, port: 80 }) as Error).message).toMatch(/port 80 .*EACCES.*PORT=/);
    expect((listenError(errno('EADDRNOTAVAIL'), { ...API, host: '203.0.113.7' }) as Error).message).toMatch(
      /^203\.0\.113\.7 is not an address of this machine \(EADDRNOTAVAIL\): set HOST=/,
    );
  });

  it('leaves any other failure as it is', () => {
    const other = errno('EMFILE');
    expect(listenError(other, API)).toBe(other);
  });
});

describe('unreachableDatabaseError', () => {
  const url = 'postgres://margin:s3cret@db.internal:6543/margin';

  it('names the host, the port from DATABASE_URL when the error has none, the code and the masked URL', () => {
    const error = unreachableDatabaseError(errno('ENOTFOUND', { hostname: 'db.internal' }), url);
    expect(error?.message).toBe(
      'cannot reach PostgreSQL at db.internal:6543 (ENOTFOUND): the host name does not resolve: check the host in DATABASE_URL. ' +
        'DATABASE_URL is postgres://margin:***@db.internal:6543/margin',
    );
  });

  it('names every host of the URL when the error names none', () => {
    const error = unreachableDatabaseError(errno('CONNECTION_ENDED'), 'postgres://m@a.internal:5433,b.internal/margin');
    expect(error?.message).toMatch(/^cannot reach PostgreSQL at a\.internal:5433, b\.internal:5432 \(CONNECTION_ENDED\)/);
  });

  it('is null for an answer from PostgreSQL (a wrong password says so itself)', () => {
    expect(unreachableDatabaseError(errno('28P01'), url)).toBeNull();
  });
});
