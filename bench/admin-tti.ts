/**
 * `make bench-admin`: how soon the admin's posts page of a 10,000-post site (BENCH_ADMIN_POSTS)
 * is usable, in Debian's Chromium, against the built server (`node dist/main.js` serving the
 * admin build of `make build`) on a scratch PostgreSQL database and on embedded PGlite (the
 * default deployment), each seeded by SQL (BENCH_ADMIN_STORES: `postgres,embedded`).
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
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { openPglite } from '../src/adapters/drizzle/driver/connect-pglite.js';
import { chromiumPath, launchChromium } from '../test/support/chromium.js';
import { createScratchDatabase, createUser, migrate, type Credentials } from './database.js';
import { envNumber, serverUrl } from './env.js';
import { onCleanup, runMain } from './lifecycle.js';
import { fmt, median, table } from './report.js';
import { seedBySql, seedPostsParams, seedPostsSql } from './seed.js';
import { postgresEnv, requireBuiltApi, startServer, type RunningServer } from './servers.js';

const POSTS = Math.floor(envNumber('BENCH_ADMIN_POSTS', 10_000));
const RUNS = Math.floor(envNumber('BENCH_ADMIN_RUNS', 5));
const STORES = (process.env.BENCH_ADMIN_STORES || 'postgres,embedded').split(',');

interface Site {
  server: RunningServer;
  credentials: Credentials;
  label: string;
}

/** A scratch PostgreSQL database, migrated, given a user and POSTS posts; the built server over it. */
async function postgresSite(): Promise<Site> {
  const database = await createScratchDatabase(serverUrl);
  await migrate(database.url);
  const credentials = await createUser(database.url);
  const t0 = performance.now();
  await seedBySql(database.sql, 0, POSTS, () => migrate(database.url));
  console.log(`PostgreSQL: seeded ${fmt(POSTS)} posts by SQL in ${fmt((performance.now() - t0) / 1000, 1)} s`);
  const server = await startServer('api', postgresEnv(database.url, randomBytes(32).toString('base64url')), 'api on PostgreSQL');
  return { server, credentials, label: 'PostgreSQL' };
}

/** A PGlite data folder (migrated as it is opened) with POSTS posts; the built server's first start over it creates the admin. */
async function embeddedSite(): Promise<Site> {
  const dataDir = mkdtempSync(join(tmpdir(), 'margin-bench-admin-'));
  onCleanup(() => rmSync(dataDir, { recursive: true, force: true }));
  const t0 = performance.now();
  const pglite = await openPglite({ dataDir });
  const searchText = await pglite.client.query(
    "select 1 from information_schema.columns where table_name = 'posts' and column_name = 'search_text'",
  );
  // Without search_text, the search vectors stay NULL until the server's migration runner fills them.
  await pglite.client.query(seedPostsSql(searchText.rows.length > 0), seedPostsParams(0, POSTS));
  await pglite.client.exec('VACUUM (ANALYZE) posts, post_tags');
  await pglite.close();
  console.log(`PGlite: seeded ${fmt(POSTS)} posts by SQL in ${fmt((performance.now() - t0) / 1000, 1)} s`);
  const credentials = { email: 'bench@example.com', password: randomBytes(18).toString('base64url') };
  const env = { DATA_DIR: dataDir, ADMIN_EMAIL: credentials.email, ADMIN_PASSWORD: credentials.password, LOG_LEVEL: 'warn' };
  const server = await startServer('api', { ...env, CONTENT_RATE_LIMIT_PER_MINUTE: '0' }, 'api on PGlite');
  return { server, credentials, label: 'embedded PGlite' };
}

/** RUNS fresh loads of the site's posts page, reported as one table. */
async function benchSite(browser: Browser, site: Site): Promise<void> {
  const origin = site.server.baseUrl.replace(/\/api\/v1$/, '');
  try {
    const runs: Run[] = [];
    for (let i = 0; i < RUNS; i += 1) {
      const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
      runs.push(await measure(await context.newPage(), origin, site.credentials));
      await context.close();
    }
    console.log(`\nadmin posts page, ${fmt(POSTS)} posts, ${RUNS} fresh loads, Chromium against node dist/main.js on ${site.label}\n`);
    report(runs);
  } finally {
    await site.server.stop();
  }
}

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
  tagsMs: number;
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
  const [, tagsMs] = await timing('/api/v1/tags');
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
    tagsMs,
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
        row("GET /tags (the filter's menu, all tags with counts)", (r) => r.tagsMs),
        row('"Published" click → tab marked current', (r) => r.tabCurrent),
        row('"Published" click → its rows shown', (r) => r.tabRows),
      ],
    ),
  );
  console.log(
    `\nAPI requests from the sign-in until the runner saw the first row (first run):\n${runs[0]!.requests.map((r) => `  ${r}`).join('\n')}`,
  );
}

runMain('bench-admin', async () => {
  console.log(requireBuiltApi());
  if (!existsSync('dist/admin/index.html')) throw new Error('dist/admin/ is missing: run `make build` first');
  const executable = chromiumPath('bench-admin');
  if (executable === null) throw new Error('no Chromium: apt-get install chromium, or set CHROMIUM_PATH');
  const browser = await launchChromium(executable);
  try {
    if (STORES.includes('postgres')) await benchSite(browser, await postgresSite());
    if (STORES.includes('embedded')) await benchSite(browser, await embeddedSite());
  } finally {
    await browser.close();
  }
});
