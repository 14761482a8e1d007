import { createHash } from 'node:crypto';
import type { StoredResponse } from '../../domain/index.js';

/**
 * The key an `Idempotency-Key` header names. The IETF draft defines the header as a structured
 * field string (`"8e03978e-…"`), which many clients send quoted; others send the bare key. Both
 * name the same key: a quoted string is unwrapped (`\"` and `\\` unescaped), anything else is
 * the key as sent.
 */
export function idempotencyKeyOf(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const quoted = /^"((?:[\x20-\x21\x23-\x5b\x5d-\x7e]|\\["\\])+)"$/.exec(header);
  return quoted ? quoted[1]!.replace(/\\(["\\])/g, '$1') : header;
}

/** JSON with object keys sorted at every level, so equal bodies give equal text. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** What identifies an idempotent request: method, path and canonical body, hashed. */
export function requestFingerprint(method: string, path: string, body: unknown): string {
  return createHash('sha256')
    .update(`${method.toUpperCase()} ${path}\n${canonicalJson(body)}`)
    .digest('hex');
}

/** A replay rebuilt from the stored first answer, marked `Idempotent-Replayed`. */
export function fromStored(response: StoredResponse): { body: unknown; headers: Record<string, string> } {
  return { body: JSON.parse(response.body) as unknown, headers: { ...response.headers, 'Idempotent-Replayed': 'true' } };
}
