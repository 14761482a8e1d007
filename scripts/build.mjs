// `make build`: src/main.ts and everything it imports bundled by esbuild into dist/main.js, run as
// `node dist/main.js` with no TypeScript loader. One file loads in a fraction of the time Node
// takes to resolve and read the hundreds of modules behind it. What is imported dynamically (the
// embedded PGlite store) becomes a chunk beside it, loaded only when used. Packages that
// load files of their own at run time stay outside: PGlite (its WebAssembly and data files) and
// argon2 (a native addon). The command-line programs are bundled the same way, by a build of their
// own so that main.js and its chunks stay as they were: the `margin` CLI (dist/margin.js, behind
// bin/margin.mjs) and the `migrate`, `create-user` and `purge` commands, which a production install
// (`npm ci --omit=dev`, no tsx) runs as `node dist/<name>.js`. Then the admin app (admin/, React)
// is built by Vite into dist/admin/, which the server serves at /admin/, and its first-load
// JavaScript is weighed gzipped: past ADMIN_JS_BUDGET the build fails. Each of its text files is
// then written beside itself in brotli and gzip at their best (name.br, name.gz), which the
// server sends to the browsers that accept them (src/adapters/http/admin.ts).
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { build as viteBuild } from 'vite';

const root = new URL('..', import.meta.url).pathname;
rmSync(`${root}dist`, { recursive: true, force: true });
/** What every bundle shares: ESM for Node, everything bundled but the two packages above. */
const common = {
  absWorkingDir: root,
  outdir: 'dist',
  entryNames: '[name]',
  splitting: true,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: true,
  external: ['@electric-sql/pglite', '@node-rs/argon2'],
  // Bundled CommonJS packages still call require() for Node's own modules.
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  metafile: true,
  // Whitespace and syntax only: names stay, so stack traces still read (and dist/*.map maps them).
  // Smaller, and all ASCII (comments with `×` or `…` made Node decode the file on its slow path),
  // which shortens the start to the first /healthz answer (bench/NOTES.md).
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: 'warning',
};
const [result, tools] = await Promise.all([
  build({
    ...common,
    // The HTML renderer's worker thread is a file of its own, beside main.js (html-renderer.ts starts it).
    entryPoints: ['src/main.ts', 'src/adapters/http/content/markdown-worker.ts'],
    // Next to main.js, not below it: src/paths.ts finds the root one folder up from whichever file holds it.
    chunkNames: '[name]-[hash]',
  }),
  build({
    ...common,
    entryPoints: [
      { in: 'src/cli/bin.ts', out: 'margin' },
      { in: 'scripts/migrate.ts', out: 'migrate' },
      { in: 'scripts/create-user.ts', out: 'create-user' },
      { in: 'scripts/purge.ts', out: 'purge' },
    ],
    // Named apart from the server's chunks, which this build must not overwrite.
    chunkNames: 'tools-[name]-[hash]',
  }),
]);
/** The bytes a build wrote, source maps included, in MiB. */
const mib = ({ metafile }) => (Object.values(metafile.outputs).reduce((sum, output) => sum + output.bytes, 0) / 1024 / 1024).toFixed(1);
console.log(`wrote dist/main.js (${mib(result)} MiB with its source map)`);
console.log(`wrote dist/margin.js, dist/migrate.js, dist/create-user.js, dist/purge.js (${mib(tools)} MiB with their source maps)`);

// The admin app. Its first load is the entry script and the modules it preloads, as index.html
// names them; lazily loaded chunks are not counted.
const ADMIN_JS_BUDGET = 200 * 1024;
await viteBuild({ configFile: `${root}admin/vite.config.ts`, logLevel: 'warn' });
const indexHtml = readFileSync(`${root}dist/admin/index.html`, 'utf8');
const scripts = [...indexHtml.matchAll(/<(?:script[^>]*\ssrc|link[^>]*rel="modulepreload"[^>]*\shref)="\/admin\/([^"]+\.js)"/g)].map(
  (m) => m[1],
);
if (scripts.length === 0) throw new Error('dist/admin/index.html loads no script');
const written = precompress(`${root}dist/admin`);
const sizeOf = (file, coding) => written.get(file)?.[coding] ?? readFileSync(`${root}dist/admin/${file}`).length;
const gzipped = scripts.reduce((sum, file) => sum + sizeOf(file, 'gzip'), 0);
const brotli = scripts.reduce((sum, file) => sum + sizeOf(file, 'br'), 0);
console.log(
  `wrote dist/admin/ (first-load JS ${(gzipped / 1024).toFixed(1)} KB gzipped, ${(brotli / 1024).toFixed(1)} KB in brotli, in ${scripts.length} file(s); budget ${ADMIN_JS_BUDGET / 1024} KB gzipped)`,
);
if (gzipped > ADMIN_JS_BUDGET) {
  console.error(`The admin's first-load JS is over its budget of ${ADMIN_JS_BUDGET / 1024} KB gzipped (#30): split a route with lazy().`);
  process.exit(1);
}

/**
 * Writes each text file of `dir` above 1 KiB (what the server would compress on the fly,
 * src/adapters/http/compression.ts) beside itself in brotli at quality 11 and gzip at level 9,
 * each only when smaller than the file; index.html is left out, as the server rewrites it for
 * every answer (its nonce) and compresses it then. Returns the sizes written by file name.
 */
function precompress(dir) {
  const written = new Map();
  const text = /\.(?:js|mjs|css|html|svg|json|map|txt|xml)$/;
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    const path = join(entry.parentPath, entry.name);
    const name = path.slice(dir.length + 1);
    if (!entry.isFile() || !text.test(name) || name === 'index.html') continue;
    const bytes = readFileSync(path);
    if (bytes.length < 1024) continue;
    const coded = {
      br: brotliCompressSync(bytes, {
        params: {
          [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
          [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
          [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
        },
      }),
      gzip: gzipSync(bytes, { level: constants.Z_BEST_COMPRESSION }),
    };
    const sizes = {};
    for (const [coding, extension] of [
      ['br', '.br'],
      ['gzip', '.gz'],
    ]) {
      if (coded[coding].length >= bytes.length) continue;
      writeFileSync(path + extension, coded[coding]);
      sizes[coding] = coded[coding].length;
    }
    written.set(name, sizes);
  }
  return written;
}
