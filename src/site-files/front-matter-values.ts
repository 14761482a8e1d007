/**
 * The values of a front matter read by what their keys mean (a date, text, tags, a mapping, a
 * status, a post id), for the MarginCMS post file and the generators' conventions alike. A value
 * that is not what its key asks for throws a `FrontMatterError` naming the key.
 */
import { isUlid, type PostStatus } from '../domain/index.js';

/** A front-matter value that does not say what its key asks for; the file is skipped with its message. */
export class FrontMatterError extends Error {}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ]+(\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?\s*(Z|z|[+-]\d{2}:?\d{2})?)?$/;
const MONTH_DAY_YEAR = /^([A-Za-z]{3})[a-z]*\.? (\d{1,2}),? (\d{4})$/;

/** An instant from a front-matter value, or null for an absent one. */
export function dateOf(key: string, value: unknown): Date | null {
  if (value === undefined || value === null || value === '') return null;
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw new FrontMatterError(`${key} is not a date`);
    return new Date(value.getTime());
  }
  if (typeof value !== 'string') throw new FrontMatterError(`${key} is not a date: ${JSON.stringify(value)}`);
  const text = value.trim();
  const full = DATE_TIME.exec(text);
  const spoken = full ? null : MONTH_DAY_YEAR.exec(text);
  const fields = full
    ? full.slice(1, 7).map((part) => Number(part ?? 0))
    : spoken
      ? [Number(spoken[3]), MONTHS.indexOf(spoken[1]!.toLowerCase()) + 1, Number(spoken[2]), 0, 0, 0]
      : null;
  if (fields === null) throw new FrontMatterError(`${key} is not a date: ${JSON.stringify(value)}`);
  const [year, month, day, hour, minute, second] = fields as [number, number, number, number, number, number];
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth || hour > 23 || minute > 59 || second > 59) {
    throw new FrontMatterError(`${key} is not a date: ${JSON.stringify(value)}`);
  }
  const milliseconds = full?.[7] ? Math.floor(Number(`0${full[7]}`) * 1000) : 0;
  const zone = full?.[8]?.toUpperCase() ?? 'Z';
  const offsetMinutes = zone === 'Z' ? 0 : (zone.startsWith('-') ? -1 : 1) * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(-2)));
  return new Date(Date.UTC(year, month - 1, day, hour, minute, second, milliseconds) - offsetMinutes * 60_000);
}

/** Text from a scalar (a number or a boolean as written), or `fallback` for an absent one. */
export function text(key: string, value: unknown, fallback: string): string {
  if (value === undefined || value === null) return fallback;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw new FrontMatterError(`${key} is not text`);
}

/** A list of tags: a list, or one string split at commas (or, with `words`, at spaces too). */
export function tagsOf(value: unknown, words: boolean, key = 'tags'): string[] {
  if (value === undefined || value === null) return [];
  if (typeof value === 'string') return value.split(words ? /[\s,]+/ : /\s*,\s*/).filter((tag) => tag !== '');
  if (Array.isArray(value)) return value.map((tag) => text(key, tag, ''));
  throw new FrontMatterError(`${key} is not a list`);
}

export function mapping(key: string, value: unknown): Record<string, unknown> {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value) || value instanceof Date) throw new FrontMatterError(`${key} is not a mapping`);
  return value as Record<string, unknown>;
}

export function statusOf(key: string, value: unknown): PostStatus {
  if (value === 'draft' || value === 'published' || value === 'archived') return value;
  throw new FrontMatterError(`${key} is not draft, published or archived: ${JSON.stringify(value)}`);
}

export function idOf(key: string, value: unknown): string {
  if (typeof value !== 'string' || !isUlid(value)) throw new FrontMatterError(`${key} is not a post id (a ULID): ${JSON.stringify(value)}`);
  return value;
}
