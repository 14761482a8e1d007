/**
 * The admin's end-to-end harness: the production Vite build of admin/ (built once per test file,
 * as `make build` builds it), served at /admin/ by the whole application on a real HTTP socket,
 * on the embedded store (PGlite) and on PostgreSQL, driven by Debian's Chromium through
 * playwright-core. `describeAdmin(title, body)` runs `body` once per store; every page a test opens
 * through `site.page()` is watched: a console error, an uncaught exception, an HTTP answer ≥ 400 the
 * test did not expect or a request to another origin fails the test in `site.expectClean(page)`.
 *
 * Without Chromium the file is skipped with a message; under CI=true that is a failure.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import axe from 'axe-core';
import type { Client } from 'openapi-fetch';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { build } from 'vite';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import type { paths } from '../../generated/api.js';
import { serveApp } from '../../src/adapters/http/node-server.js';
import { chromiumPath, launchChromium } from '../support/chromium.js';
import { ADMIN, testServer, type TestServerOptions } from '../support/http.js';
import { usePglite, usePostgres } from '../support/stores.js';

/** Where screenshots go (test-results/ is ignored by git). */
export const SCREENSHOTS = new URL('../../test-results/admin/', import.meta.url);

/** Builds admin/ for production into a temporary folder; the caller removes it. */
async function buildAdmin(): Promise<string> {
  const outDir = mkdtempSync(join(tmpdir(), 'margin-admin-build-'));
  // The production build, as `make build` makes it (vitest sets NODE_ENV=test, which Vite would keep).
  const nodeEnv = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  await build({
    configFile: fileURLToPath(new URL('../../admin/vite.config.ts', import.meta.url)),
    logLevel: 'warn',
    build: { outDir, emptyOutDir: true },
  }).finally(() => {
    process.env.NODE_ENV = nodeEnv;
  });
  return outDir;
}

/** The serious and critical violations axe-core finds in the page as it is now. */
export async function seriousViolations(page: Page): Promise<string[]> {
  // Evaluated through the DevTools protocol, which the page's CSP does not govern.
  await page.evaluate(axe.source);
  // A string: this file is type-checked without the DOM's types, and runs in the page.
  return page.evaluate<string[]>(`axe.run(document, { resultTypes: ['violations'] }).then(({ violations }) => violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => v.id + ' (' + v.impact + '): ' + v.help + ' at ' + v.nodes.map((n) => n.target.join(' ')).join(', ')))`);
}

/**
 * What goes wrong in `page` from now on: console errors and warnings, uncaught exceptions, failed
 * requests (bar GETs the page aborted itself), HTTP answers ≥ 400 and requests off `base`'s origin (bar the media files below
 * `mediaFiles`, when given), bar the lines `expected` matches.
 */
export function watchPage(page: Page, base: string, expected: RegExp[] = [], mediaFiles?: string): string[] {
  const errors: string[] = [];
  const keep = (text: string) => {
    if (!expected.some((pattern) => pattern.test(text))) errors.push(text);
  };
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') keep(`console ${message.type()}: ${message.text()}`);
  });
  page.on('pageerror', (error) => errors.push(`page: ${error.message}`));
  page.on('requestfailed', (request) => {
    const reason = request.failure()?.errorText;
    // A read the app cancelled itself (TanStack Query aborts a query nobody watches any more, as
    // when the editor leaves while /tags is asked) is no failure; an aborted write would be.
    if (reason === 'net::ERR_ABORTED' && request.method() === 'GET') return;
    keep(`request failed: ${request.url()} (${reason})`);
  });
  page.on('response', (response) => {
    if (response.status() >= 400) keep(`HTTP ${response.status()}: ${response.request().method()} ${response.url()}`);
  });
  page.on('request', (request) => {
    const url = request.url();
    if (!url.startsWith(`${base}/`) && !(mediaFiles !== undefined && url.startsWith(mediaFiles))) errors.push(`foreign request: ${url}`);
  });
  return errors;
}

type StoreName = 'embedded' | 'postgres';

export interface AdminSite {
  /** Which store this block runs on. */
  store: StoreName;
  /** The server's origin, e.g. http://127.0.0.1:41234 (the admin is at `${base()}/admin/`). */
  base(): string;
  /**
   * Its public API URL (PUBLIC_API_URL), the same server named http://localhost:<port>: the media
   * files' URLs start there, on another origin than the admin's, as when an admin opens
   * http://127.0.0.1:8080/admin/ of a server that calls itself localhost.
   */
  apiUrl(): string;
  /** The API as the seeded admin, to arrange data and to check what the browser saved. */
  api(): Client<paths>;
  /** The whole test server (its store, clock, services), for what the API cannot arrange. */
  server(): Awaited<ReturnType<typeof testServer>>;
  /**
   * A page in a browser context of its own (1440 × 900 unless `options` says otherwise), watched
   * from its first request; answers matching `expected` (e.g. /HTTP 412: PATCH /) are not errors.
   */
  page(options?: BrowserContextOptions & { expected?: RegExp[] }): Promise<Page>;
  /** Signs the seeded admin in on `page` and waits for the posts list. */
  signIn(page: Page): Promise<void>;
  /** Fails unless `page` logged no error, threw nothing, got no unexpected ≥ 400 and asked no other origin. */
  expectClean(page: Page): void;
  /** Saves a screenshot under test-results/admin/ as `${name}-${store}.png`. */
  screenshot(page: Page, name: string, fullPage?: boolean): Promise<void>;
}

/**
 * Registers the hooks of one site (admin build, server, browser) on `store` in the enclosing
 * block. `options` passes through to the test server (e.g. a FixedClock).
 */
function useAdminSite(store: StoreName, options: Omit<TestServerOptions, 'store' | 'adminDir'> = {}): AdminSite {
  const stores = store === 'embedded' ? usePglite() : usePostgres();
  const watched = new Map<Page, string[]>();
  let browser: Browser | undefined;
  let outDir: string | undefined;
  let close: (() => void) | undefined;
  let base = '';
  let apiUrl = '';
  let api: Client<paths> | undefined;
  let server: Awaited<ReturnType<typeof testServer>> | undefined;

  beforeAll(async () => {
    outDir = await buildAdmin();
    // The socket first: the server's public URL names its port.
    const http = serveApp((request, bindings) => server!.app.fetch(request, bindings), { hostname: '127.0.0.1', port: 0 });
    await new Promise((resolve) => http.once('listening', resolve));
    const { port } = http.address() as AddressInfo;
    base = `http://127.0.0.1:${port}`;
    apiUrl = `http://localhost:${port}`;
    close = () => http.close();
    server = await testServer({ ...options, content: { apiUrl, ...options.content }, store: await stores.make(), adminDir: outDir });
    api = (await server.authedClient()).client;
    browser = await launchChromium(chromiumPath('admin harness')!);
  });

  afterAll(async () => {
    await browser?.close();
    close?.();
    if (outDir) rmSync(outDir, { recursive: true, force: true });
  });

  return {
    store,
    base: () => base,
    apiUrl: () => apiUrl,
    api: () => {
      if (!api) throw new Error('the site only exists inside the block that called useAdminSite()');
      return api;
    },
    server: () => {
      if (!server) throw new Error('the site only exists inside the block that called useAdminSite()');
      return server;
    },
    async page(options = {}) {
      const { expected = [], ...contextOptions } = options;
      const context = await browser!.newContext({ viewport: { width: 1440, height: 900 }, ...contextOptions });
      const page = await context.newPage();
      watched.set(page, watchPage(page, base, expected, `${apiUrl}/api/v1/content/media/`));
      return page;
    },
    async signIn(page) {
      await page.goto(`${base}/admin/sign-in`);
      await page.getByLabel('Email').fill(ADMIN.email);
      await page.getByLabel('Password').fill(ADMIN.password);
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { level: 1, name: 'Posts' }).waitFor();
    },
    expectClean(page) {
      expect(watched.get(page) ?? ['this page was not opened through site.page()']).toEqual([]);
    },
    async screenshot(page, name, fullPage = false) {
      mkdirSync(SCREENSHOTS, { recursive: true });
      await page.screenshot({ path: new URL(`${name}-${store}.png`, SCREENSHOTS).pathname, fullPage });
    },
  };
}

const executablePath = chromiumPath('the admin end-to-end tests');

/**
 * `body` once on the embedded store and once on PostgreSQL, each with a site of its own. Skipped
 * with a message where no Chromium is installed (a failure under CI=true, as is a missing PostgreSQL).
 */
export function describeAdmin(
  title: string,
  body: (site: AdminSite) => void,
  options: Omit<TestServerOptions, 'store' | 'adminDir'> = {},
): void {
  for (const store of ['embedded', 'postgres'] as const) {
    describe.skipIf(!executablePath)(`${title} [${store}]`, () => {
      body(useAdminSite(store, options));
    });
  }
}

export { ADMIN };
