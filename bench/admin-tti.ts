/**
 * `make bench-admin`: how soon the admin's posts page of a 10,000-post site (BENCH_ADMIN_POSTS)
 * is usable, in Debian's Chromium, against the built server (`node dist/main.js` serving the
 * admin build of `make build`) on a scratch PostgreSQL database seeded by SQL.
 *
 * Each of BENCH_ADMIN_RUNS (5) runs opens a fresh browser context at /admin/posts: the app starts,
 * sends it to the sign-in page (the tokens live in memory only, so every load signs in), the
 * runner signs in, and the page marks with `performance.now()` (milliseconds since the
 * navigation started) when the form showed, when the first row of the drafts was in the page and
 * painted, and then how long a click on the "Published" tab takes to mark the tab and to show its
 * rows. Also printed: the API requests made before the first row (no N+1), the time of the list
 * request and of the login (an argon2id check, which a real sign-in pays once, not every load).
 * The figure to read is "navigation → first row" (median); "sign-in answered → first row" is the
 * posts page's own share.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { chromiumPath, launchChromium } from '../test/support/chromium.js';
import { createScratchDatabase, createUser, migrate, type Credentials } from './database.js';
import { envNumber, serverUrl } from './env.js';
import { runMain } from './lifecycle.js';
import { fmt, median, table } from './report.js';
import { seedBySql } from './seed.js';
import { postgresEnv, requireBuiltApi, startServer } from './servers.js';

const POSTS = Math.floor(envNumber('BENCH_ADMIN_POSTS', 10_000));
const RUNS = Math.floor(envNumber('BENCH_ADMIN_RUNS', 5));

/**
 * Marks, in the page, when the sign-in form and then the first row of the list are in the
 * document and painted (the next frame), as promises the runner awaits: the page's CSP forbids
 * the eval that Playwright's waitForFunction polls with.
 */
const MARKS = `
  const mark = (selector) => new Promise((resolve) => {
    new MutationObserver((_, observer) => {
      if (!document.querySelector(selector)) return;
      observer.disconnect();
      const inDom = performance.now();
      requestAnimationFrame(() => setTimeout(() => resolve([inDom, performance.now()]), 0));
    }).observe(document, { subtree: true, childList: true });
  });
  window.__signInForm = mark('form input[type=password]');
  window.__firstRow = mark('table tbody tr');
`;

/** Clicks the "Published" tab; resolves with when the tab was marked current and when its rows showed. */
const SWITCH_TAB = `new Promise((resolve) => {
  const link = [...document.querySelectorAll('nav[aria-label="Post status"] a')].find((a) => a.textContent === 'Published');
  const t0 = performance.now();
  let current = null;
  const check = () => {
    if (current === null && link.getAttribute('aria-current') === 'page') current = performance.now() - t0;
    const caption = document.querySelector('table caption');
    if (current !== null && caption && caption.textContent.startsWith('Published') && document.querySelector('table tbody tr')) {
      observer.disconnect();
      resolve([current, performance.now() - t0]);
    }
  };
  const observer = new MutationObserver(check);
  observer.observe(document, { subtree: true, childList: true, characterData: true, attributes: true });
  link.click();
})`;

interface Run {
  htmlReceived: number;
  scriptsReceived: number;
  domContentLoaded: number;
  formShown: number;
  firstRowInDom: number;
  firstRowPainted: number;
  loginEnd: number;
  loginMs: number;
  listMs: number;
  tabCurrent: number;
  tabRows: number;
  requests: string[];
}

/** One fresh load of /admin/posts, signed in, measured in the page. */
async function measure(page: Page, origin: string, credentials: Credentials): Promise<Run> {
  const requests: { name: string; at: number }[] = [];
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.pathname.startsWith('/api/v1/')) requests.push({ name: `${request.method()} ${url.pathname}${url.search}`, at: Date.now() });
  });
  await page.addInitScript(MARKS);
  await page.goto(`${origin}/admin/posts`);
  const [, formShown] = await page.evaluate<[number, number]>('window.__signInForm');
  const [htmlReceived, domContentLoaded] = await page.evaluate<[number, number]>(
    "(() => { const n = performance.getEntriesByType('navigation')[0]; return [n.responseEnd, n.domContentLoadedEventEnd]; })()",
  );
  const scriptsReceived = await page.evaluate<number>(
    "Math.max(...performance.getEntriesByType('resource').filter((r) => r.name.includes('/admin/assets/') && r.name.endsWith('.js')).map((r) => r.responseEnd))",
  );
  await page.getByLabel('Email').fill(credentials.email);
  await page.getByLabel('Password').fill(credentials.password);
  const signedInAt = Date.now();
  await page.keyboard.press('Enter');
  const [firstRowInDom, firstRowPainted] = await page.evaluate<[number, number]>('window.__firstRow');
  const firstRowAt = Date.now();
  const timing = (part: string) =>
    page.evaluate<[number, number]>(
      `(() => { const e = performance.getEntriesByType('resource').find((r) => r.name.includes(${JSON.stringify(part)})); return e ? [e.responseEnd, e.duration] : [NaN, NaN]; })()`,
    );
  const [loginEnd, loginMs] = await timing('/api/v1/auth/login');
  const [, listMs] = await timing('/api/v1/posts?');
  const [tabCurrent, tabRows] = await page.evaluate<[number, number]>(SWITCH_TAB);
  const before = requests.filter((r) => r.at >= signedInAt && r.at <= firstRowAt).map((r) => r.name);
  return {
    htmlReceived,
    scriptsReceived,
    domContentLoaded,
    formShown,
    firstRowInDom,
    firstRowPainted,
    loginEnd,
    loginMs,
    listMs,
    tabCurrent,
    tabRows,
    requests: before,
  };
}

function report(runs: Run[]): void {
  const row = (name: string, pick: (run: Run) => number) => [name, fmt(median(runs.map(pick))), runs.map((r) => fmt(pick(r))).join(' ')];
  console.log(
    table(
      ['ms (performance.now(), from navigation start unless said)', 'median', 'runs'],
      [
        row('index.html received', (r) => r.htmlReceived),
        row('its scripts received', (r) => r.scriptsReceived),
        row('DOMContentLoaded (HTML and the entry scripts run)', (r) => r.domContentLoaded),
        row('sign-in form painted (the app redirected there)', (r) => r.formShown),
        row('login request (argon2id)', (r) => r.loginMs),
        row('sign-in answered', (r) => r.loginEnd),
        row('**navigation → first row painted**', (r) => r.firstRowPainted),
        row('first row in the DOM', (r) => r.firstRowInDom),
        row('sign-in answered → first row painted', (r) => r.firstRowPainted - r.loginEnd),
        row(
          '**the app and the page without typing and login** (form painted + answered → row)',
          (r) => r.formShown + r.firstRowPainted - r.loginEnd,
        ),
        row('GET /posts (first page of 20, with total)', (r) => r.listMs),
        row('"Published" click → tab marked current', (r) => r.tabCurrent),
        row('"Published" click → its rows shown', (r) => r.tabRows),
      ],
    ),
  );
  console.log(`\nAPI requests from the sign-in to the first row (first run):\n${runs[0]!.requests.map((r) => `  ${r}`).join('\n')}`);
}

runMain('bench-admin', async () => {
  console.log(requireBuiltApi());
  if (!existsSync('dist/admin/index.html')) throw new Error('dist/admin/ is missing: run `make build` first');
  const executable = chromiumPath('bench-admin');
  if (executable === null) throw new Error('no Chromium: apt-get install chromium, or set CHROMIUM_PATH');
  const database = await createScratchDatabase(serverUrl);
  await migrate(database.url);
  const credentials = await createUser(database.url);
  const t0 = performance.now();
  await seedBySql(database.sql, 0, POSTS);
  console.log(`seeded ${fmt(POSTS)} posts by SQL in ${fmt((performance.now() - t0) / 1000, 1)} s`);
  const server = await startServer('api', postgresEnv(database.url, randomBytes(32).toString('base64url')));
  const origin = server.baseUrl.replace(/\/api\/v1$/, '');
  const browser = await launchChromium(executable);
  try {
    const runs: Run[] = [];
    for (let i = 0; i < RUNS; i += 1) {
      const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
      runs.push(await measure(await context.newPage(), origin, credentials));
      await context.close();
    }
    console.log(`\nadmin posts page, ${fmt(POSTS)} posts, ${RUNS} fresh loads, Chromium against node dist/main.js on PostgreSQL\n`);
    report(runs);
  } finally {
    await browser.close();
    await server.stop();
  }
});
