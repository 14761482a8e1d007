import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import type { Context, Hono } from 'hono';
import { codedEtag, isCompressible, negotiateCoding } from './compression.js';
import { ifNoneMatchHas } from './content/conditional.js';
import { HttpProblem, problemResponse } from './problem.js';
import { respond, SECURITY_HEADERS } from './response-headers.js';

/** Where the admin app lives. */
const ADMIN_PATH = '/admin';

/**
 * The admin app runs only the scripts and styles of its own build, talks only to this server and
 * cannot be framed (#30). No 'unsafe-inline' anywhere: the build has no inline script or style.
 * Images come from this server and from `mediaOrigin`, where the media library's files are
 * (PUBLIC_API_URL: their URLs are absolute, and that origin is another one than the page's when
 * the admin is opened under another name, 127.0.0.1 for localhost). No `blob:`: the admin shows
 * an image only once uploaded. The page itself (index.html) also allows the `<style>` elements
 * that carry its nonce: see `pageCspOf`.
 */
export function adminCspOf(mediaOrigin?: string): string {
  return [
    "default-src 'self'",
    "connect-src 'self'",
    `img-src 'self' data:${mediaOrigin === undefined ? '' : ` ${mediaOrigin}`}`,
    "style-src 'self'",
    "script-src 'self'",
    "frame-ancestors 'none'",
    "base-uri 'self'",
    "form-action 'self'",
  ].join('; ');
}

/** What the build's index.html says where each answer puts its nonce (`<meta property="csp-nonce" nonce="…">`). */
export const NONCE_PLACEHOLDER = 'MARGIN_CSP_NONCE';

/**
 * The CSP of one answer of index.html: the admin's CSP with `style-src 'self' 'nonce-…'`. The editor's
 * CodeMirror writes its styles (computed per theme and extension) into a `<style>` element, which
 * `style-src 'self'` refuses; it sets the nonce the page's meta carries on it (its `cspNonce`
 * facet). Scripts stay 'self' only, so a script injected into the page cannot run to read the
 * nonce, and one injected `<style>` does not know it: it is fresh for every answer.
 */
export function pageCspOf(nonce: string, mediaOrigin?: string): string {
  return adminCspOf(mediaOrigin).replace("style-src 'self'", `style-src 'self' 'nonce-${nonce}'`);
}

/** Vite's hashed output: a file's name changes with its bytes, so it may be cached for good. */
const ASSETS_FOLDER = 'assets/';
const IMMUTABLE = 'public, max-age=31536000, immutable';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.webp': 'image/webp',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

/** One way a file is sent: as it is, or in a coding the build wrote beside it. */
interface Variant {
  body: Uint8Array<ArrayBuffer>;
  headers: Record<string, string>;
}

/** A file of the build: as it is, and as the build compressed it (`name.br`, `name.gz`), when it did. */
interface BuiltFile {
  identity: Variant;
  br?: Variant;
  gzip?: Variant;
}

/** The extension of the file the build writes beside another in each coding (scripts/build.mjs). */
const CODED_FILES = { br: '.br', gzip: '.gz' } as const;

/** Every file below `dir`, by its path relative to it with `/` separators. */
function listFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)).split(sep).join('/'));
}

function readBytes(path: string): Uint8Array<ArrayBuffer> {
  const bytes = readFileSync(path);
  const body = new Uint8Array(bytes.byteLength);
  body.set(bytes);
  return body;
}

/**
 * The files of the build under their names, each with the compressed copies the build wrote
 * beside it; those copies are no files of their own. Each is sent with `headers` and its type and
 * length, hashed assets cached for good, other files revalidated with an ETag per coding.
 */
function readBuild(dir: string, headers: (extra: Record<string, string>) => Record<string, string>): Map<string, BuiltFile> {
  const names = new Set(listFiles(dir));
  const files = new Map<string, BuiltFile>();
  for (const name of names) {
    if (Object.values(CODED_FILES).some((extension) => name.endsWith(extension) && names.has(name.slice(0, -extension.length)))) continue;
    const body = readBytes(join(dir, name));
    const type = TYPES[extname(name)] ?? 'application/octet-stream';
    const etag = name.startsWith(ASSETS_FOLDER) ? undefined : etagOf(body);
    const variant = (bytes: Uint8Array<ArrayBuffer>, coding: 'br' | 'gzip' | null): Variant => {
      const cache: Record<string, string> =
        etag === undefined
          ? { 'cache-control': IMMUTABLE }
          : { 'cache-control': 'no-cache', etag: coding ? codedEtag(etag, coding) : etag };
      const coded: Record<string, string> = coding ? { 'content-encoding': coding } : {};
      const extra = { 'content-type': type, 'content-length': String(bytes.byteLength), ...cache, ...coded };
      return { body: bytes, headers: headers(isCompressible(type) ? { ...extra, vary: 'Accept-Encoding' } : extra) };
    };
    const file: BuiltFile = { identity: variant(body, null) };
    for (const coding of ['br', 'gzip'] as const) {
      const codedName = name + CODED_FILES[coding];
      if (names.has(codedName)) file[coding] = variant(readBytes(join(dir, codedName)), coding);
    }
    files.set(name, file);
  }
  return files;
}

/**
 * Serves the admin app's build (`dist/admin/`, written by `make build`) at `/admin/`: the files
 * are read once, when the server starts, and only those files are ever answered (a path is looked
 * up in that table, never joined to a folder). Hashed assets are cached for a year; index.html is
 * revalidated on every load (`no-cache`, with an ETag) so a new build is picked up at once. A file
 * the build also wrote in brotli and gzip is sent in the one the client prefers (`negotiateCoding`),
 * with `Vary: Accept-Encoding` and its ETag naming the coding (`codedEtag`). A path
 * under /admin/ that names no file and does not look like one (no extension) is a route of the
 * app: it gets index.html, and the app's router shows the page. A missing file is a 404 problem.
 * `mediaOrigin` is where the media library's files are served from (see `adminCspOf`).
 */
export function mountAdmin(app: Hono<never>, dir: string, mediaOrigin?: string): void {
  const csp = adminCspOf(mediaOrigin);
  const headers = (extra: Record<string, string>) => ({ ...SECURITY_HEADERS, 'content-security-policy': csp, ...extra });
  const files = readBuild(dir, headers);
  const index = files.get('index.html');
  if (!index) throw new Error(`The admin build at ${dir} has no index.html: run \`make build\`.`);
  const page = Buffer.from(index.identity.body).toString('utf8');
  /**
   * index.html with a fresh nonce in its meta and its CSP. Never stored (no-store, no ETag): a
   * copy revalidated by a 304 would keep its old nonce under the new answer's CSP.
   */
  const answerPage = (): Response => {
    const nonce = randomBytes(16).toString('base64');
    const body = page.replaceAll(NONCE_PLACEHOLDER, nonce);
    return respond(body, 200, {
      ...headers({ 'content-type': TYPES['.html']!, 'cache-control': 'no-store', vary: 'Accept-Encoding' }),
      'content-security-policy': pageCspOf(nonce, mediaOrigin),
    });
  };

  /**
   * A file in the coding the client prefers of those the build wrote (index.html is compressed
   * as it is answered, by compression.ts). A 304 names the file without a coding: compression.ts
   * names the coded one when that is what the client holds.
   */
  const answer = (c: Context, file: BuiltFile): Response => {
    const { etag } = file.identity.headers;
    const ifNoneMatch = c.req.header('if-none-match');
    if (etag !== undefined && ifNoneMatch !== undefined && ifNoneMatchHas(ifNoneMatch, etag)) {
      const { 'content-length': _length, ...rest } = file.identity.headers;
      return respond(null, 304, rest);
    }
    const coding = negotiateCoding(c.req.header('accept-encoding'));
    const variant = (coding === 'identity' ? undefined : file[coding]) ?? file.identity;
    return respond(variant.body, 200, { ...variant.headers });
  };

  // One handler for both: Hono's router matches /admin/* at /admin, and /admin at /admin/.
  const serve = (c: Context): Response => {
    if (c.req.path === ADMIN_PATH) return respond(null, 308, headers({ location: `${ADMIN_PATH}/`, 'cache-control': 'no-cache' }));
    const name = c.req.path.slice(ADMIN_PATH.length + 1);
    if (name === 'index.html') return answerPage();
    const file = files.get(name);
    if (file) return answer(c, file);
    const last = name.slice(name.lastIndexOf('/') + 1);
    if (name.startsWith(ASSETS_FOLDER) || last.includes('.')) {
      return problemResponse(new HttpProblem(404, 'not-found', `The admin app has no file ${c.req.path}.`), c.req.path);
    }
    return answerPage();
  };
  app.get(ADMIN_PATH, serve);
  app.get(`${ADMIN_PATH}/*`, serve);
}

function etagOf(body: Uint8Array): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
}
