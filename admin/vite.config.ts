// The admin app's build: `make build` (scripts/build.mjs) writes it to dist/admin/, which the
// server serves at /admin/ (src/adapters/http/admin.ts). `make dev` serves it with hot reload on
// ADMIN_PORT (5173), its `/api` proxied to the Prism mock (ADMIN_API=mock, the default) or to the
// server of `make dev` (ADMIN_API=server).
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin, type ProxyOptions } from 'vite';

/** Where the dev server's `/api` goes, after `ADMIN_API`. */
type AdminApi = 'mock' | 'server';

/**
 * The proxy of `/api`: to the mock on MOCK_PORT, whose paths are the contract's without `/api/v1`,
 * or to the server on PORT. Both run in `make dev` on the loopback address.
 */
function apiProxy(env: NodeJS.ProcessEnv): { api: AdminApi; proxy: ProxyOptions } {
  const api = env.ADMIN_API || 'mock';
  if (api === 'mock') {
    const target = `http://127.0.0.1:${env.MOCK_PORT || '4010'}`;
    return { api, proxy: { target, rewrite: (path) => path.replace(/^\/api\/v1(?=[/?]|$)/, '') } };
  }
  if (api === 'server') return { api, proxy: { target: `http://127.0.0.1:${env.PORT || '8080'}` } };
  throw new Error(`ADMIN_API is ${JSON.stringify(api)}: it must be mock (the default) or server`);
}

/** Says under the dev server's address where its `/api` goes. */
function printApi(api: AdminApi, proxy: ProxyOptions): Plugin {
  const where =
    api === 'mock'
      ? `the Prism mock on ${String(proxy.target)} (ADMIN_API=server for the server)`
      : `the server on ${String(proxy.target)}`;
  return {
    name: 'margin-print-api',
    configureServer(server) {
      const printUrls = server.printUrls.bind(server);
      server.printUrls = () => {
        printUrls();
        server.config.logger.info(`  ➜  /api:    ${where}`);
      };
    },
  };
}

export default defineConfig(({ command }) => {
  const { api, proxy } = command === 'serve' ? apiProxy(process.env) : { api: 'server', proxy: undefined };
  return {
    root: fileURLToPath(new URL('.', import.meta.url)),
    base: '/admin/',
    plugins: [react(), ...(proxy ? [printApi(api, proxy)] : [])],
    // What the development panel says the API is (import.meta.env.DEV only; never read in a build).
    define: { 'import.meta.env.ADMIN_API': JSON.stringify(api) },
    build: {
      outDir: fileURLToPath(new URL('../dist/admin', import.meta.url)),
      emptyOutDir: true,
      // Every browser the admin supports preloads modules itself: no polyfill in the entry chunk.
      modulePreload: { polyfill: false },
      // Nothing inlined as data: URIs but images (the CSP allows img-src data:, not fonts or scripts).
      assetsInlineLimit: 0,
    },
    server: {
      // The loopback address, as the server and the mock of `make dev` listen.
      host: '127.0.0.1',
      port: Number(process.env.ADMIN_PORT || '5173'),
      strictPort: true,
      ...(proxy ? { proxy: { '/api': proxy } } : {}),
    },
  };
});
