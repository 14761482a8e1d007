/**
 * `make docs`: the static API reference (scripts/build-docs.mjs) loads nothing from another
 * origin. Built once into a temporary folder; the browser half runs in Debian's Chromium when it
 * is installed (see test/support/chromium.ts).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../contract/bundle.js';
import { chromiumPath, launchChromium } from '../support/chromium.js';

let dir: string;
let page: string;
let html: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'margin-docs-'));
  page = join(dir, 'api-reference.html');
  execFileSync('node', ['scripts/build-docs.mjs', page], { cwd: repoRoot, stdio: 'pipe' });
  html = readFileSync(page, 'utf8');
}, 60_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The sources each directive of the page's Content-Security-Policy allows. */
function pagePolicy(): Map<string, string[]> {
  const content = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html)?.[1];
  expect(content, 'the page declares a Content-Security-Policy').toBeDefined();
  return new Map(
    content!
      .split(/;\s*/)
      .map((directive) => directive.split(/\s+/) as [string, ...string[]])
      .map(([name, ...sources]) => [name, sources]),
  );
}

describe('the static API reference (make docs)', () => {
  it('names no CDN (Redoc shows its logo from cdn.redoc.ly unless told otherwise)', () => {
    expect(html).not.toMatch(/https?:\/\/cdn\./);
  });

  it('declares a policy that lets it load nothing but itself and the data: and blob: URLs it makes', () => {
    const policy = pagePolicy();
    expect(policy.get('default-src')).toEqual(["'none'"]);
    for (const [name, sources] of policy) {
      for (const source of sources)
        expect(["'none'", "'unsafe-inline'", "'unsafe-eval'", 'data:', 'blob:'], `${name} ${source}`).toContain(source);
    }
  });

  const executablePath = chromiumPath('static-page.test.ts');
  it.skipIf(!executablePath)(
    'renders in Chromium without a request to another origin or an error',
    async () => {
      const browser = await launchChromium(executablePath!);
      try {
        const tab = await browser.newPage();
        const foreign: string[] = [];
        const errors: string[] = [];
        tab.on('request', (request) => {
          if (!/^(file|data|blob):/.test(request.url())) foreign.push(request.url());
        });
        tab.on('pageerror', (error) => errors.push(error.message));
        tab.on('console', (message) => {
          if (message.type() === 'error') errors.push(message.text());
        });
        // Runs in the page (a string: this project's types have no DOM).
        await tab.addInitScript({
          content: `window.violations = []; document.addEventListener('securitypolicyviolation', (e) => window.violations.push(e.violatedDirective + ' ' + e.blockedURI));`,
        });
        await tab.goto(pathToFileURL(page).href, { waitUntil: 'load' });
        await tab.getByText('MarginCMS API (1.0.0)').first().waitFor({ timeout: 15_000 });
        await tab.waitForLoadState('networkidle');
        // What the policy refused: a request Redoc needs that the policy would hide.
        expect(await tab.evaluate('window.violations')).toEqual([]);
        expect(await tab.title()).toBe('MarginCMS API reference');
        expect(foreign).toEqual([]);
        expect(errors).toEqual([]);
      } finally {
        await browser.close();
      }
    },
    60_000,
  );
});
