// The admin app's build: `make build` (scripts/build.mjs) writes it to dist/admin/, which the
// server serves at /admin/ (src/adapters/http/admin.ts). `npx vite admin` serves it in development,
// with the API proxied to the server of `make dev` on :8080.
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/admin/',
  plugins: [react()],
  build: {
    outDir: fileURLToPath(new URL('../dist/admin', import.meta.url)),
    emptyOutDir: true,
    // Every browser the admin supports preloads modules itself: no polyfill in the entry chunk.
    modulePreload: { polyfill: false },
    // Nothing inlined as data: URIs but images (the CSP allows img-src data:, not fonts or scripts).
    assetsInlineLimit: 0,
  },
  server: { proxy: { '/api': 'http://localhost:8080' } },
});
