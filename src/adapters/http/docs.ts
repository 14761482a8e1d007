import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Context, Hono } from 'hono';
import { API_ROOT } from './contract.js';
import { ifNoneMatchHas } from './content/conditional.js';
import { respond, SECURITY_HEADERS } from './response-headers.js';

/** Where the docs page lives, and the contract beside it. */
const DOCS_PATH = `${API_ROOT}/docs`;
const BUNDLE_PATH = `${API_ROOT}/openapi.json`;

/**
 * The page may run only its own scripts, from this server, and talk only to this server (the
 * "Try it out" requests); Swagger UI sets inline styles and draws icons from data: URIs. Every
 * other answer keeps `default-src 'none'`.
 */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** The Swagger UI files the page loads, read once from the `swagger-ui-dist` package. */
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

/** Starts Swagger UI on the bundle, with this server first in its list of servers. */
const INIT_SCRIPT = `
fetch(${JSON.stringify(BUNDLE_PATH)})
  .then((response) => response.json())
  .then((spec) => {
    spec.servers = [{ url: location.origin + ${JSON.stringify(API_ROOT)}, description: 'This server' }, ...(spec.servers || [])];
    window.ui = SwaggerUIBundle({
      spec,
      dom_id: '#docs',
      deepLinking: true,
      docExpansion: 'list',
      defaultModelsExpandDepth: 0,
      displayRequestDuration: true,
      displayOperationId: true,
      persistAuthorization: false,
      tryItOutEnabled: false,
    });
  });
`;

function page(version: string): string {
  const asset = (name: string) => `${DOCS_PATH}/${name}?v=${version}`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>MarginCMS API reference</title>
<link rel="icon" type="image/png" href="${asset('favicon-32x32.png')}">
<link rel="stylesheet" href="${asset('swagger-ui.css')}">
</head>
<body>
<div id="docs"></div>
<script src="${asset('swagger-ui-bundle.js')}"></script>
<script src="${asset('init.js')}"></script>
</body>
</html>
`;
}

/** An answer of the docs (and the app's not-found answer, for a file it does not have). */
type DocsAnswer = (c: Context) => Response | Promise<Response>;

/**
 * Serves the interactive API reference at `/api/v1/docs` (Swagger UI, every file from this
 * server: nothing from a CDN) and the bundled contract at `/api/v1/openapi.json`. Neither is an
 * operation of the contract: they describe it.
 */
export function mountDocs(
  app: Hono<never>,
  bundleText: string,
  { guard, notFound }: { guard: (answer: DocsAnswer) => DocsAnswer; notFound: DocsAnswer },
): void {
  const require = createRequire(import.meta.url);
  const root = dirname(require.resolve('swagger-ui-dist/package.json'));
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
  // Read on the first request for them: most servers never serve the page.
  let files: Map<string, { body: Buffer; type: string }> | null = null;
  const loadFiles = () => {
    files ??= new Map([
      ...Object.entries(ASSETS).map(([name, type]) => [name, { body: readFileSync(join(root, name)), type }] as const),
      ['init.js', { body: Buffer.from(INIT_SCRIPT), type: 'text/javascript; charset=utf-8' }] as const,
    ]);
    return files;
  };

  const html = page(version);
  const bundleTag = `"${createHash('sha256').update(bundleText).digest('base64url').slice(0, 22)}"`;
  // Its bytes, the same object every time: compressed once per coding (compression.ts caches by
  // the object), not once a request: 415 KB of brotli on the thread pool for any client asking.
  const bundleBytes = new TextEncoder().encode(bundleText);
  const headers = (extra: Record<string, string>) => ({ ...SECURITY_HEADERS, vary: 'Origin, Accept-Encoding', ...extra });

  app.get(
    DOCS_PATH,
    guard(() =>
      respond(
        html,
        200,
        headers({ 'content-type': 'text/html; charset=utf-8', 'content-security-policy': DOCS_CSP, 'cache-control': 'no-cache' }),
      ),
    ),
  );
  app.get(
    `${DOCS_PATH}/:file`,
    guard((c) => {
      const file = loadFiles().get(c.req.param('file') ?? '');
      if (!file) return notFound(c);
      // The same bytes every time: compressed once per coding (compression.ts).
      return respond(file.body, 200, headers({ 'content-type': file.type, 'cache-control': 'public, max-age=86400' }));
    }),
  );
  app.get(
    BUNDLE_PATH,
    guard((c) => {
      const ifNoneMatch = c.req.header('if-none-match');
      if (ifNoneMatch !== undefined && ifNoneMatchHas(ifNoneMatch, bundleTag))
        return respond(null, 304, headers({ etag: bundleTag, 'cache-control': 'no-cache' }));
      return respond(bundleBytes, 200, headers({ 'content-type': 'application/json', etag: bundleTag, 'cache-control': 'no-cache' }));
    }),
  );
}
