import { defineConfig } from 'drizzle-kit';

/**
 * drizzle-kit reads this for `generate` (no database needed). Migrations are applied by
 * `scripts/migrate.ts` (`make migrate`), which uses the same folder and migrations table.
 */
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/adapters/drizzle/schema/schema.ts',
  out: './drizzle',
  strict: true,
  verbose: true,
  migrations: { schema: 'drizzle', table: '__drizzle_migrations' },
  dbCredentials: { url: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' },
});
