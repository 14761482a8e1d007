import { DrizzleQueryError } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import {
  DuplicateIdError,
  NotFoundError,
  SlugTakenError,
  UnavailableError,
  ValidationError,
  VersionConflictError,
} from '../../../domain/errors.js';
import { connectionFailureOf, domainErrorFor, mapPgErrors, pgErrorInfo, toDomainError } from './pg-errors.js';

/** A postgres.js `PostgresError`: the constraint is in `constraint_name`. */
function postgresJsError(code: string, constraint?: string): Error {
  return Object.assign(new Error('postgres.js error'), {
    name: 'PostgresError',
    severity: 'ERROR',
    code,
    ...(constraint === undefined ? {} : { constraint_name: constraint }),
  });
}

/** A PGlite `DatabaseError`: the constraint is in `constraint`. */
function pgliteError(code: string, constraint?: string): Error {
  return Object.assign(new Error('pglite error'), {
    name: 'error',
    severity: 'ERROR',
    code,
    constraint,
  });
}

/** What Drizzle throws: the driver error on `.cause`. */
function wrapped(cause: Error): Error {
  return new DrizzleQueryError('insert into "posts" ...', [], cause);
}

const shapes = [
  ['postgres.js', postgresJsError],
  ['PGlite', pgliteError],
] as const;

describe.each(shapes)('domainErrorFor (%s error shape)', (_name, make) => {
  it('maps 23505 on posts_slug_key to SlugTakenError naming the slug', () => {
    const e = domainErrorFor(wrapped(make('23505', 'posts_slug_key')), { slug: 'hello', id: 'P1' });
    expect(e).toBeInstanceOf(SlugTakenError);
    expect((e as SlugTakenError).slug).toBe('hello');
  });

  it('maps 23505 on posts_pkey to DuplicateIdError naming the id', () => {
    const e = domainErrorFor(wrapped(make('23505', 'posts_pkey')), { slug: 'hello', id: 'P1' });
    expect(e).toBeInstanceOf(DuplicateIdError);
    expect((e as DuplicateIdError).id).toBe('P1');
  });

  it('maps 23505 on revisions_pkey to VersionConflictError with the version', () => {
    const e = domainErrorFor(wrapped(make('23505', 'revisions_pkey')), { version: 3 });
    expect(e).toBeInstanceOf(VersionConflictError);
    expect((e as VersionConflictError).expected).toBe(3);
  });

  it.each(['activity_events_pkey', 'users_pkey', 'refresh_tokens_pkey'])('maps 23505 on %s to DuplicateIdError', (constraint) => {
    expect(domainErrorFor(wrapped(make('23505', constraint)), { id: 'X' })).toBeInstanceOf(DuplicateIdError);
  });

  it.each(['webhook_subscriptions_pkey', 'preview_links_pkey'])('maps 23505 on %s to DuplicateIdError naming the id', (constraint) => {
    const e = domainErrorFor(wrapped(make('23505', constraint)), { id: 'X' });
    expect(e).toBeInstanceOf(DuplicateIdError);
    expect((e as DuplicateIdError).id).toBe('X');
  });

  it('maps 23505 on preview_links_token_hash_key to DuplicateIdError naming the hash', () => {
    const e = domainErrorFor(wrapped(make('23505', 'preview_links_token_hash_key')), { id: 'X', tokenHash: 'ab12' });
    expect(e).toBeInstanceOf(DuplicateIdError);
    expect((e as DuplicateIdError).id).toBe('ab12');
  });

  it('maps 23503 on preview_links_post_fkey to NotFoundError(post) naming the post; an unknown foreign key stays unmapped', () => {
    const e = domainErrorFor(wrapped(make('23503', 'preview_links_post_fkey')), { id: 'L1', postId: 'P1' });
    expect(e).toBeInstanceOf(NotFoundError);
    expect([(e as NotFoundError).entity, (e as NotFoundError).id]).toEqual(['post', 'P1']);
    expect(domainErrorFor(wrapped(make('23503', 'webhook_deliveries_event_fkey')))).toBeNull();
    expect(domainErrorFor(wrapped(make('23505', 'preview_links_post_fkey')))).toBeNull();
  });

  it('finds the driver error unwrapped too', () => {
    expect(domainErrorFor(make('23505', 'posts_slug_key'))).toBeInstanceOf(SlugTakenError);
  });

  it('leaves a unique violation on an unknown constraint unmapped', () => {
    const original = wrapped(make('23505', 'something_else_key'));
    expect(domainErrorFor(original)).toBeNull();
    expect(toDomainError(original)).toBe(original);
  });

  it('maps 54000 (a tsvector over 1 MiB, past a limit of PostgreSQL) to ValidationError of the input, never a 500', () => {
    const e = domainErrorFor(wrapped(make('54000')));
    expect(e).toBeInstanceOf(ValidationError);
    expect(e).toMatchObject({ source: 'input', issues: [{ pointer: '', message: 'is larger than the store can hold' }] });
  });

  it('leaves other SQLSTATEs (syntax error, check violation) unmapped', () => {
    expect(domainErrorFor(wrapped(make('42601')))).toBeNull();
    expect(domainErrorFor(wrapped(make('23514', 'posts_status_check')))).toBeNull();
  });

  it.each(['57014', '08006', '08001', '57P01', '57P03', '53300', '40001', '40P01'])(
    'maps SQLSTATE %s to UnavailableError keeping the cause',
    (code) => {
      const original = wrapped(make(code));
      const e = domainErrorFor(original);
      expect(e).toBeInstanceOf(UnavailableError);
      expect((e as UnavailableError).retryAfterSeconds).toBeGreaterThan(0);
      expect((e as UnavailableError).cause).toBe(original);
      expect(e?.message).not.toContain('error');
    },
  );
});

describe('domainErrorFor (connection failures)', () => {
  // EPIPE and EHOSTUNREACH have the shape of a SQLSTATE (five capitals): a write to a socket the
  // server closed (a restart) answered 500 until they were told apart.
  it.each(['ECONNREFUSED', 'CONNECT_TIMEOUT', 'ANSWER_TIMEOUT', 'CONNECTION_CLOSED', 'ECONNRESET', 'EPIPE', 'ENETUNREACH'])(
    'maps code %s to UnavailableError',
    (code) => {
      const cause = Object.assign(new Error(`connect ${code}`), { code });
      expect(domainErrorFor(wrapped(cause))).toBeInstanceOf(UnavailableError);
    },
  );

  it('looks inside an AggregateError (Node tries every address)', () => {
    const inner = Object.assign(new Error('connect ECONNREFUSED ::1:5432'), { code: 'ECONNREFUSED' });
    expect(domainErrorFor(new AggregateError([inner], 'connect failed'))).toBeInstanceOf(UnavailableError);
  });

  it('leaves plain errors and non-errors unmapped', () => {
    expect(domainErrorFor(new Error('boom'))).toBeNull();
    expect(domainErrorFor('boom')).toBeNull();
    expect(domainErrorFor(null)).toBeNull();
  });

  it('survives a cause cycle', () => {
    const a = new Error('a') as Error & { cause?: unknown };
    const b = new Error('b', { cause: a });
    a.cause = b;
    expect(domainErrorFor(a)).toBeNull();
  });

  it('does not take a domain error code for a SQLSTATE', () => {
    const e = new SlugTakenError('x');
    expect(pgErrorInfo(e)).toBeNull();
    expect(toDomainError(e)).toBe(e);
  });
});

describe('connectionFailureOf', () => {
  it('keeps the code, address and port of a refused connection under the UnavailableError it became', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), {
      code: 'ECONNREFUSED',
      errno: -111,
      syscall: 'connect',
      address: '127.0.0.1',
      port: 1,
    });
    const unavailable = domainErrorFor(wrapped(refused));
    expect(connectionFailureOf(unavailable)).toEqual({ code: 'ECONNREFUSED', host: '127.0.0.1', port: 1 });
  });

  it("names the host of a failed name look-up and postgres.js's connect timeout", () => {
    const notFound = Object.assign(new Error('getaddrinfo ENOTFOUND db.invalid'), { code: 'ENOTFOUND', hostname: 'db.invalid' });
    expect(connectionFailureOf(notFound)).toEqual({ code: 'ENOTFOUND', host: 'db.invalid', port: undefined });
    const timeout = Object.assign(new Error('write CONNECT_TIMEOUT 10.9.9.9:5432'), {
      code: 'CONNECT_TIMEOUT',
      errno: 'CONNECT_TIMEOUT',
      address: '10.9.9.9',
      port: 5432,
    });
    expect(connectionFailureOf(timeout)).toEqual({ code: 'CONNECT_TIMEOUT', host: '10.9.9.9', port: 5432 });
  });

  it('is null for a server that answered (a SQLSTATE) and for other errors', () => {
    expect(connectionFailureOf(Object.assign(new Error('password authentication failed'), { code: '28P01' }))).toBeNull();
    expect(connectionFailureOf(new Error('boom'))).toBeNull();
  });
});

describe('mapPgErrors', () => {
  it('returns the result and rethrows mapped failures', async () => {
    await expect(mapPgErrors(async () => 42)).resolves.toBe(42);
    await expect(
      mapPgErrors(
        async () => {
          throw wrapped(postgresJsError('23505', 'posts_slug_key'));
        },
        { slug: 's' },
      ),
    ).rejects.toBeInstanceOf(SlugTakenError);
  });
});
