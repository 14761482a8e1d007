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
// JavaScript is weighed gzipped: past ADMIN_JS_BUDGET the build fails.
import { readFileSync, rmSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
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
const gzipped = scripts.reduce((sum, file) => sum + gzipSync(readFileSync(`${root}dist/admin/${file}`), { level: 9 }).length, 0);
console.log(
  `wrote dist/admin/ (first-load JS ${(gzipped / 1024).toFixed(1)} KB gzipped in ${scripts.length} file(s); budget ${ADMIN_JS_BUDGET / 1024} KB)`,
);
if (gzipped > ADMIN_JS_BUDGET) {
  console.error(`The admin's first-load JS is over its budget of ${ADMIN_JS_BUDGET / 1024} KB gzipped (#30): split a route with lazy().`);
  process.exit(1);
}
