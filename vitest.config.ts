import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // The admin's component tests (admin/src/**/*.test.tsx) say `@vitest-environment jsdom` each.
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'admin/src/**/*.test.tsx'],
    // Contract suites (*.contract.ts) are not collected alone: each adapter's test file runs them.
    exclude: ['**/node_modules/**', '**/*.contract.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
