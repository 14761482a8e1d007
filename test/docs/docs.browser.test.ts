/**
 * The docs page in a real browser: Debian's Chromium, driven by playwright-core (no browser is
 * downloaded). Skipped with a message when no Chromium is installed; under CI=true a missing
 * browser fails (`.ci/run` installs it).
 */
import { mkdirSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { serveApp } from '../../src/adapters/http/node-server.js';
import { createMemoryStore } from '../../src/adapters/memory/store.js';
import { BUNDLE_FILE } from '../../src/paths.js';
import { chromiumPath, launchChromium } from '../support/chromium.js';
import { testServer } from '../support/http.js';

const executablePath = chromiumPath('docs.browser.test.ts');
const OUTPUT = new URL('../../test-results/docs/', import.meta.url);

/** Every operationId of the bundle. */
/**
 * What the page lists: every path operation by its operationId, and every webhook (the signed
 * event a subscriber receives), which has none, as Swagger UI names it: its method then its name.
 */
function operationIds(): string[] {
  type Operations = Record<string, Record<string, { operationId?: string }>>;
  const bundle = JSON.parse(readFileSync(BUNDLE_FILE, 'utf8')) as { paths: Operations; webhooks?: Operations };
  const webhooks = Object.entries(bundle.webhooks ?? {}).flatMap(([name, item]) =>
    Object.entries(item).map(([method, operation]) => operation.operationId ?? `${method}${name}`),
  );
  return Object.values(bundle.paths)
    .flatMap((item) => Object.values(item))
    .map((operation) => operation.operationId)
    .filter((id): id is string => typeof id === 'string')
    .concat(webhooks)
    .sort();
}

describe.skipIf(!executablePath)('the docs page in headless Chromium', () => {
  let browser: Browser;
  let base: string;
  let close: () => void;

  beforeAll(async () => {
    const { app } = await testServer({ store: createMemoryStore() });
    const server = serveApp(app.fetch, { hostname: '127.0.0.1', port: 0 });
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    close = () => server.close();
    browser = await launchChromium(executablePath!);
  });

  afterAll(async () => {
    await browser?.close();
    close?.();
  });

  it('shows every operation and webhook of the contract, loads nothing from elsewhere and logs no error', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 2400 } });
    const errors: string[] = [];
    const foreign: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(`console: ${message.text()}`);
    });
    page.on('pageerror', (error) => errors.push(`page: ${error.message}`));
    page.on('requestfailed', (request) => errors.push(`request failed: ${request.url()} (${request.failure()?.errorText})`));
    page.on('request', (request) => {
      if (!request.url().startsWith(base) && !request.url().startsWith('data:')) foreign.push(request.url());
    });
    page.on('response', (response) => {
      if (response.status() >= 400) errors.push(`HTTP ${response.status()}: ${response.url()}`);
    });

    await page.goto(`${base}/api/v1/docs`, { waitUntil: 'networkidle' });
    const expected = operationIds();
    await page
      .locator('.opblock-summary-operation-id')
      .nth(expected.length - 1)
      .waitFor({ timeout: 15_000 });
    const shown = (await page.locator('.opblock-summary-operation-id').allTextContents()).map((t) => t.trim()).sort();

    mkdirSync(OUTPUT, { recursive: true });
    await page.screenshot({ path: new URL('docs.png', OUTPUT).pathname, fullPage: true });

    expect(shown).toEqual(expected);
    expect(expected.length).toBeGreaterThanOrEqual(28);
    expect(await page.title()).toBe('MarginCMS API reference');
    expect(await page.locator('.info .title').first().textContent()).toContain('MarginCMS API');
    expect(foreign).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  });
});
