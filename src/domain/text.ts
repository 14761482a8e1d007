import type { ValidationIssue } from './errors.js';

/**
 * Text every store keeps exactly as sent: PostgreSQL refuses U+0000, and an unpaired UTF-16
 * surrogate (a JSON `"\ud800"`) reaches it as U+FFFD, so the stored text would differ from the
 * text sent. Every text a client writes, and every text a cursor carries, must pass.
 */
export function isStorableText(value: string): boolean {
  return !value.includes('\u0000') && value.isWellFormed();
}

export const UNSTORABLE_TEXT_MESSAGE = 'must not contain the NUL character (U+0000) or an unpaired surrogate';

/** Control characters (Unicode Cc: U+0000–U+001F, U+007F–U+009F). */
export function hasControlCharacter(value: string): boolean {
  return /\p{Cc}/u.test(value);
}

/**
 * An issue for every field (or list entry) holding text that cannot be stored as sent; pointers
 * are relative to the object the fields belong to (`/title`, `/tags/3`).
 */
export function unstorableTextIssues(fields: Record<string, string | readonly string[] | undefined>): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const [name, value] of Object.entries(fields)) {
    if (typeof value === 'string') {
      if (!isStorableText(value)) issues.push({ pointer: `/${name}`, message: UNSTORABLE_TEXT_MESSAGE });
    } else if (value !== undefined) {
      value.forEach((entry, index) => {
        if (!isStorableText(entry)) issues.push({ pointer: `/${name}/${index}`, message: UNSTORABLE_TEXT_MESSAGE });
      });
    }
  }
  return issues;
}

const utf8 = new TextEncoder();

/**
 * Orders strings by their UTF-8 bytes (which is code point order), as PostgreSQL's `COLLATE "C"`
 * does: the order every store's lists and every cursor's canonical form use.
 */
export function compareUtf8(a: string, b: string): number {
  if (a === b) return 0;
  // UTF-16 code units order as code points do (so as UTF-8 bytes do) except a surrogate, which
  // stands for a code point above U+FFFF and so comes after U+E000-U+FFFF; compared unit by unit
  // without encoding (lists and cursor scopes compare on every request), the bytes decide only
  // where a surrogate differs (an unpaired one encodes as U+FFFD).
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i += 1) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    if (x < 0xd800 && y < 0xd800) return x - y;
    if (isSurrogate(x) || isSurrogate(y)) return compareEncoded(a, b);
    return x - y;
  }
  return a.length - b.length;
}

const isSurrogate = (unit: number) => unit >= 0xd800 && unit <= 0xdfff;

function compareEncoded(a: string, b: string): number {
  const ea = utf8.encode(a);
  const eb = utf8.encode(b);
  const n = Math.min(ea.length, eb.length);
  for (let i = 0; i < n; i += 1) {
    const d = ea[i]! - eb[i]!;
    if (d !== 0) return d;
  }
  return ea.length - eb.length;
}

/** Whether `text` is ASCII only (every code unit below 0x80): the word rules' shorter road. */
export function isAscii(text: string): boolean {
  return !NON_ASCII.test(text);
}
const NON_ASCII = /[\u0080-\uffff]/;
