import { describe, expect, it } from 'vitest';
import {
  decodeRelevanceCursor,
  ACTIVITY_POSITION,
  activityCursorScope,
  base64UrlDecode,
  base64UrlEncode,
  type CursorField,
  cursorScope,
  decodeCursor,
  encodeCursor,
  postCursorScope,
  postPositionShape,
  REVISION_POSITION,
  revisionCursorScope,
} from './cursor.js';
import { InvalidCursorError } from './errors.js';

const ID = '01J0000000000000000000000A';
const scope = postCursorScope({ sort: { key: 'title', direction: 'asc' } });

function b64(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64url');
}

describe('base64url', () => {
  it('matches Node for every length and byte value', () => {
    for (let n = 0; n < 40; n += 1) {
      const bytes = Uint8Array.from({ length: n }, (_, i) => (i * 97 + n * 31) % 256);
      const text = base64UrlEncode(bytes);
      expect(text).toBe(Buffer.from(bytes).toString('base64url'));
      expect(base64UrlDecode(text)).toEqual(bytes);
    }
  });

  it('rejects characters outside the alphabet, padding, impossible lengths and stray bits', () => {
    for (const bad of ['ab+c', 'ab/c', 'abc=', 'a b', 'abcde', 'AB']) {
      expect(base64UrlDecode(bad)).toBeNull();
    }
  });
});

describe('cursorScope', () => {
  it('does not depend on key order, undefined values or the order of a status list', () => {
    expect(cursorScope({ b: 1, a: ['published', 'draft'], c: undefined })).toBe(cursorScope({ a: ['draft', 'published', 'draft'], b: 1 }));
    expect(cursorScope({ b: 1, a: 'x' })).toBe('{"a":"x","b":1}');
  });

  it('treats an empty status list and an empty q as absent in post scopes', () => {
    const sort = { key: 'createdAt', direction: 'desc' } as const;
    expect(postCursorScope({ sort, status: [], q: '' })).toBe(postCursorScope({ sort }));
  });

  it('differs for another sort direction, sort key, filter or list', () => {
    const scopes = [
      postCursorScope({ sort: { key: 'title', direction: 'asc' } }),
      postCursorScope({ sort: { key: 'title', direction: 'desc' } }),
      postCursorScope({ sort: { key: 'createdAt', direction: 'asc' } }),
      postCursorScope({ sort: { key: 'title', direction: 'asc' }, status: ['draft'] }),
      postCursorScope({ sort: { key: 'title', direction: 'asc' }, tag: 'x' }),
      postCursorScope({ sort: { key: 'title', direction: 'asc' }, q: 'x' }),
      revisionCursorScope(ID),
      activityCursorScope({}),
      activityCursorScope({ type: 'created' }),
    ];
    expect(new Set(scopes).size).toBe(scopes.length);
  });
});

describe('encodeCursor / decodeCursor', () => {
  it('round-trips a position through a URL-safe string', () => {
    const positions: unknown[][] = [['Été 😀 ｚ', ID], [null, ID], ['2026-03-04T05:06:07.891Z', ID], [42]];
    for (const position of positions) {
      const cursor = encodeCursor(scope, position);
      expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(decodeCursor(cursor, scope)).toEqual(position);
    }
  });

  it('stays within 512 characters for a 200-character title', () => {
    const cursor = encodeCursor(scope, ['T'.repeat(200), ID]);
    expect(cursor.length).toBeLessThanOrEqual(512);
  });

  it('refuses a cursor issued for another scope', () => {
    const cursor = encodeCursor(scope, ['a', ID]);
    const other = postCursorScope({ sort: { key: 'title', direction: 'desc' } });
    expect(() => decodeCursor(cursor, other)).toThrow(InvalidCursorError);
  });

  it('refuses garbled strings and wrong shapes', () => {
    const bad = [
      '',
      'not a cursor',
      'garbage',
      'abc',
      b64('{"a":1}'),
      b64('[1,"0000000000000000"]'),
      b64('[2,"0000000000000000",[]]'),
      b64('\u0000'),
      encodeCursor(scope, ['a', ID]).slice(0, -3),
    ];
    for (const cursor of bad) {
      expect(() => decodeCursor(cursor, scope), cursor).toThrow(InvalidCursorError);
    }
    const invalidUtf8 = Buffer.from([0x5b, 0xff, 0x5d]).toString('base64url');
    expect(() => decodeCursor(invalidUtf8, scope)).toThrow(InvalidCursorError);
  });

  it('checks the position against a shape when one is given', () => {
    const good: Array<[readonly CursorField[], unknown[]]> = [
      [postPositionShape('title'), ['x', ID]],
      [postPositionShape('publishedAt'), [null, ID]],
      [postPositionShape('createdAt'), ['2026-03-04T05:06:07.891Z', ID]],
      [REVISION_POSITION, [3]],
      [ACTIVITY_POSITION, ['2026-03-04T05:06:07.891Z', ID]],
    ];
    for (const [shape, position] of good) {
      expect(decodeCursor(encodeCursor(scope, position), scope, shape)).toEqual(position);
    }
    const bad: Array<[readonly CursorField[], unknown[]]> = [
      [postPositionShape('title'), [null, ID]],
      [postPositionShape('createdAt'), [null, ID]],
      [postPositionShape('createdAt'), ['2026-03-04', ID]],
      [postPositionShape('updatedAt'), ['2026-03-04T05:06:07.891Z']],
      [REVISION_POSITION, [1.5]],
      [REVISION_POSITION, ['1']],
      [ACTIVITY_POSITION, ['2026-03-04T05:06:07.891Z', ID, 'extra']],
      // Positions no store can hold (a crafted cursor must be a 422, never a database error).
      [postPositionShape('title'), ['a\u0000b', ID]],
      [postPositionShape('title'), ['x', 'bad\u0000id']],
      [postPositionShape('title'), ['\ud800', ID]],
      [postPositionShape('createdAt'), ['+275760-09-13T00:00:00.000Z', ID]],
      [postPositionShape('createdAt'), ['-010000-01-01T00:00:00.000Z', ID]],
      [postPositionShape('createdAt'), ['0000-01-01T00:00:00.000Z', ID]],
      [REVISION_POSITION, [9007199254740991]],
      [REVISION_POSITION, [2147483648]],
    ];
    for (const [shape, position] of bad) {
      expect(() => decodeCursor(encodeCursor(scope, position), scope, shape)).toThrow(InvalidCursorError);
    }
  });
});

describe('decodeRelevanceCursor', () => {
  const query = { sort: { key: 'relevance', direction: 'desc' }, q: 'apple' } as const;

  it('says which order a relevance cursor continues: ranked, or newest first (its own scope)', () => {
    expect(decodeRelevanceCursor(encodeCursor(postCursorScope(query), [3.25, 'B']), query)).toEqual({
      order: 'rank',
      value: 3.25,
      id: 'B',
    });
    const newest = encodeCursor(postCursorScope(query, 'newest'), ['2026-01-02T03:04:05.006Z', 'C']);
    expect(decodeRelevanceCursor(newest, query)).toEqual({ order: 'newest', value: '2026-01-02T03:04:05.006Z', id: 'C' });
    expect(decodeRelevanceCursor(encodeCursor(postCursorScope(query, 'newest'), [null, 'D']), query)).toMatchObject({ value: null });
  });

  it('refuses a cursor of another q, or one whose position has the other order’s shape', () => {
    const other = { ...query, q: 'pear' };
    expect(() => decodeRelevanceCursor(encodeCursor(postCursorScope(other), [3, 'B']), query)).toThrow(InvalidCursorError);
    expect(() => decodeRelevanceCursor(encodeCursor(postCursorScope(query, 'newest'), [3, 'B']), query)).toThrow(InvalidCursorError);
    expect(() => decodeRelevanceCursor(encodeCursor(postCursorScope(query), ['2026-01-02T03:04:05.006Z', 'B']), query)).toThrow(
      InvalidCursorError,
    );
  });
});
