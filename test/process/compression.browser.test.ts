/**
 * The admin's first load in Chromium from the built server (`node dist/main.js`, embedded
 * PGlite): what its scripts weigh on the wire, as the browser's own resource timing counts it
 * (`encodedBodySize`, the bytes received, against `decodedBodySize`) (#41 item 9).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumPath, launchChromium } from '../support/chromium.js';
import { freePort } from '../support/ports.js';
import { firstHealthz, spawnServer, stopServers } from '../support/server-process.js';

const executablePath = chromiumPath(import.meta.filename);

interface Loaded {
  name: string;
  encodedBodySize: number;
  decodedBodySize: number;
}

describe.skipIf(executablePath === null)("the admin's first load in Chromium", () => {
  let browser: Browser;
  let origin: string;
  let dataDir: string;

  beforeAll(async () => {
    const port = await freePort();
    dataDir = mkdtempSync(join(tmpdir(), 'margin-compression-browser-'));
    const server = spawnServer(
      {
        DATA_DIR: dataDir,
        HOST: '127.0.0.1',
        PORT: String(port),
        ADMIN_EMAIL: 'owner@example.com',
        ADMIN_PASSWORD: 'correct horse battery staple 42!',
        HOUSEKEEPING_INTERVAL_SECONDS: '0',
        PUBLISH_INTERVAL_SECONDS: '0',
        WEBHOOK_POLL_MS: '0',
      },
      { built: true },
    );
    origin = `http://127.0.0.1:${port}`;
    await firstHealthz(server, `${origin}/api/v1`, 90);
    browser = await launchChromium(executablePath!);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    stopServers();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('receives its scripts in brotli: under a third of their bytes', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const coding: Record<string, string | undefined> = {};
    page.on('response', (response) => {
      if (response.url().endsWith('.js')) coding[response.url()] = response.headers()['content-encoding'];
    });
    await page.goto(`${origin}/admin/`);
    await page.getByLabel('Email').waitFor();
    const scripts = await page.evaluate<Loaded[]>(`performance.getEntriesByType('resource')
      .filter((entry) => entry.name.endsWith('.js'))
      .map(({ name, encodedBodySize, decodedBodySize }) => ({ name, encodedBodySize, decodedBodySize }))`);
    await context.close();
    const encoded = scripts.reduce((sum, script) => sum + script.encodedBodySize, 0);
    const decoded = scripts.reduce((sum, script) => sum + script.decodedBodySize, 0);
    console.log(`first load: ${scripts.length} scripts, ${encoded} bytes on the wire for ${decoded} bytes of JavaScript`);
    expect(scripts.length).toBeGreaterThan(0);
    for (const script of scripts) expect(coding[script.name], script.name).toBe('br');
    expect(encoded).toBeLessThan(decoded / 3);
  });
});
