/**
 * DATABASE_URL read as libpq reads a connection URI (PostgreSQL's "Connection URIs", libpq's
 * `conninfo_uri_parse_options`), so that the URL that works with psql, pg_dump or pgx means the
 * same here:
 *
 *   postgres[ql]://[user[:password]@][host][:port][,host[:port]…][/dbname][?name=value[&…]]
 *
 * - Every part is percent-decoded once; a `+` is a `+` (not a space, as URLSearchParams and so
 *   postgres.js, which is handed the options this makes and never the URL, would have it).
 * - A host is a name, an IPv4 address, `[IPv6]`, or a percent-encoded Unix socket folder
 *   (`%2Fvar%2Frun%2Fpostgresql`); a list of hosts is tried in order, each with its own port
 *   (5432 when it has none).
 * - Parameters: `host`, `port`, `user`, `password` and `dbname` override the URL's parts;
 *   `sslmode`, `ssl=true` (libpq's alias of `sslmode=require`), `sslrootcert=system`,
 *   `application_name`, `options` (e.g. `-c search_path=app`) and `target_session_attrs`.
 *   Any other name is refused, as libpq refuses it: a name libpq does not know (postgres.js would
 *   have sent it to the server as a setting), and a libpq parameter this server does not apply
 *   (rather than ignore it silently).
 *
 * Written here rather than taken from pg-connection-string (node-postgres' parser): that one reads
 * the query with URLSearchParams too (`+` becomes a space), keeps one host, and passes unknown
 * parameters through.
 */

type SslMode = 'disable' | 'allow' | 'prefer' | 'require' | 'verify-ca' | 'verify-full';
const SSL_MODES: readonly string[] = ['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full'];
const SESSION_ATTRS: readonly string[] = ['any', 'read-write', 'read-only', 'primary', 'standby', 'prefer-standby'];
const DEFAULT_PORT = 5432;

/** What DATABASE_URL says, decoded. */
export interface DatabaseUrl {
  /** Host names or addresses, or a Unix socket folder (starts with `/`), tried in order. */
  hosts: string[];
  /** One per host. */
  ports: number[];
  database: string;
  /** Null when the URL names none (libpq and postgres.js then take PGUSER or the OS user). */
  user: string | null;
  password: string | null;
  /** Null when the URL sets none: no TLS, as postgres.js has it (libpq's default is `prefer`). */
  sslmode: SslMode | null;
  /** `sslrootcert=system`: verify the server against the system's CAs (implies verify-full). */
  systemRootCert: boolean;
  applicationName: string | null;
  /** Server options sent at connection start, as libpq's `options` (`-c name=value …`). */
  options: string | null;
  targetSessionAttrs: string | null;
}

/** Its message completes "DATABASE_URL …". */
export class DatabaseUrlError extends Error {}

/** libpq's parameters that this server does not apply, each with what to do instead. */
const UNSUPPORTED: Readonly<Record<string, string>> = {
  connect_timeout: 'set DB_CONNECT_TIMEOUT_SECONDS instead',
  hostaddr: 'put the address in the host',
  service: 'write the service out in the URL',
  passfile: 'put the password in the URL',
  client_encoding: 'the server always talks UTF-8',
  fallback_application_name: 'use application_name',
  ...Object.fromEntries(
    [
      'channel_binding',
      'keepalives',
      'keepalives_idle',
      'keepalives_interval',
      'keepalives_count',
      'tcp_user_timeout',
      'sslnegotiation',
      'sslcompression',
      'sslcert',
      'sslkey',
      'sslcertmode',
      'sslpassword',
      'sslcrl',
      'sslcrldir',
      'sslsni',
      'requirepeer',
      'ssl_min_protocol_version',
      'ssl_max_protocol_version',
      'gssencmode',
      'krbsrvname',
      'gsslib',
      'gssdelegation',
      'replication',
      'load_balance_hosts',
      'require_auth',
    ].map((name) => [name, 'remove it']),
  ),
};

/** Percent-decoding as libpq's `conninfo_uri_decode`: `%` takes two hex digits, `%00` is refused, `+` stays. */
function decode(text: string, where: string): string {
  if (!text.includes('%')) return text;
  const bytes: number[] = [];
  const utf8 = Buffer.from(text, 'utf8');
  for (let i = 0; i < utf8.length; i++) {
    const byte = utf8[i]!;
    if (byte !== 0x25) {
      bytes.push(byte);
      continue;
    }
    const hex = utf8.subarray(i + 1, i + 3).toString('latin1');
    if (!/^[0-9A-Fa-f]{2}$/.test(hex)) throw new DatabaseUrlError(`has a "%" not followed by two hex digits in the ${where}`);
    const value = parseInt(hex, 16);
    if (value === 0) throw new DatabaseUrlError(`has a forbidden %00 in the ${where}`);
    bytes.push(value);
    i += 2;
  }
  return Buffer.from(bytes).toString('utf8');
}

function portOf(text: string): number {
  const port = /^[0-9]{1,5}$/.test(text) ? Number(text) : NaN;
  if (!(port >= 1 && port <= 65535)) throw new DatabaseUrlError(`has an invalid port "${text}" (1 to 65535)`);
  return port;
}

/** The hosts and ports of the URL's authority (after any `user@`), and what follows it. */
function hostsOf(text: string): { hosts: string[]; ports: string[]; rest: string } {
  const hosts: string[] = [];
  const ports: string[] = [];
  let i = 0;
  for (;;) {
    let host: string;
    if (text[i] === '[') {
      const end = text.indexOf(']', i);
      if (end < 0) throw new DatabaseUrlError('has an IPv6 host without its closing "]"');
      host = decode(text.slice(i + 1, end), 'host');
      if (host === '') throw new DatabaseUrlError('has an empty IPv6 host "[]"');
      i = end + 1;
      if (i < text.length && !':/?,'.includes(text[i]!)) throw new DatabaseUrlError(`has "${text[i]}" after the IPv6 host [${host}]`);
    } else {
      const end = text.slice(i).search(/[:/?,]/);
      host = decode(end < 0 ? text.slice(i) : text.slice(i, i + end), 'host');
      i = end < 0 ? text.length : i + end;
    }
    let port = '';
    if (text[i] === ':') {
      const end = text.slice(i + 1).search(/[/?,]/);
      port = end < 0 ? text.slice(i + 1) : text.slice(i + 1, i + 1 + end);
      i = end < 0 ? text.length : i + 1 + end;
    }
    hosts.push(host);
    ports.push(decode(port, 'port'));
    if (text[i] !== ',') break;
    i++;
  }
  return { hosts, ports, rest: text.slice(i) };
}

/**
 * @throws DatabaseUrlError saying what is wrong with the URL (never quoting its password)
 */
export function parseDatabaseUrl(url: string): DatabaseUrl {
  const scheme = /^postgres(?:ql)?:\/\//.exec(url);
  if (scheme === null) {
    throw new DatabaseUrlError(
      /^[a-z][a-z0-9+.-]*:/i.test(url)
        ? `must start with postgres:// or postgresql://, not ${url.slice(0, url.indexOf(':') + 1)}//`
        : 'is not a URL; expected postgres://user:password@host:5432/database',
    );
  }
  let text = url.slice(scheme[0].length);
  let user: string | null = null;
  let password: string | null = null;
  // As libpq: the user part ends at the first "@" before any "/"; an "@" in it is written %40.
  const userEnd = text.search(/[@/]/);
  if (userEnd >= 0 && text[userEnd] === '@') {
    const userinfo = text.slice(0, userEnd);
    const colon = userinfo.indexOf(':');
    user = decode(colon < 0 ? userinfo : userinfo.slice(0, colon), 'user');
    if (colon >= 0) password = decode(userinfo.slice(colon + 1), 'password');
    text = text.slice(userEnd + 1);
  }
  // The URL's hosts and ports, until a host= or port= parameter replaces them.
  const { rest: afterHosts, ...authority } = hostsOf(text);
  let database = '';
  let rest = afterHosts;
  if (rest.startsWith('/')) {
    const end = rest.indexOf('?');
    database = decode(end < 0 ? rest.slice(1) : rest.slice(1, end), 'database name');
    rest = end < 0 ? '' : rest.slice(end);
  }
  const parsed: DatabaseUrl = {
    hosts: [],
    ports: [],
    database,
    user: user === '' ? null : user,
    password,
    sslmode: null,
    systemRootCert: false,
    applicationName: null,
    options: null,
    targetSessionAttrs: null,
  };
  if (rest.startsWith('?') && rest !== '?') {
    for (const pair of rest.slice(1).split('&')) {
      const parts = pair.split('=');
      if (parts.length < 2) throw new DatabaseUrlError(`has a parameter without "=": "${pair}"`);
      if (parts.length > 2) throw new DatabaseUrlError(`has a parameter with more than one "=" (write it %3D): "${parts[0]}"`);
      const name = decode(parts[0]!, 'name of a parameter');
      const value = decode(parts[1]!, `value of ${name}`);
      applyParameter(parsed, authority, name, value);
    }
  } else if (rest !== '' && rest !== '?') {
    throw new DatabaseUrlError(`has "${rest[0]}" where a "/database" or "?parameters" should follow the host`);
  }
  const { hosts, ports: portTexts } = authority;
  if (hosts.some((host) => host === '')) throw new DatabaseUrlError('has no host');
  if (hosts.length > 1 && hosts.some((host) => host.startsWith('/'))) {
    throw new DatabaseUrlError('has a Unix socket folder in a list of hosts; give it alone');
  }
  if (portTexts.length !== 1 && portTexts.length !== hosts.length) {
    throw new DatabaseUrlError(`has ${portTexts.length} ports for ${hosts.length} hosts`);
  }
  parsed.hosts = hosts;
  parsed.ports = hosts.map((_, i) => {
    const text = portTexts.length === 1 ? portTexts[0]! : portTexts[i]!;
    return text === '' ? DEFAULT_PORT : portOf(text);
  });
  if (parsed.database === '') throw new DatabaseUrlError('names no database (add /<database> after the host)');
  if (parsed.systemRootCert && parsed.sslmode !== null && parsed.sslmode !== 'verify-full') {
    throw new DatabaseUrlError(`has sslrootcert=system with sslmode=${parsed.sslmode}; libpq allows only verify-full with it`);
  }
  return parsed;
}

/** Applies one `?name=value` parameter of the URL to what it says. */
function applyParameter(parsed: DatabaseUrl, authority: { hosts: string[]; ports: string[] }, name: string, value: string): void {
  switch (name) {
    case 'host':
      authority.hosts = value.split(',');
      break;
    case 'port':
      authority.ports = value.split(',');
      break;
    case 'dbname':
      parsed.database = value;
      break;
    case 'user':
      parsed.user = value === '' ? null : value;
      break;
    case 'password':
      parsed.password = value;
      break;
    case 'ssl':
      if (value !== 'true') throw new DatabaseUrlError(`has ssl=${value}; libpq takes only ssl=true (sslmode=require): use sslmode`);
      parsed.sslmode = 'require';
      break;
    case 'sslmode':
      if (!SSL_MODES.includes(value)) throw new DatabaseUrlError(`has sslmode=${value}; expected one of ${SSL_MODES.join(', ')}`);
      parsed.sslmode = value as SslMode;
      break;
    case 'sslrootcert':
      if (value !== 'system') throw new DatabaseUrlError('has sslrootcert other than "system", which this server does not support');
      parsed.systemRootCert = true;
      break;
    case 'application_name':
      parsed.applicationName = value;
      break;
    case 'options':
      parsed.options = value;
      break;
    case 'target_session_attrs':
      if (!SESSION_ATTRS.includes(value)) {
        throw new DatabaseUrlError(`has target_session_attrs=${value}; expected one of ${SESSION_ATTRS.join(', ')}`);
      }
      parsed.targetSessionAttrs = value;
      break;
    default: {
      const instead = UNSUPPORTED[name];
      throw new DatabaseUrlError(
        instead === undefined
          ? `has an unknown parameter "${name}" (libpq refuses it too; a server setting goes in options=-c ${name}%3D…)`
          : `has the libpq parameter "${name}", which this server does not apply: ${instead}`,
      );
    }
  }
}

/** The TLS postgres.js is given for an sslmode (its `ssl` option). */
function sslOf(url: DatabaseUrl): boolean | string | Record<string, unknown> {
  if (url.systemRootCert) return 'verify-full';
  switch (url.sslmode) {
    case null:
    case 'disable':
      return false;
    // postgres.js has no "plain first, then TLS": it tries TLS first and falls back, like prefer.
    case 'allow':
    case 'prefer':
      return 'prefer';
    case 'require':
      return 'require';
    // The certificate chain is checked, the host name is not.
    case 'verify-ca':
      return { rejectUnauthorized: true, checkServerIdentity: () => undefined };
    case 'verify-full':
      return 'verify-full';
  }
}

/** The postgres.js options that say where and as whom to connect (it is never handed the URL). */
export interface PostgresJsTarget {
  host: string[];
  port: number[];
  /** A Unix socket's file, for a socket folder host. */
  path?: string;
  database: string;
  user?: string;
  password?: string;
  ssl: boolean | string | Record<string, unknown>;
  target_session_attrs?: string;
  /** Sent at connection start: what the URL sets of `application_name` and `options`. */
  connection: Record<string, string>;
}

export function postgresJsTarget(url: DatabaseUrl): PostgresJsTarget {
  const socket = url.hosts[0]!.startsWith('/') ? `${url.hosts[0]!.replace(/\/$/, '')}/.s.PGSQL.${url.ports[0]!}` : undefined;
  return {
    host: url.hosts,
    port: url.ports,
    ...(socket === undefined ? {} : { path: socket }),
    database: url.database,
    ...(url.user === null ? {} : { user: url.user }),
    ...(url.password === null ? {} : { password: url.password }),
    ssl: sslOf(url),
    // libpq's "any" is postgres.js' default (none).
    ...(url.targetSessionAttrs === null || url.targetSessionAttrs === 'any' ? {} : { target_session_attrs: url.targetSessionAttrs }),
    connection: {
      ...(url.applicationName === null ? {} : { application_name: url.applicationName }),
      ...(url.options === null ? {} : { options: url.options }),
    },
  };
}
