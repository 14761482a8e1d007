import { fileURLToPath } from 'node:url';

/**
 * Files the server reads from the repository at run time. They are found from this module, which
 * sits one folder below the root wherever it runs: `src/paths.ts` under tsx and vitest, and inside
 * `dist/main.js`, the bundle `make build` writes.
 */
const ROOT = new URL('..', import.meta.url);

/** The bundled contract, `generated/openapi.json`. */
export const BUNDLE_FILE = fileURLToPath(new URL('generated/openapi.json', ROOT));

/** `drizzle/`: the SQL files drizzle-kit generated and their journal. */
export const MIGRATIONS_FOLDER = fileURLToPath(new URL('drizzle', ROOT));

/** `dist/admin/`: the admin app as `make build` writes it (admin/vite.config.ts). */
export const ADMIN_DIR = fileURLToPath(new URL('dist/admin', ROOT));
