/**
 * Hostile archives (issue #27) sent to the server as a process on PostgreSQL, as the issue found
 * them: while the import runs, /healthz is asked every 20 ms on a connection of its own and each
 * answer timed, so a request handler that holds the server's event loop shows as a late health
 * check. The import is a dry run (the default), which is enough to parse every file.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { components } from '../../generated/api.js';
import { MAX_FRONT_MATTER_KEYS, MAX_FRONT_MATTER_TOKENS } from '../../src/site-files/front-matter.js';
import { manifestLimits } from '../../src/site-files/manifest.js';
import { createTestDatabase, requirePostgres, testServerUrl, type TestDatabase } from '../support/databases.js';
import { hostileArchives } from '../support/import-fixtures.js';
import { accessToken, createUser, startServer, stopServers } from '../support/server-process.js';

// Under CI=true a machine without PostgreSQL fails here instead of skipping.
const available = await requirePostgres(testServerUrl());

type Report = components['schemas']['ImportReport'];

/** The worst /healthz latency a hostile import may cause. */
const WORST_HEALTHZ_MS = 250;
/** How often /healthz is asked while an import runs. */
const POLL_EVERY_MS = 20;
const MiB = 1024 * 1024;

let db: TestDatabase | undefined;
let base: string;
let auth: Record<string, string>;

beforeAll(async () => {
  if (!available) return;
  db = await createTestDatabase(testServerUrl(), { migrate: true });
  const email = 'importer@example.com';
  const password = `Import-${randomBytes(12).toString('hex')}`;
  await createUser(db.url, { email, password, name: 'Importer' });
  const server = await startServer(db.url, { LOG_LEVEL: 'warn', ACCESS_LOG: 'false' });
  base = server.base;
  auth = { authorization: `Bearer ${await accessToken(base, email, password)}` };
});
afterAll(async () => {
  stopServers();
  await db?.drop();
});

/** One /healthz answer's status and how long it took; a connection the server closed meanwhile is tried again once, on a new one. */
async function healthz(server = base): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  const ask = async () => {
    const response = await fetch(`${server}/healthz`);
    await response.arrayBuffer();
    return response.status;
  };
  const status = await ask().catch(ask);
  return { status, ms: performance.now() - started };
}

interface Outcome {
  status: number;
  body: unknown;
  /** The longest a /healthz answer took while the import ran, in ms. */
  worstHealthzMs: number;
  /** How long the import took, in ms. */
  importMs: number;
}

/** Sends the archive (a dry run) to the server at `server` and polls its /healthz until it is answered. */
async function importWhilePolling(zip: Uint8Array, server = base): Promise<Outcome> {
  await healthz(server); // a warm connection, so that the first poll does not pay for one
  const started = performance.now();
  let answered = false;
  const request = fetch(`${server}/import`, { method: 'POST', headers: { ...auth, 'content-type': 'application/zip' }, body: zip }).then(
    async (response) => ({ status: response.status, body: (await response.json()) as unknown, at: performance.now() }),
  );
  const settled = request.finally(() => (answered = true));
  let worst = 0;
  while (!answered) {
    const { status, ms } = await healthz(server);
    expect(status).toBe(200);
    worst = Math.max(worst, ms);
    await new Promise((resolve) => setTimeout(resolve, POLL_EVERY_MS));
  }
  const { status, body, at } = await settled;
  const outcome = { status, body, worstHealthzMs: Math.round(worst), importMs: Math.round(at - started) };
  console.log(`${expect.getState().currentTestName}: ${JSON.stringify({ ...outcome, body: undefined })}`);
  return outcome;
}

/** The import answered with a report (a 200) or refused the archive (a 4xx), never a 5xx, and /healthz stayed prompt. */
function expectHonest(outcome: Outcome): void {
  expect(outcome.status, JSON.stringify(outcome.body).slice(0, 500)).toBeLessThan(500);
  expect(outcome.worstHealthzMs).toBeLessThan(WORST_HEALTHZ_MS);
}

const itemsOf = (body: unknown) => Object.fromEntries((body as Report).items.map((item) => [item.path, item]));

/** Each import runs in well under a second; the budget is for generating the archives on a loaded machine. */
const TIMEOUT_MS = Number(process.env.HOSTILE_TIMEOUT_MS ?? 60_000);

describe.skipIf(!available)('a hostile import does not hold the server', () => {
  const skippedFile = (outcome: Outcome, path: string, detail: RegExp) => {
    expectHonest(outcome);
    expect(outcome.status).toBe(200);
    const item = itemsOf(outcome.body)[path];
    expect(item).toMatchObject({ action: 'skip', reason: 'invalid_front_matter' });
    expect(item!.detail).toMatch(detail);
  };

  it('a YAML front matter of 1 MiB of distinct keys is skipped as too large (200)', { timeout: TIMEOUT_MS }, async () => {
    skippedFile(await importWhilePolling(hostileArchives.manyKeys(MiB - 1024)), 'posts/many-keys.md', /larger than/);
  });

  it('a YAML front matter of 1 MiB of one key repeated is skipped as too large (200)', { timeout: TIMEOUT_MS }, async () => {
    skippedFile(await importWhilePolling(hostileArchives.duplicateKeys(MiB - 1024)), 'posts/duplicates.md', /larger than/);
  });

  it('a YAML front matter of 1 MiB of [[[[… is skipped as too large (200)', { timeout: TIMEOUT_MS }, async () => {
    skippedFile(await importWhilePolling(hostileArchives.deepFlow('[', MiB - 1024)), 'posts/deep.md', /larger than/);
  });

  it('a YAML front matter of 1 MiB of [{[{… is skipped as too large (200)', { timeout: TIMEOUT_MS }, async () => {
    skippedFile(await importWhilePolling(hostileArchives.deepFlow('[{', MiB - 1024)), 'posts/deep.md', /larger than/);
  });

  it('a TOML front matter of 1 MiB of distinct keys is skipped as too large (200)', { timeout: TIMEOUT_MS }, async () => {
    skippedFile(await importWhilePolling(hostileArchives.manyKeysToml(900 * 1024)), 'posts/many-keys.md', /larger than/);
  });

  it(
    'a front matter under the size limit but nested 60 KiB deep, [{[{…, is skipped for its depth (200)',
    { timeout: TIMEOUT_MS },
    async () => {
      skippedFile(await importWhilePolling(hostileArchives.deepFlow('[{', 60 * 1024)), 'posts/deep.md', /nested more than/);
    },
  );

  it(
    '255 files of 1 MiB of [{[{… each are each skipped, and the good post of the archive is still planned (200)',
    { timeout: TIMEOUT_MS },
    async () => {
      const outcome = await importWhilePolling(hostileArchives.manyFiles(255, `title: ${'[{'.repeat(MiB / 2 - 16)}`));
      expectHonest(outcome);
      expect(outcome.status).toBe(200);
      const report = outcome.body as Report;
      expect(report.counts).toMatchObject({ files: 256, create: 1, skip: 255 });
      expect(itemsOf(report)['posts/good.md']).toMatchObject({ action: 'create', slug: 'good' });
    },
  );

  it('255 files each as costly as the front-matter limits let a file be are each skipped (200)', { timeout: TIMEOUT_MS }, async () => {
    // As many `key: value` lines (three tokens each) as the token budget lets through to the parser: more keys than allowed.
    const lines = Math.floor((MAX_FRONT_MATTER_TOKENS - 3) / 3);
    expect(lines).toBeGreaterThan(MAX_FRONT_MATTER_KEYS);
    const keys = Array.from({ length: lines }, (_, i) => `k${i}: ${i}`).join('\n');
    const outcome = await importWhilePolling(hostileArchives.manyFiles(255, `title: Keys\n${keys}`));
    expectHonest(outcome);
    expect(outcome.status).toBe(200);
    expect((outcome.body as Report).counts).toMatchObject({ files: 256, create: 1, skip: 255 });
    expect(itemsOf(outcome.body)['posts/hostile-0.md']!.detail).toContain(`more than ${MAX_FRONT_MATTER_KEYS} keys`);
  });

  it(
    'a manifest of entries at its bounds for 50,000 entries (20 MB) is read off the event loop: the good post is checked against it, and read by its own front matter (200)',
    { timeout: TIMEOUT_MS },
    async () => {
      const outcome = await importWhilePolling(hostileArchives.parsedManifest(manifestLimits(50_000).bytes - 1024, 'entries'));
      expectHonest(outcome);
      expect(outcome.status).toBe(200);
      expect(itemsOf(outcome.body)['posts/good.md']).toMatchObject({
        action: 'create',
        detail: 'The file is not listed in the manifest: read by its own front matter.',
      });
    },
  );

  it(
    'a manifest within its bytes but of more tokens than 50,000 entries may have (0,0,0…) is refused with 422 before it is parsed',
    { timeout: TIMEOUT_MS },
    async () => {
      const outcome = await importWhilePolling(hostileArchives.parsedManifest(manifestLimits(50_000).bytes - 1024, 'numbers'));
      expectHonest(outcome);
      expect(outcome.status).toBe(422);
      expect(outcome.body).toMatchObject({ reason: 'too_large', entry: 'manifest.json', detail: expect.stringContaining('JSON tokens') });
    },
  );

  it(
    'the 33 KB zip whose manifest inflates to 32 MiB of {} is refused with 422, and the process lives on',
    { timeout: TIMEOUT_MS },
    async () => {
      const zip = hostileArchives.emptyEntries(32 * MiB - 1);
      expect(zip.byteLength).toBeLessThan(40 * 1024);
      const outcome = await importWhilePolling(zip);
      expectHonest(outcome);
      expect(outcome.status).toBe(422);
      expect(outcome.body).toMatchObject({ type: expect.stringContaining('archive-refused'), reason: 'too_large', entry: 'manifest.json' });
      expect((await healthz()).status).toBe(200);
    },
  );

  it(
    'on a server taking archives of 1,000,000 entries, the same zip is refused for its tokens before it is parsed (422), and the process lives on',
    { timeout: TIMEOUT_MS },
    async () => {
      const large = await startServer(db!.url, { LOG_LEVEL: 'warn', ACCESS_LOG: 'false', IMPORT_MAX_ENTRIES: '1000000' });
      // A first import on the new process, so that compiling the import's code is not timed as the zip's stall.
      expect((await importWhilePolling(hostileArchives.manyFiles(0, ''), large.base)).status).toBe(200);
      const outcome = await importWhilePolling(hostileArchives.emptyEntries(32 * MiB - 1), large.base);
      expectHonest(outcome);
      expect(outcome.status).toBe(422);
      expect(outcome.body).toMatchObject({
        reason: 'too_large',
        entry: 'manifest.json',
        detail: expect.stringContaining('2500000 JSON tokens'),
      });
      expect((await healthz(large.base)).status).toBe(200);
      expect(large.child.exitCode).toBeNull();
    },
  );

  it('a manifest that inflates past its limit is refused with 422 archive-refused naming it', { timeout: TIMEOUT_MS }, async () => {
    const outcome = await importWhilePolling(hostileArchives.hugeManifest(40 * MiB));
    expectHonest(outcome);
    expect(outcome.status).toBe(422);
    expect(outcome.body).toMatchObject({ type: expect.stringContaining('archive-refused'), reason: 'too_large', entry: 'manifest.json' });
  });
});
