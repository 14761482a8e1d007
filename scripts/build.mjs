// `make build`: src/main.ts and everything it imports bundled by esbuild into dist/main.js, run as
// `node dist/main.js` with no TypeScript loader. One file loads in a fraction of the time Node
// takes to resolve and read the hundreds of modules behind it. What is imported dynamically (the
// embedded PGlite store) becomes a chunk beside it, loaded only when used. Packages that
// load files of their own at run time stay outside: PGlite (its WebAssembly and data files) and
// argon2 (a native addon).
import { rmSync } from 'node:fs';
import { build } from 'esbuild';

const root = new URL('..', import.meta.url).pathname;
rmSync(`${root}dist`, { recursive: true, force: true });
const result = await build({
  absWorkingDir: root,
  // The HTML renderer's worker thread is a file of its own, beside main.js (html-renderer.ts starts it).
  entryPoints: ['src/main.ts', 'src/adapters/http/content/markdown-worker.ts'],
  outdir: 'dist',
  entryNames: '[name]',
  // Next to main.js, not below it: src/paths.ts finds the root one folder up from whichever file holds it.
  chunkNames: '[name]-[hash]',
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
  // 1.8 → 1.1 MiB, all ASCII (comments with `×` or `…` made Node decode the file on its slow
  // path), which took 35 ms off the start to the first /healthz answer.
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: 'warning',
});
const bytes = Object.values(result.metafile.outputs).reduce((sum, output) => sum + output.bytes, 0);
console.log(`wrote dist/main.js (${(bytes / 1024 / 1024).toFixed(1)} MiB with its source map)`);
