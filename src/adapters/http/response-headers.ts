import type { secureHeaders } from 'hono/secure-headers';
import { API_ROOT } from './contract.js';

/**
 * The security headers of every answer: Hono's `secureHeaders` defaults, tightened for a JSON API
 * (nothing may be framed, loaded or run from an answer). Written out once instead of run as a
 * middleware, because that middleware rebuilds each answer to add them; a test keeps this list
 * equal to what `secureHeaders` produces with the same options.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'origin-agent-cluster': '?1',
  'referrer-policy': 'no-referrer',
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
  'x-content-type-options': 'nosniff',
  'x-dns-prefetch-control': 'off',
  'x-download-options': 'noopen',
  'x-frame-options': 'DENY',
  'x-permitted-cross-domain-policies': 'none',
  'x-xss-protection': '0',
});

/** The options `SECURITY_HEADERS` stands for, as `secureHeaders(options)` would take them. */
export const SECURITY_HEADER_OPTIONS: NonNullable<Parameters<typeof secureHeaders>[0]> = {
  contentSecurityPolicy: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] },
  xFrameOptions: 'DENY',
  strictTransportSecurity: 'max-age=31536000; includeSubDomains',
};

const AUTH_ROOT = `${API_ROOT}/auth/`;
/** Where the public Content API lives (the contract's `content` tag). */
export const CONTENT_ROOT = `${API_ROOT}/content/`;
// Answers differ by Origin (CORS), so caches must keep them apart; and by Accept-Encoding
// (compression.ts compresses them for clients that accept it).
const AUTH_HEADERS = Object.freeze({ ...SECURITY_HEADERS, 'cache-control': 'no-store', vary: 'Origin, Accept-Encoding' });
const API_HEADERS = Object.freeze({ ...SECURITY_HEADERS, 'cache-control': 'private, no-cache', vary: 'Origin, Accept-Encoding' });
const OTHER_HEADERS = Object.freeze({ ...SECURITY_HEADERS, vary: 'Origin, Accept-Encoding' });
// Public and the same for every origin, so no `Vary: Origin`: any page may read them (CORS `*`,
// no credentials) and embed them (CORP cross-origin). Success answers set their own
// Cache-Control; errors are not stored.
const CONTENT_HEADERS = Object.freeze({
  ...SECURITY_HEADERS,
  'cross-origin-resource-policy': 'cross-origin',
  'access-control-allow-origin': '*',
  'access-control-expose-headers': 'ETag, Retry-After',
  'cache-control': 'no-store',
  vary: 'Accept-Encoding',
});

/** Where the preview links answer (getContentPreview). */
const PREVIEW_ROOT = `${CONTENT_ROOT}preview/`;
// A preview's answers, its errors too, are never indexed, and are an HTML page or JSON by Accept.
const PREVIEW_HEADERS = Object.freeze({ ...CONTENT_HEADERS, 'x-robots-tag': 'noindex', vary: 'Accept, Accept-Encoding' });

/**
 * The headers every answer at `path` carries unless it sets its own: the security headers, the
 * cache policy (tokens are never stored by caches; other API answers are private and
 * revalidated with their ETags; content answers are public, see CONTENT_HEADERS; a preview's
 * never stored nor indexed, see PREVIEW_HEADERS) and Vary.
 */
export function baseHeaders(path: string): Readonly<Record<string, string>> {
  if (path.startsWith(PREVIEW_ROOT)) return PREVIEW_HEADERS;
  if (path.startsWith(CONTENT_ROOT)) return CONTENT_HEADERS;
  if (path.startsWith(AUTH_ROOT)) return AUTH_HEADERS;
  if (path.startsWith(`${API_ROOT}/`)) return API_HEADERS;
  return OTHER_HEADERS;
}

/** Takes `name` (lowercase) out of the Vary of `headers`; no Vary is left when it was the only one. */
export function withoutVaryOn(headers: Record<string, string>, name: string): void {
  const rest = (headers.vary ?? '').split(/\s*,\s*/).filter((field) => field !== '' && field.toLowerCase() !== name);
  if (rest.length === 0) delete headers.vary;
  else headers.vary = rest.join(', ');
}

/** What `respond` made an answer of. */
export interface Responded {
  body: string | Uint8Array | null;
  headers: Record<string, string>;
}

/**
 * Answers built with every header in place, which the app's outer middleware leaves alone, and
 * what they were made of: compression.ts reads an answer's body and headers here rather than
 * through the Fetch API (which would build a Headers object for every answer), and rebuilds it
 * from them. So an answer made by `respond` is final: headers changed on it later would be lost.
 */
export const RESPONDED = new WeakMap<Response, Responded>();

/**
 * An answer from a body and a plain header object (names lowercased), which becomes the answer's
 * own. The Node adapter writes such an answer straight to the socket, without building a Fetch
 * `Headers` or a body stream.
 *
 * A body's `content-length` is set here rather than left to the Node adapter, which counts the
 * body it writes: Hono answers HEAD with the GET's answer without its body, so only a length in
 * the headers reaches a HEAD (RFC 9110 §9.3.2). An answer without a body (304, 204) gets none.
 */
export function respond(body: string | Uint8Array | null, status: number, headers: Record<string, string>): Response {
  if (body !== null) headers['content-length'] = String(Buffer.byteLength(body));
  const response = new Response(body, { status, headers });
  RESPONDED.set(response, { body, headers });
  return response;
}
