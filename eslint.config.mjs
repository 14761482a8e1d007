// ESLint (typescript-eslint) for src/, test/, scripts/, bench/ and the admin app (admin/, with the
// rules of React hooks), with the dependency rule of docs/ARCHITECTURE.md as allow-lists: what each
// layer of src/ may import, of the code and of the libraries. Run by `make lint` (with madge, for cycles).
import js from '@eslint/js';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import importX from 'eslint-plugin-import-x';
import reactHooks from 'eslint-plugin-react-hooks';
import { fileURLToPath } from 'node:url';
import tseslint from 'typescript-eslint';

const ROOT = fileURLToPath(new URL('.', import.meta.url));

/** Leaf modules at the root of src/ that import nothing of src/: any layer outside domain and app may use them. */
const KERNEL = { log: 'src/log.ts', paths: 'src/paths.ts', databaseUrl: 'src/database-url.ts', maskUrl: 'src/mask-url.ts' };

/** The export manifest's format (site-files), a leaf the CLI may import as well as the server. */
const MANIFEST = 'src/site-files/manifest.ts';

/** Test code inside src/ that only tests import: the contract suites and the Drizzle store's own cases (checked apart). */
const SUITES = ['src/adapters/contract/**/*.ts', 'src/adapters/drizzle/store-cases.ts'];

const escape = (name) => name.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/**
 * One layer of src/ and what it may import: `code`, the files and folders of this repository
 * (resolved, so `../` cannot hide anything; node_modules is left to `packages`), and `packages`,
 * the libraries by name (`node:` for Node's own modules, a name ending in `/` for a scope). Anything
 * else is an error, so a new library or a new arrow between layers is a decision made here.
 */
const layer = ({ files, ignores = [], code, packages, why }) => ({
  files,
  ignores: ['**/*.test.ts', ...ignores],
  rules: {
    'import-x/no-restricted-paths': [
      'error',
      {
        basePath: ROOT,
        zones: [
          {
            target: files,
            from: ['**'],
            // Globs all (the rule wants them alike): a folder and all in it, a module as .ts or .js.
            except: [...code, 'node_modules'].map(
              (path) => `${ROOT}${path.endsWith('.ts') ? path.replace(/ts$/, '{ts,js}') : `${path}/**`}`,
            ),
            message: why,
          },
        ],
      },
    ],
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          {
            // Any bare specifier (not `./` or `../`) that is not one of `packages`.
            regex: `^(?!\\.|(?:${packages.map((name) => (name.endsWith('/') || name === 'node:' ? escape(name) : `${escape(name)}(?:/|$)`)).join('|') || '(?!)'}))`,
            message: `${why} Libraries allowed here: ${packages.join(', ') || 'none'}.`,
          },
        ],
      },
    ],
  },
});

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'generated/', 'coverage/', '.data/', 'bench/results/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { console: 'readonly', process: 'readonly', Buffer: 'readonly', URL: 'readonly', fetch: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
      'no-undef': 'off', // TypeScript checks names
    },
  },
  {
    // Tests assert on JSON bodies whose shape the test itself checks.
    files: ['**/*.test.ts', 'test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  { ...reactHooks.configs.flat.recommended, files: ['admin/**/*.{ts,tsx}'] },
  {
    // The admin talks to the API only through src/client (#30): never openapi-fetch or fetch itself.
    files: ['admin/src/**/*.{ts,tsx}'],
    ignores: ['**/*.test.tsx'],
    rules: {
      'no-restricted-imports': ['error', { paths: [{ name: 'openapi-fetch', message: 'Use src/client (admin/src/lib/api.ts).' }] }],
      'no-restricted-globals': ['error', { name: 'fetch', message: 'Use src/client (admin/src/lib/api.ts).' }],
    },
  },
  {
    // The layer rule below resolves imports as TypeScript does (`./x.js` is `./x.ts`), so that a
    // relative path cannot hide where it leads. Import cycles are found by madge in `make lint`
    // (import-x/no-cycle skips type-only imports, and both loops of #29 ran through types).
    files: ['src/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: 'tsconfig.json' })],
    },
  },
  layer({
    files: ['src/domain/**/*.ts'],
    code: ['src/domain'],
    packages: [],
    why: 'The domain depends on nothing: no use case, adapter, framework or Node module (docs/ARCHITECTURE.md).',
  }),
  layer({
    files: ['src/app/**/*.ts'],
    code: ['src/domain', 'src/app'],
    packages: [],
    why: 'Use cases depend on the domain and its ports only; adapters implement them (docs/ARCHITECTURE.md).',
  }),
  layer({
    files: ['src/adapters/memory/**/*.ts'],
    code: ['src/domain', 'src/adapters/memory'],
    packages: [],
    why: 'The memory store implements domain ports and imports no other adapter (docs/ARCHITECTURE.md).',
  }),
  layer({
    files: ['src/adapters/drizzle/**/*.ts'],
    ignores: SUITES,
    code: ['src/domain', 'src/adapters/drizzle', KERNEL.paths, KERNEL.databaseUrl],
    packages: ['node:', '@electric-sql/pglite', 'drizzle-orm', 'postgres'],
    why: 'The Drizzle store implements domain ports; it imports no other adapter and no config (docs/ARCHITECTURE.md).',
  }),
  layer({
    files: ['src/adapters/crypto/**/*.ts'],
    code: ['src/domain', 'src/adapters/crypto'],
    packages: ['node:', '@node-rs/argon2', '@zxcvbn-ts/', 'jose'],
    why: 'The crypto adapters implement domain ports; they import no other adapter and no config (docs/ARCHITECTURE.md).',
  }),
  layer({
    files: ['src/adapters/system/**/*.ts'],
    code: ['src/domain', 'src/adapters/system'],
    packages: ['node:', 'ulid'],
    why: 'The system adapters implement domain ports; they import no other adapter and no config (docs/ARCHITECTURE.md).',
  }),
  layer({
    files: ['src/adapters/webhooks/**/*.ts'],
    code: ['src/domain', 'src/adapters/webhooks'],
    packages: ['node:', 'ipaddr.js'],
    why: 'The webhook transport implements a domain port; it imports no other adapter and no config (docs/ARCHITECTURE.md).',
  }),
  layer({
    files: ['src/adapters/images/**/*.ts'],
    code: ['src/domain', 'src/adapters/images'],
    packages: ['node:', 'sharp', 'file-type'],
    why: 'The image processor implements a domain port; it imports no other adapter and no config (docs/ARCHITECTURE.md).',
  }),
  layer({
    files: ['src/adapters/http/**/*.ts'],
    code: ['src/domain', 'src/app', 'src/adapters/http', 'src/site-files', 'generated', KERNEL.log, KERNEL.paths],
    packages: [
      'node:',
      'hono',
      '@hono/node-server',
      'openapi-backend',
      'ajv',
      'ajv-formats',
      'lru-cache',
      'markdown-it',
      'sanitize-html',
      'feed',
      'xmlbuilder2',
      'diff',
      '@fastify/busboy',
    ],
    why: 'The HTTP adapter drives the use cases and carries the site files; it imports no other adapter and no config (docs/ARCHITECTURE.md).',
  }),
  layer({
    files: ['src/adapters/metrics/**/*.ts'],
    code: ['src/domain', 'src/app', 'src/adapters/metrics'],
    packages: ['node:', 'prom-client'],
    why: 'The metrics adapter declares what it reads of the others; it imports no other adapter and no config (docs/ARCHITECTURE.md).',
  }),
  layer({
    files: SUITES,
    code: ['src/domain', 'src/adapters/contract'],
    packages: ['vitest'],
    why: 'The contract suites test domain ports, whatever store implements them (docs/ARCHITECTURE.md).',
  }),
  layer({
    files: ['src/client/**/*.ts'],
    code: ['src/client', 'generated'],
    packages: ['openapi-fetch'],
    why: 'The client runs in browsers and Node on the contract alone: no server code, no Node module (docs/ARCHITECTURE.md).',
  }),
  layer({
    files: ['src/cli/**/*.ts'],
    code: ['src/cli', 'src/client', MANIFEST],
    packages: ['node:', 'env-paths', 'fflate'],
    why: 'The CLI talks to the server only through src/client, and checks an export by its manifest (docs/ARCHITECTURE.md).',
  }),
  layer({
    files: ['src/site-files/**/*.ts'],
    code: ['src/domain', 'src/app', 'src/site-files'],
    packages: ['node:', 'yaml', 'smol-toml', 'fflate', 'yauzl'],
    why: "The site files are formats (post files, the manifest, the generators' conventions, the zip checks): no HTTP, no store, no config (docs/ARCHITECTURE.md).",
  }),
  layer({
    files: [MANIFEST],
    code: [],
    packages: ['node:'],
    why: "The manifest imports nothing of src/, so the CLI may check an export with it without the server's code.",
  }),
  layer({
    files: Object.values(KERNEL),
    code: [],
    packages: ['node:', 'pino'],
    why: 'The root leaf modules (log, paths, database-url, mask-url) import nothing of src/, so every layer may use them.',
  }),
);
