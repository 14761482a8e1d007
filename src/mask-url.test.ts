import { describe, expect, it } from 'vitest';
import { maskUrl } from './mask-url.js';

describe('maskUrl', () => {
  it('masks the password of a postgres URL and keeps the rest', () => {
    expect(maskUrl('postgres://app:s3cret@db.internal:5432/margin')).toBe('postgres://app:***@db.internal:5432/margin');
  });

  it('masks a password holding reserved characters', () => {
    expect(maskUrl('postgresql://app:p%40ss%2Fw0rd@localhost/db?sslmode=require')).toBe(
      'postgresql://app:***@localhost/db?sslmode=require',
    );
  });

  it('masks a password given as a query parameter', () => {
    expect(maskUrl('postgres://app@localhost/db?password=hunter2&sslmode=disable')).toBe(
      'postgres://app@localhost/db?password=***&sslmode=disable',
    );
  });

  it('leaves a URL without password unchanged', () => {
    expect(maskUrl('postgres://postgres@127.0.0.1:5432/postgres')).toBe('postgres://postgres@127.0.0.1:5432/postgres');
  });

  it('masks the password of something that does not parse as a URL', () => {
    expect(maskUrl('postgres://app:secret@[bad-host/db')).toBe('postgres://app:***@[bad-host/db');
  });

  it('never returns the password', () => {
    for (const url of [
      'postgres://u:topsecret@h/d',
      'postgres://u:topsecret@h:1/d?password=topsecret',
      'not a url u:topsecret@',
      'postgres://u:topsecret@[::1/d',
    ]) {
      expect(maskUrl(url)).not.toContain('topsecret');
    }
  });
});
