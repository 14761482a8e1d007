import { promisify } from 'node:util';
import { brotliCompress, brotliCompressSync, constants, gzip, gzipSync, type BrotliOptions, type ZlibOptions } from 'node:zlib';
import { RESPONDED, type Responded } from './response-headers.js';

/** A content coding this server sends; `identity` is none. */
type Coding = 'br' | 'gzip' | 'identity';

/** The codings in the server's order of preference, when the client likes them as much. */
const PREFERRED: readonly Coding[] = ['br', 'gzip', 'identity'];

/**
 * The coding to send for an Accept-Encoding header (RFC 9110 §12.5.3): the one of br, gzip and
 * identity with the highest q-value, br first on a tie. A coding not named takes `*`'s q-value;
 * identity is acceptable unless refused (`identity;q=0`, or `*;q=0` without naming it), and is the
 * answer when the header is absent or refuses everything (the server then sends it anyway rather
 * than a 406). `x-gzip` is gzip.
 */
export function negotiateCoding(header: string | null | undefined): Coding {
  if (header === null || header === undefined || header === '') return 'identity';
  const named = new Map<string, number>();
  for (const element of header.split(',')) {
    const [token = '', ...parameters] = element.split(';');
    const lowered = token.trim().toLowerCase();
    if (lowered === '') continue;
    const name = lowered === 'x-gzip' ? 'gzip' : lowered;
    let q = 1;
    for (const parameter of parameters) {
      const [key, value = ''] = parameter.split('=');
      if (key?.trim().toLowerCase() === 'q') q = Number(value.trim());
    }
    if (!(q >= 0 && q <= 1)) continue;
    named.set(name, Math.max(named.get(name) ?? 0, q));
  }
  const star = named.get('*');
  // Identity unnamed is as acceptable as the least acceptable coding named: last on a tie.
  const identityQ = named.get('identity') ?? star ?? Math.min(1, ...[...named.values()].filter((q) => q > 0));
  let best: Coding = 'identity';
  let bestQ = 0;
  for (const coding of PREFERRED) {
    const q = coding === 'identity' ? identityQ : (named.get(coding) ?? star ?? 0);
    if (q > bestQ) {
      best = coding;
      bestQ = q;
    }
  }
  return best;
}

/** Answers smaller than this are sent as they are: a few bytes saved would not pay for the work. */
const COMPRESS_MIN_BYTES = 1024;
/** Bodies up to this size are compressed on the event loop; larger ones on the thread pool. */
const SYNC_MAX_BYTES = 64 * 1024;

/** Text answers: JSON and problem+json, XML (Atom, RSS, sitemaps, SVG), HTML, scripts, styles, plain text. */
const COMPRESSIBLE_TYPE = /^(?:text\/(?!event-stream)|application\/(?:json|xml|javascript)\b|[a-z]+\/[\w.+-]*\+(?:json|xml)\b)/i;

/** Whether an answer of `contentType` is worth compressing. */
export function isCompressible(contentType: string | null | undefined): boolean {
  return contentType !== null && contentType !== undefined && COMPRESSIBLE_TYPE.test(contentType);
}

/**
 * Brotli at quality 5 and gzip at level 6: on an 8 KB page of the Content API's list, 62 µs and
 * 45 µs of CPU for 650 and 790 bytes (bench/NOTES.md); the build's own files get the best of both
 * once (scripts/build.mjs).
 */
function brotliOptions(bytes: number): BrotliOptions {
  return {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: 5,
      // A window as large as the body and no larger (brotli's default is 4 MiB): the same bytes
      // out, and an encoder of kilobytes, not megabytes, allocated and freed on every answer,
      // which cost as much again as compressing an 8 KB page (bench/NOTES.md).
      [constants.BROTLI_PARAM_LGWIN]: Math.min(
        22, // brotli's default window, for bodies of 4 MiB and more
        Math.max(constants.BROTLI_MIN_WINDOW_BITS, Math.ceil(Math.log2(bytes + 1))),
      ),
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
      [constants.BROTLI_PARAM_SIZE_HINT]: bytes,
    },
  };
}
const GZIP_OPTIONS: ZlibOptions = { level: 6 };
const brotliAsync = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/** `body` in `coding` (br or gzip). */
function encode(body: Buffer, coding: 'br' | 'gzip'): Buffer | Promise<Buffer> {
  const sync = body.byteLength <= SYNC_MAX_BYTES;
  if (coding === 'br')
    return sync ? brotliCompressSync(body, brotliOptions(body.byteLength)) : brotliAsync(body, brotliOptions(body.byteLength));
  return sync ? gzipSync(body, GZIP_OPTIONS) : gzipAsync(body, GZIP_OPTIONS);
}

/**
 * The same bytes object answered again (a file read once, the API reference's scripts) is
 * compressed once per coding.
 */
const encodedFiles = new WeakMap<Uint8Array, Partial<Record<'br' | 'gzip', Buffer | Promise<Buffer>>>>();

function encodeBody(body: string | Uint8Array, coding: 'br' | 'gzip'): Buffer | Promise<Buffer> {
  if (typeof body === 'string') return encode(Buffer.from(body), coding);
  let encoded = encodedFiles.get(body);
  if (encoded === undefined) encodedFiles.set(body, (encoded = {}));
  return (encoded[coding] ??= encode(Buffer.from(body.buffer, body.byteOffset, body.byteLength), coding));
}

/** `"abc"` → `"abc-br"`, `W/"abc"` → `W/"abc-br"`. */
export function codedEtag(etag: string, coding: 'br' | 'gzip'): string {
  return etag.endsWith('"') ? `${etag.slice(0, -1)}-${coding}"` : etag;
}

/**
 * If-None-Match as the app compares it: each tag with `coding` appended is listed again without
 * it, after the tags as sent (which still name the representations without a coding).
 */
function uncodedIfNoneMatch(header: string, coding: 'br' | 'gzip'): string | null {
  const suffix = `-${coding}"`;
  const uncoded = header
    .split(',')
    .map((tag) => tag.trim())
    .filter((tag) => tag.endsWith(suffix))
    .map((tag) => `${tag.slice(0, -suffix.length)}"`);
  return uncoded.length === 0 ? null : `${header}, ${uncoded.join(', ')}`;
}

/** A copy of a bodyless request (GET or HEAD) with another If-None-Match. */
function withIfNoneMatch(request: Request, value: string): Request {
  const headers = new Headers(request.headers);
  headers.set('if-none-match', value);
  return new Request(request.url, { method: request.method, headers });
}

/** An app's `fetch`, with or without the Node adapter's bindings beside the request. */
type Fetch<B extends unknown[]> = (request: Request, ...rest: B) => Response | Promise<Response>;

/**
 * `fetch` with its answers compressed on the fly for clients that accept it (`negotiateCoding`):
 * a body of a compressible type (`isCompressible`) of at least `COMPRESS_MIN_BYTES`, answered
 * to anything but HEAD with a status that has a body, not already encoded and not
 * `Cache-Control: no-transform`, is sent in br or gzip with its Content-Length, and its ETag gets
 * the coding appended (`codedEtag`: each representation has its own strong tag, RFC 9110
 * §8.8.3). For If-None-Match, a tag with the request's coding appended matches the app's tag
 * without it; a 304 then names the tag the client sent (the representation it holds). Answers
 * made by `respond` are read from the record it keeps (no Fetch Headers built); others through the
 * Fetch API, those with a Content-Length only: a streamed body (an export's zip) stays streamed
 * and as it is. `Vary: Accept-Encoding` is the answers' own (`baseHeaders`): an answer too small
 * to compress says it too, as the same URL may grow. A client that accepts neither coding costs
 * one header lookup.
 */
export function compressAnswers<B extends unknown[]>(fetch: Fetch<B>): Fetch<B> {
  return (request, ...rest) => {
    const coding = negotiateCoding(request.headers.get('accept-encoding'));
    if (coding === 'identity') return fetch(request, ...rest);
    const method = request.method;
    const ifNoneMatch = method === 'GET' || method === 'HEAD' ? request.headers.get('if-none-match') : null;
    const uncoded = ifNoneMatch === null ? null : uncodedIfNoneMatch(ifNoneMatch, coding);
    const answer = fetch(uncoded === null ? request : withIfNoneMatch(request, uncoded), ...rest);
    const finish = (response: Response) => {
      if (response.status === 304) return uncoded === null ? response : notModifiedIn(response, coding, ifNoneMatch!);
      if (method === 'HEAD' || response.status < 200 || response.status === 204 || response.status === 206) return response;
      return compressed(response, coding);
    };
    return answer instanceof Promise ? answer.then(finish) : finish(answer);
  };
}

/** A 304 whose ETag names the coded representation when that is the tag the client sent. */
function notModifiedIn(response: Response, coding: 'br' | 'gzip', ifNoneMatch: string): Response {
  const etag = response.headers.get('etag');
  if (etag === null) return response;
  const coded = codedEtag(etag, coding);
  if (!ifNoneMatch.split(',').some((tag) => tag.trim().replace(/^W\//, '') === coded.replace(/^W\//, ''))) return response;
  const headers = new Headers(response.headers);
  headers.set('etag', coded);
  return new Response(null, { status: 304, headers });
}

/** What the compression step needs to know of an answer. */
interface Sendable {
  body: string | Uint8Array;
  headers: Record<string, string>;
}

/** `response` in `coding` when it qualifies (see `compressAnswers`), else itself. */
function compressed(response: Response, coding: 'br' | 'gzip'): Response | Promise<Response> {
  const record: Responded | undefined = RESPONDED.get(response);
  if (record !== undefined) {
    const { body, headers } = record;
    if (body === null || !qualifies(headers['content-type'], headers['content-encoding'], headers['cache-control'])) return response;
    if (Buffer.byteLength(body) < COMPRESS_MIN_BYTES) return response;
    return encoded(response.status, { body, headers }, coding);
  }
  const { headers } = response;
  const length = Number(headers.get('content-length') ?? NaN);
  if (!(length >= COMPRESS_MIN_BYTES) || response.body === null) return response;
  if (!qualifies(headers.get('content-type'), headers.get('content-encoding'), headers.get('cache-control'))) return response;
  return response
    .arrayBuffer()
    .then((bytes) => encoded(response.status, { body: new Uint8Array(bytes), headers: Object.fromEntries(headers) }, coding));
}

function qualifies(type: string | null | undefined, encoding: string | null | undefined, cacheControl: string | null | undefined): boolean {
  return isCompressible(type) && (encoding ?? 'identity') === 'identity' && !/(?:^|,)\s*no-transform\s*(?:,|$)/i.test(cacheControl ?? '');
}

/** The answer with `body` in `coding`, its length, coding and ETag set accordingly. */
function encoded(status: number, { body, headers }: Sendable, coding: 'br' | 'gzip'): Response | Promise<Response> {
  const build = (bytes: Buffer) => {
    const coded: Record<string, string> = { ...headers, 'content-encoding': coding, 'content-length': String(bytes.byteLength) };
    if (coded.etag !== undefined) coded.etag = codedEtag(coded.etag, coding);
    const vary = coded.vary ?? '';
    if (!/(?:^|,)\s*accept-encoding\s*(?:,|$)/i.test(vary)) coded.vary = vary === '' ? 'Accept-Encoding' : `${vary}, Accept-Encoding`;
    return new Response(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), { status, headers: coded });
  };
  const bytes = encodeBody(body, coding);
  return bytes instanceof Promise ? bytes.then(build) : build(bytes);
}
