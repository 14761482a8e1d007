import { fullFormats } from 'ajv-formats/dist/formats.js';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../domain/index.js';
import { instantOf, requestInstant } from './timestamps.js';

const ajvDateTime = (fullFormats['date-time'] as { validate: (text: string) => boolean }).validate;

describe('instantOf', () => {
  it.each([
    ['2030-01-01T00:00:00Z', '2030-01-01T00:00:00.000Z'],
    ['2030-01-01T01:00:00+01:00', '2030-01-01T00:00:00.000Z'],
    ['2029-12-31T19:30:00-04:30', '2030-01-01T00:00:00.000Z'],
    ['2030-01-01T00:00:00.5Z', '2030-01-01T00:00:00.500Z'],
    ['2030-01-01T00:00:00.123Z', '2030-01-01T00:00:00.123Z'],
    ['2030-01-01T00:00:00.123999999Z', '2030-01-01T00:00:00.123Z'],
    ['2030-01-01T00:00:00-00:00', '2030-01-01T00:00:00.000Z'],
    ['2030-01-01t00:00:00z', '2030-01-01T00:00:00.000Z'],
    ['2030-01-01 00:00:00Z', '2030-01-01T00:00:00.000Z'],
    ['2030-01-01T00:30:00+0030', '2030-01-01T00:00:00.000Z'],
    ['2030-01-01T02:00:00+02', '2030-01-01T00:00:00.000Z'],
    ['2030-03-01T00:00:00+23:59', '2030-02-28T00:01:00.000Z'],
    ['2028-02-29T12:00:00Z', '2028-02-29T12:00:00.000Z'],
    ['2016-12-31T23:59:60Z', '2017-01-01T00:00:00.000Z'],
    ['2017-01-01T00:59:60.5+01:00', '2017-01-01T00:00:00.500Z'],
    ['0001-01-01T00:00:00Z', '0001-01-01T00:00:00.000Z'],
    ['0099-06-01T00:00:00Z', '0099-06-01T00:00:00.000Z'],
  ])('reads %s as %s, in UTC to the millisecond', (text, iso) => {
    expect(ajvDateTime(text)).toBe(true);
    expect(instantOf(text)?.toISOString()).toBe(iso);
  });

  it.each([
    '2030-01-01T00:00:00', // no zone
    '2030-01-01',
    '2030-02-29T00:00:00Z', // not a leap year
    '2030-13-01T00:00:00Z',
    '2030-01-01T24:00:00Z',
    '2030-01-01T00:60:00Z',
    '2030-01-01T12:00:60Z', // a leap second only ends a UTC day
    '2030-01-01T00:00:00+24:00',
    '2030-01-01T00:00:00.Z',
    '2030-01-01T00:00Z',
    '2030-1-01T00:00:00Z',
    ' 2030-01-01T00:00:00Z',
    'tomorrow',
  ])('refuses %s, as the request validator does', (text) => {
    expect(ajvDateTime(text)).toBe(false);
    expect(instantOf(text)).toBeNull();
  });

  it('throws a ValidationError at the pointer for text that is not a date-time (the 422 the validator gives)', () => {
    expect(() => requestInstant('/publishAt', '2030-01-01T25:00:00Z')).toThrow(ValidationError);
    expect(requestInstant('/publishAt', '2030-01-01T01:00:00+01:00')).toStrictEqual(new Date('2030-01-01T00:00:00.000Z'));
  });
});
