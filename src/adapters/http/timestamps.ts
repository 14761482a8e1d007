import { ValidationError } from '../../domain/index.js';
import { fieldMessage } from './field-messages.js';

/**
 * An RFC 3339 `date-time` (§5.6) as the request validator accepts it (ajv-formats' `date-time` in
 * full mode): `T`, `t` or a space between date and time, any fraction of a second, and a zone of
 * `Z`, `z` or an offset (`+01:00`; ajv also takes `+0100` and `+01`).
 */
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt\s](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:[Zz]|([+-])(\d{2})(?::?(\d{2}))?)$/;

function daysIn(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/**
 * The instant a request's date-time names, in UTC to the millisecond, or null when the text is not
 * one. Digits past the millisecond are dropped (a `Date` holds no more). The offset is applied, so
 * `2030-01-01T01:00:00+01:00` is `2030-01-01T00:00:00.000Z`. A leap second (`23:59:60` in UTC,
 * which ajv lets through) is the first instant of the next day, as PostgreSQL reads it; `new Date`
 * would make it an invalid date.
 */
export function instantOf(text: string): Date | null {
  const match = DATE_TIME.exec(text);
  if (match === null) return null;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const sign = match[8] === '-' ? -1 : 1;
  const offsetHours = Number(match[9] ?? 0);
  const offsetMinutes = Number(match[10] ?? 0);
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return null;
  if (hour > 23 || minute > 59 || offsetHours > 23 || offsetMinutes > 59 || second > 60) return null;
  const offset = sign * (offsetHours * 60 + offsetMinutes);
  if (second === 60) {
    // A leap second is only ever the last second of a UTC day.
    const utcMinutes = (((hour * 60 + minute - offset) % 1440) + 1440) % 1440;
    if (utcMinutes !== 23 * 60 + 59) return null;
  }
  const milliseconds = Number((match[7] ?? '').padEnd(3, '0').slice(0, 3));
  const instant = new Date(0);
  // setUTCFullYear, not Date.UTC, which reads the years 0 to 99 as 1900 to 1999.
  instant.setUTCFullYear(year, month - 1, day);
  instant.setUTCHours(hour, minute - offset, second, milliseconds);
  return instant;
}

/**
 * `instantOf` for a field of a validated body: the validator has checked its format, so a null
 * here would be a disagreement between the two, answered as the 422 the validator would give.
 * @throws ValidationError at `pointer`
 */
export function requestInstant(pointer: string, text: string): Date {
  const instant = instantOf(text);
  if (instant === null)
    throw new ValidationError([{ pointer, message: fieldMessage({ keyword: 'format', params: { format: 'date-time' } }) }]);
  return instant;
}
