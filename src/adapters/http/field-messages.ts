import type { ErrorObject } from 'ajv';

/**
 * What a schema's `pattern` asks for, in words, for the patterns a person may type against (a
 * slug, a URL, an id pasted in a path). Another pattern is named as it is.
 */
const PATTERN_WORDS: Readonly<Record<string, string>> = {
  '^[a-z0-9]+(?:-[a-z0-9]+)*$': 'may contain only lowercase letters, digits and single hyphens between them',
  '^[Hh][Tt][Tt][Pp][Ss]?://': 'must start with http:// or https://',
  '^[0-9A-HJKMNP-TV-Z]{26}$': 'must be an id of 26 letters and digits (a ULID)',
  '^[a-z2-7]{26}$': 'must be a media id of 26 lowercase letters and digits 2 to 7',
  '^[A-Za-z0-9_-]+$': 'must be a cursor as the API gave it',
  '^(?:current|[1-9][0-9]{0,9})$': 'must be "current" or a version number',
  '^[^\\u0000-\\u001F\\u007F-\\u009F]+$': 'must not contain line breaks or other control characters',
  '^(original|[0-9]{1,5})\\.(jpg|png|webp|avif|gif)$': 'must be "original" or a width, then .jpg, .png, .webp, .avif or .gif',
  '^v1,[A-Za-z0-9+/]{43}=( v1,[A-Za-z0-9+/]{43}=)*$': 'must be one or more v1,<base64 signature> separated by spaces',
  '^[0-9]{1,15}$': 'must be whole seconds in decimal digits',
};

/** What a schema's `format` asks for, in words. */
const FORMAT_WORDS: Readonly<Record<string, string>> = {
  uri: 'must be an absolute URL',
  'date-time': 'must be a date and time with its offset from UTC (RFC 3339, e.g. 2026-05-01T09:00:00Z)',
  date: 'must be a date (YYYY-MM-DD)',
  email: 'must be an email address',
};

const TYPE_WORDS: Readonly<Record<string, string>> = {
  string: 'text',
  number: 'a number',
  integer: 'a whole number',
  boolean: 'true or false',
  array: 'a list',
  object: 'an object',
  null: 'null',
};

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/**
 * One Ajv error in words, as a field error's message says it after the field's name ("must not be
 * empty", "must be at most 200 characters long"): Ajv's own message for a keyword not listed here.
 */
export function fieldMessage(error: Pick<ErrorObject, 'keyword' | 'params' | 'message'>): string {
  const params = error.params as Record<string, unknown>;
  const limit = typeof params.limit === 'number' ? params.limit : NaN;
  switch (error.keyword) {
    case 'minLength':
      return limit === 1 ? 'must not be empty' : `must be at least ${plural(limit, 'character', 'characters')} long`;
    case 'maxLength':
      return `must be at most ${plural(limit, 'character', 'characters')} long`;
    case 'minItems':
      return `must have at least ${plural(limit, 'entry', 'entries')}`;
    case 'maxItems':
      return `must have at most ${plural(limit, 'entry', 'entries')}`;
    case 'minProperties':
      return `must have at least ${plural(limit, 'field', 'fields')}`;
    case 'minimum':
      return `must be at least ${limit}`;
    case 'maximum':
      return `must be at most ${limit}`;
    case 'exclusiveMinimum':
      return `must be more than ${limit}`;
    case 'exclusiveMaximum':
      return `must be less than ${limit}`;
    case 'pattern': {
      const pattern = String(params.pattern);
      return PATTERN_WORDS[pattern] ?? `does not have the form the API expects (${pattern})`;
    }
    case 'format':
      return FORMAT_WORDS[String(params.format)] ?? `must be in the ${String(params.format)} format`;
    case 'type': {
      const types = String(params.type).split(',');
      return `must be ${types.map((type) => TYPE_WORDS[type] ?? type).join(' or ')}`;
    }
    case 'enum':
      return Array.isArray(params.allowedValues)
        ? `must be one of: ${params.allowedValues.map((value) => String(value)).join(', ')}`
        : 'must be one of the allowed values';
    case 'uniqueItems':
      return 'must not list the same entry twice';
    default:
      return error.message ?? 'is invalid';
  }
}
