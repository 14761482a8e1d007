import { describe, expect, it } from 'vitest';
import { DatabaseUrlError, parseDatabaseUrl, postgresJsTarget, type DatabaseUrl } from './database-url.js';

const base: DatabaseUrl = {
  hosts: ['db'],
  ports: [5432],
  database: 'blog',
  user: 'margin',
  password: null,
  sslmode: null,
  systemRootCert: false,
  applicationName: null,
  options: null,
  targetSessionAttrs: null,
};

// What libpq (psql 15) makes of each URL; the server-side ones were checked with psql against a server.
describe('parseDatabaseUrl, as libpq reads a connection URI', () => {
  it.each<[string, Partial<DatabaseUrl>]>([
    ['postgres://margin@db/blog', {}],
    ['postgresql://margin@db/blog', {}],
    // A "+" stays a "+" everywhere; percent-escapes are decoded once.
    ['postgres://margin@db/blog?application_name=my+app', { applicationName: 'my+app' }],
    ['postgres://margin@db/blog?application_name=my%20app%2Bx', { applicationName: 'my app+x' }],
    ['postgres://margin@db/blog?application_name=100%2525', { applicationName: '100%25' }],
    ['postgres://margin@db/my%2Bdb+x', { database: 'my+db+x' }],
    // Special characters in the password: percent-encoded, or as they are where libpq allows.
    ['postgres://margin:p%40ss%3Aw%2Fo%3Frd%25@db/blog', { password: 'p@ss:w/o?rd%' }],
    ['postgres://margin:pa+ss:wo?rd@db/blog', { password: 'pa+ss:wo?rd' }],
    ['postgres://margin:%C3%A9t%C3%A9@db/blog', { password: 'été' }],
    ['postgres://margin:@db/blog', { password: '' }],
    ['postgres://m%40rgin@db/blog', { user: 'm@rgin' }],
    ['postgres://db/blog', { user: null }],
    // Hosts and ports.
    ['postgres://margin@db:6543/blog', { ports: [6543] }],
    ['postgres://margin@10.0.0.5/blog', { hosts: ['10.0.0.5'] }],
    ['postgres://margin@[::1]:6543/blog', { hosts: ['::1'], ports: [6543] }],
    ['postgres://margin@[fe80::1%25eth0]/blog', { hosts: ['fe80::1%eth0'] }],
    ['postgres://margin@a:6001,b,[::1]:6003/blog', { hosts: ['a', 'b', '::1'], ports: [6001, 5432, 6003] }],
    ['postgres://margin@a,b/blog?port=7000', { hosts: ['a', 'b'], ports: [7000, 7000] }],
    ['postgres://margin@a,b/blog?port=7001,7002', { hosts: ['a', 'b'], ports: [7001, 7002] }],
    ['postgres://margin@/blog?host=db', {}],
    ['postgres://margin@%2Fvar%2Frun%2Fpostgresql/blog', { hosts: ['/var/run/postgresql'] }],
    ['postgres://margin@ignored/x?host=db&dbname=blog&user=margin&password=a+b', { password: 'a+b' }],
    ['postgres://margin@db/blog?', {}],
    // TLS.
    ['postgres://margin@db/blog?sslmode=verify-full', { sslmode: 'verify-full' }],
    ['postgres://margin@db/blog?sslmode=disable', { sslmode: 'disable' }],
    ['postgres://margin@db/blog?ssl=true', { sslmode: 'require' }],
    ['postgres://margin@db/blog?sslrootcert=system', { systemRootCert: true }],
    // Settings for the session.
    ['postgres://margin@db/blog?options=-c%20search_path%3Dapp', { options: '-c search_path=app' }],
    ['postgres://margin@db/blog?target_session_attrs=read-write', { targetSessionAttrs: 'read-write' }],
  ])('reads %s', (url, expected) => {
    expect(parseDatabaseUrl(url)).toStrictEqual({ ...base, ...expected });
  });

  it.each([
    ['mysql://root@db/blog', 'must start with postgres:// or postgresql://, not mysql://'],
    ['not a url at all', 'is not a URL'],
    ['postgres://margin@db', 'names no database'],
    ['postgres://margin@db/', 'names no database'],
    ['postgres://margin@/blog', 'has no host'],
    ['postgres://margin@a,,b/blog', 'has no host'],
    ['postgres://margin@db:99999/blog', 'has an invalid port "99999"'],
    ['postgres://margin@db:5x/blog', 'has an invalid port "5x"'],
    ['postgres://margin@a,b/blog?port=1,2,3', 'has 3 ports for 2 hosts'],
    ['postgres://margin@[::1/blog', 'without its closing "]"'],
    [
      'postgres://margin@db/blog?foo=bar',
      'has an unknown parameter "foo" (libpq refuses it too; a server setting goes in options=-c foo%3D…)',
    ],
    ['postgres://margin@db/blog?search_path=app', 'has an unknown parameter "search_path"'],
    [
      'postgres://margin@db/blog?connect_timeout=5',
      '"connect_timeout", which this server does not apply: set DB_CONNECT_TIMEOUT_SECONDS instead',
    ],
    ['postgres://margin@db/blog?sslcert=/tmp/c.pem', '"sslcert", which this server does not apply'],
    [
      'postgres://margin@db/blog?sslmode=maybe',
      'has sslmode=maybe; expected one of disable, allow, prefer, require, verify-ca, verify-full',
    ],
    ['postgres://margin@db/blog?ssl=1', 'libpq takes only ssl=true'],
    ['postgres://margin@db/blog?sslrootcert=system&sslmode=require', 'libpq allows only verify-full with it'],
    ['postgres://margin@db/blog?application_name', 'has a parameter without "="'],
    ['postgres://margin@db/blog?&application_name=x', 'has a parameter without "="'],
    ['postgres://margin@db/blog?application_name=a=b', 'more than one "="'],
    ['postgres://margin@db/blog?application_name=a%zz', 'has a "%" not followed by two hex digits in the value of application_name'],
    ['postgres://margin@db/blog?application_name=%00', 'has a forbidden %00 in the value of application_name'],
    ['postgres://margin:hunter2%zz@db/blog', 'in the password'],
    ['postgres://margin@a,%2Ftmp/blog', 'Unix socket folder in a list of hosts'],
  ])('refuses %s: "%s"', (url, message) => {
    let error: unknown;
    try {
      parseDatabaseUrl(url);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(DatabaseUrlError);
    expect((error as Error).message).toContain(message);
    expect((error as Error).message).not.toContain('hunter2');
  });
});

describe('postgresJsTarget', () => {
  it('hands postgres.js every part as an option, so it never parses the URL (where "+" became a space)', () => {
    const target = postgresJsTarget(
      parseDatabaseUrl(
        'postgres://margin:pa+ss@a:6001,b/blog?application_name=my+app&options=-c%20search_path%3Dapp&target_session_attrs=primary',
      ),
    );
    expect(target).toStrictEqual({
      host: ['a', 'b'],
      port: [6001, 5432],
      database: 'blog',
      user: 'margin',
      password: 'pa+ss',
      ssl: false,
      target_session_attrs: 'primary',
      connection: { application_name: 'my+app', options: '-c search_path=app' },
    });
  });

  it('connects to a Unix socket folder through its .s.PGSQL.<port> file', () => {
    expect(postgresJsTarget(parseDatabaseUrl('postgres://margin@%2Fvar%2Frun%2Fpostgresql%2F:6000/blog')).path).toBe(
      '/var/run/postgresql/.s.PGSQL.6000',
    );
  });

  it.each([
    ['', false],
    ['?sslmode=disable', false],
    ['?sslmode=allow', 'prefer'],
    ['?sslmode=prefer', 'prefer'],
    ['?sslmode=require', 'require'],
    ['?ssl=true', 'require'],
    ['?sslmode=verify-full', 'verify-full'],
    ['?sslrootcert=system', 'verify-full'],
  ])('maps %s to postgres.js ssl %s', (query, ssl) => {
    expect(postgresJsTarget(parseDatabaseUrl(`postgres://margin@db/blog${query}`)).ssl).toBe(ssl);
  });

  it('checks the certificate chain but not the host name for sslmode=verify-ca', () => {
    const ssl = postgresJsTarget(parseDatabaseUrl('postgres://margin@db/blog?sslmode=verify-ca')).ssl as {
      rejectUnauthorized: boolean;
      checkServerIdentity: () => undefined;
    };
    expect(ssl.rejectUnauthorized).toBe(true);
    expect(ssl.checkServerIdentity()).toBeUndefined();
  });
});
