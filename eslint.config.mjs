// ESLint (typescript-eslint) for src/, test/, scripts/, bench/ and the admin app (admin/, with the
// rules of React hooks), with the dependency rule of docs/ARCHITECTURE.md: domain ← app ← adapters
// ← composition/main. Run by `make lint`.
import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

/** What only adapters and the composition root may import: the outer layers, and libraries. */
const OUTER_LAYERS = ['**/adapters/**', '**/composition*', '**/main*', '**/config*', '**/client/**'];
const LIBRARIES = ['node:*', 'hono*', 'drizzle-orm*', 'postgres', 'jose', 'yaml'];

/** Imports a layer may not make, as `no-restricted-imports` patterns over relative specifiers. */
const layer = (files, forbidden, message) => ({
  files,
  ignores: ['**/*.test.ts'],
  rules: {
    'no-restricted-imports': ['error', { patterns: [{ group: forbidden, message }] }],
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
  layer(
    ['src/domain/**/*.ts'],
    ['**/app/**', ...OUTER_LAYERS, ...LIBRARIES],
    'The domain depends on nothing: no use case, adapter, framework or Node module (docs/ARCHITECTURE.md).',
  ),
  layer(
    ['src/app/**/*.ts'],
    [...OUTER_LAYERS, ...LIBRARIES],
    'Use cases depend on domain ports only; adapters implement them (docs/ARCHITECTURE.md).',
  ),
  layer(
    ['src/adapters/**/*.ts'],
    ['**/composition*', '**/main*', '**/bootstrap*'],
    'Adapters do not reach the composition root (docs/ARCHITECTURE.md).',
  ),
);
