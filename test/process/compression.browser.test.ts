/**
 * The admin's first load in Chromium from the built server (`node dist/main.js`, embedded
 * PGlite): what its scripts weigh on the wire, as the browser's own resource timing counts it
 * (`encodedBodySize`, the bytes received, against `decodedBodySize`) (#41 item 9).
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumPath, launchChromium } from '../support/chromium.js';
import { startBuiltEmbedded } from '../support/server-process.js';

const executablePath = chromiumPath(import.meta.filename);

interface Loaded {
  name: string;
  encodedBodySize: number;
  decodedBodySize: number;
}

describe.skipIf(executablePath === null)("the admin's first load in Chromium", () => {
  let browser: Browser;
  let origin: string;
  let stop: (() => void) | undefined;

  beforeAll(async () => {
    const server = await startBuiltEmbedded({ email: 'owner@example.com', password: 'correct horse battery staple 42!' });
    origin = server.origin;
    stop = server.stop;
    browser = await launchChromium(executablePath!);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    stop?.();
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
