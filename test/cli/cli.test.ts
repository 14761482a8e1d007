/**
 * The `margin` CLI end to end: a real server (the composed app on a socket, over each store) and
 * the CLI's `run` with its own config directory. One test runs the program itself (bin/margin.mjs)
 * to prove the launcher, the exit code and the streams.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ServerType } from '@hono/node-server';
import { strFromU8, strToU8, unzipSync, zipSync } from 'fflate';
import { afterEach, describe, expect, it } from 'vitest';
import { serveApp } from '../../src/adapters/http/node-server.js';
import { run } from '../../src/cli/cli.js';
import { EXIT } from '../../src/cli/exit-codes.js';
import type { Post } from '../../src/client/index.js';
import { FixedClock } from '../../src/domain/index.js';
import { ADMIN, testServer } from '../support/http.js';
import { zipOfFixture } from '../support/import-fixtures.js';
import { describeOnEveryStore } from '../support/stores.js';
import type { MakeStore } from '../../src/adapters/contract/index.js';

const ROOT = new URL('../..', import.meta.url).pathname;
const TTL_SECONDS = 900;

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Outcome {
  code: number;
  out: string;
  err: string;
}

async function served(make: MakeStore) {
  const clock = new FixedClock(new Date());
  const server = await testServer({ store: await make(), clock, accessTokenTtlSeconds: TTL_SECONDS });
  const socket: ServerType = serveApp(server.app.fetch, { hostname: '127.0.0.1', port: 0 });
  await new Promise((resolve) => socket.once('listening', resolve));
  let open = true;
  const closeServer = async () => {
    if (!open) return;
    open = false;
    await new Promise<void>((resolve) => socket.close(() => resolve()));
  };
  cleanups.push(closeServer);
  const baseUrl = `http://127.0.0.1:${(socket.address() as AddressInfo).port}/api/v1`;
  const configDir = mkdtempSync(join(tmpdir(), 'margin-cli-'));
  cleanups.push(() => rmSync(configDir, { recursive: true, force: true }));
  const env = { MARGIN_CONFIG_DIR: join(configDir, 'margin'), MARGIN_URL: baseUrl };
  /** Runs one command line; `stdin` is what a pipe would give it. */
  async function margin(
    args: string[],
    options: { stdin?: string; env?: Record<string, string>; errIsTty?: boolean } = {},
  ): Promise<Outcome> {
    let out = '';
    let err = '';
    const code = await run(args, {
      out: (text) => (out += text),
      err: (text) => (err += text),
      env: { ...env, ...options.env },
      stdin: async () => options.stdin ?? '',
      isTty: false,
      errIsTty: options.errIsTty ?? false,
      now: () => new Date('2026-12-04T12:00:00Z'),
    });
    return { code, out, err };
  }
  async function json<T = any>(args: string[], options: { stdin?: string } = {}): Promise<T> {
    const outcome = await margin([...args, '--json'], options);
    expect(outcome.code, outcome.err).toBe(EXIT.ok);
    return JSON.parse(outcome.out) as T;
  }
  const login = () => margin(['login', '--email', ADMIN.email], { stdin: `${ADMIN.password}\n` });
  const credentials = () => JSON.parse(readFileSync(join(env.MARGIN_CONFIG_DIR, 'credentials.json'), 'utf8'));
  return { server, clock, baseUrl, env, configDir, margin, json, login, credentials, closeServer };
}

describeOnEveryStore('the margin CLI', (make) => {
  it('logs in with the password from stdin, keeps the session in a 0600 file in a 0700 folder, and says who is logged in', async () => {
    const t = await served(make);
    const loggedIn = await t.login();
    expect(loggedIn.code, loggedIn.err).toBe(EXIT.ok);
    expect(loggedIn.out).toContain(`Logged in to ${t.baseUrl} as ${ADMIN.email}`);
    expect(statSync(join(t.env.MARGIN_CONFIG_DIR, 'credentials.json')).mode & 0o777).toBe(0o600);
    expect(statSync(t.env.MARGIN_CONFIG_DIR).mode & 0o777).toBe(0o700);
    expect(t.credentials()).toMatchObject({ baseUrl: t.baseUrl, email: ADMIN.email });
    expect(JSON.stringify(t.credentials())).not.toContain(ADMIN.password);
    expect(await t.json(['whoami'])).toMatchObject({ email: ADMIN.email, name: ADMIN.name });
  });

  it('creates, lists, gets, edits and publishes posts, with --json a script can read', async () => {
    const t = await served(make);
    await t.login();
    const created = await t.json(['posts', 'create', '--title', 'Hello: "CLI" #1', '--body-file', '-', '--tag', 'cli', '--tag', 'Notes'], {
      stdin: '# Hi\n\nFrom stdin.\n',
    });
    expect(created).toMatchObject({
      title: 'Hello: "CLI" #1',
      body: '# Hi\n\nFrom stdin.\n',
      tags: ['cli', 'notes'],
      status: 'draft',
      version: 1,
    });
    const bodyFile = join(t.configDir, 'body.md');
    writeFileSync(bodyFile, 'Second body.\n');
    for (let i = 2; i <= 3; i++) await t.json(['posts', 'create', '--title', `Post ${i}`, '--body-file', bodyFile]);

    const listed = await t.json<{ id: string }[]>(['posts', 'list', '--limit', '2', '--all']);
    expect(listed).toHaveLength(3);
    expect(await t.json(['posts', 'list', '--tag', 'cli'])).toEqual([expect.objectContaining({ id: created.id })]);
    const human = await t.margin(['posts', 'list']);
    expect(human.out.trim().split('\n')).toHaveLength(3);
    expect(human.out).toContain(`${created.id}  draft`);

    const edited = await t.json(['posts', 'edit', created.id, '--title', 'Hello again', '--excerpt', 'Short.']);
    expect(edited).toMatchObject({ title: 'Hello again', excerpt: 'Short.', version: 2, body: created.body });
    const published = await t.json(['posts', 'publish', created.id]);
    expect(published).toMatchObject({ status: 'published', version: 3 });
    expect(await t.json(['posts', 'get', created.id])).toEqual(published);
    const shown = await t.margin(['posts', 'get', created.id]);
    expect(shown.out).toContain('status:    published');
    expect(shown.out.endsWith('# Hi\n\nFrom stdin.\n')).toBe(true);
  });

  it('exits 4 with the detail of the 412 when the post changed since the version given, and changes nothing', async () => {
    const t = await served(make);
    await t.login();
    const post = await t.json(['posts', 'create', '--title', 'Contested']);
    await t.json(['posts', 'edit', post.id, '--title', 'First writer', '--if-match', '1']);
    const stale = await t.margin(['posts', 'edit', post.id, '--title', 'Second writer', '--if-match', '1']);
    expect(stale.code).toBe(EXIT.conflict);
    expect(stale.err).toMatch(/^margin: Precondition failed: .+/);
    expect(await t.json(['posts', 'get', post.id])).toMatchObject({ title: 'First writer', version: 2 });
  });

  it('exits 5 for an unknown post, 6 with each invalid field, 2 for a usage error and 3 when not logged in', async () => {
    const t = await served(make);
    const before = await t.margin(['posts', 'list']);
    expect(before).toMatchObject({ code: EXIT.unauthorized, out: '' });
    expect(before.err).toContain('not logged in; run margin login');
    const refused = await t.margin(['login', '--email', ADMIN.email], { stdin: 'wrong password\n' });
    expect(refused.code).toBe(EXIT.unauthorized);
    expect(refused.err).toMatch(/^margin: .+: .+/);

    await t.login();
    const missing = await t.margin(['posts', 'get', '01JDQ8Z4M6X2V7K9T3N5R8W1YB']);
    expect(missing.code).toBe(EXIT.notFound);
    expect(missing.err).toMatch(/^margin: Not found: /);
    const invalid = await t.margin(['posts', 'create', '--title', 'x'.repeat(201), '--tag', 'a'.repeat(41)]);
    expect(invalid.code).toBe(EXIT.invalid);
    expect(invalid.err).toContain('  /body/title: ');
    expect(invalid.err).toContain('  /body/tags/0: ');
    expect((await t.margin(['posts', 'frobnicate'])).code).toBe(EXIT.usage);
    expect((await t.margin(['posts', 'list', '--colour'])).code).toBe(EXIT.usage);
    expect((await t.margin(['posts', 'list', '--tag', 'a', '--tag', 'b'])).code).toBe(EXIT.usage);
    expect((await t.margin(['posts', 'list', '--limit', '0'])).code).toBe(EXIT.usage);
    expect((await t.margin(['posts', 'create'])).code).toBe(EXIT.usage);
    expect((await t.margin(['posts', 'edit', 'x', '--title', 't', '--if-match', 'W/"1"'])).code).toBe(EXIT.usage);
    expect((await t.margin([])).code).toBe(EXIT.usage);
    expect((await t.margin(['--help'])).code).toBe(EXIT.ok);
    expect(await t.json(['posts', 'list'])).toEqual([]);
  });

  it('exports the site to a file checked against its manifest, with the filters and a progress line, and never replaces a file', async () => {
    const t = await served(make);
    await t.login();
    const published = await t.json(['posts', 'create', '--title', 'Out: "west" #1', '--tag', 'travel', '--publish']);
    const draft = await t.json(['posts', 'create', '--title', 'Not yet', '--body-file', '-'], { stdin: 'Draft body.\n' });
    const cwd = process.cwd();
    process.chdir(t.configDir);
    cleanups.push(() => process.chdir(cwd));

    const exported = await t.margin(['export'], { errIsTty: true });
    expect(exported.code, exported.err).toBe(EXIT.ok);
    expect(exported.out).toMatch(/^Exported 2 posts to margin-export-2026-12-04\.zip \(.+\), checked against its manifest\.\n$/);
    expect(exported.err).toMatch(/\rExporting: [0-9.]+ MiB, 2 posts checked\n$/);
    const archive = unzipSync(readFileSync(join(t.configDir, 'margin-export-2026-12-04.zip')));
    expect(Object.keys(archive).sort()).toEqual([`${draft.slug}.md`, `${published.slug}.md`, 'manifest.json'].sort());
    expect(strFromU8(archive[`${draft.slug}.md`]!)).toMatch(/\n---\nDraft body\.\n$/);
    expect(readdirSync(t.configDir).filter((name) => name.endsWith('.part'))).toEqual([]);

    const hugo = join(t.configDir, 'published.zip');
    const filtered = await t.json(['export', '--out', hugo, '--layout', 'hugo', '--status', 'published']);
    expect(filtered).toMatchObject({ file: hugo, posts: 1, counts: { posts: 1, published: 1, draft: 0 } });
    expect(Object.keys(unzipSync(readFileSync(hugo))).sort()).toEqual([`content/posts/${published.slug}.md`, 'manifest.json']);

    const before = readFileSync(hugo);
    const again = await t.margin(['export', '--out', hugo]);
    expect(again.code).toBe(EXIT.usage);
    expect(again.err).toContain(`${hugo} exists`);
    expect(readFileSync(hugo).equals(before)).toBe(true);
    expect((await t.margin(['export', '--layout', 'jekyll'])).code).toBe(EXIT.usage);
    const invalid = await t.margin(['export', '--out', join(t.configDir, 'bad.zip'), '--status', 'lost']);
    expect(invalid.code).toBe(EXIT.invalid);
    expect(existsSync(join(t.configDir, 'bad.zip'))).toBe(false);
    expect(existsSync(join(t.configDir, 'bad.zip.part'))).toBe(false);
  });

  it('imports a Jekyll site: a dry run by default that writes nothing, --apply with a progress bar, and a second --apply that changes nothing', async () => {
    const t = await served(make);
    await t.login();
    const zip = join(t.configDir, 'jekyll.zip');
    writeFileSync(zip, zipOfFixture('jekyll'));

    const dryRun = await t.margin(['import', zip]);
    expect(dryRun.code, dryRun.err).toBe(EXIT.ok);
    expect(dryRun.out).toBe(
      [
        `Dry run of ${zip} (markdown files, 6 files): would create 3, update 0, leave 0 unchanged, skip 3.`,
        '  skip   _config.yml: not_a_post (Not a markdown file (.md or .markdown).)',
        '  skip   about.md: page (A page, not a post: outside _posts/ and _drafts/ of a Jekyll site.)',
        '  skip   index.markdown: page (A page, not a post: outside _posts/ and _drafts/ of a Jekyll site.)',
        'Nothing was written; run again with --apply to import.',
        '',
      ].join('\n'),
    );
    expect(await t.json(['posts', 'list'])).toEqual([]);
    expect(await t.json(['import', zip, '--dry-run'])).toMatchObject({ mode: 'dry-run', counts: { create: 3 } });
    expect(await t.json(['posts', 'list'])).toEqual([]);

    const applied = await t.margin(['import', zip, '--apply'], { errIsTty: true });
    expect(applied.code, applied.err).toBe(EXIT.ok);
    expect(applied.out).toMatch(/^Imported .*jekyll\.zip \(markdown files, 6 files\): 3 created, 0 updated, 0 unchanged, 3 skipped\.\n/);
    expect(applied.err).toMatch(/\rUploading .*jekyll\.zip \[#{24}\] [0-9.]+ MiB of [0-9.]+ MiB\nImporting…\n$/);
    const posts = await t.json<Post[]>(['posts', 'list']);
    expect(posts.map((post) => post.slug).sort()).toEqual(['a-draft-idea', 'hello-jekyll', 'not-yet']);

    const again = await t.json(['import', zip, '--apply']);
    expect(again).toMatchObject({ mode: 'apply', counts: { files: 6, create: 0, update: 0, unchanged: 3, skip: 3 } });
    expect(await t.json<Post[]>(['posts', 'list'])).toEqual(posts);

    const both = await t.margin(['import', zip, '--apply', '--dry-run']);
    expect(both.code).toBe(EXIT.usage);
    expect((await t.margin(['import'])).code).toBe(EXIT.usage);
    const missing = await t.margin(['import', join(t.configDir, 'nowhere.zip')]);
    expect(missing.code).toBe(EXIT.failed);
    expect(missing.err).toContain('ENOENT');
  });

  it('imports its own export with one file edited by hand: the dry run says in words what each post becomes, and the draft stays a draft', async () => {
    const t = await served(make);
    await t.login();
    const draft = await t.json(['posts', 'create', '--title', 'Not yet', '--body-file', '-'], { stdin: 'Draft body.\n' });
    const out = join(t.configDir, 'site.zip');
    expect((await t.margin(['export', '--out', out])).code).toBe(EXIT.ok);
    const files = unzipSync(readFileSync(out));
    const path = `${draft.slug}.md`;
    const edited = join(t.configDir, 'edited.zip');
    writeFileSync(edited, zipSync({ ...files, [path]: strToU8(strFromU8(files[path]!).replace('Draft body.', 'Draft body, edited.')) }));

    const dryRun = await t.margin(['import', edited]);
    expect(dryRun.code, dryRun.err).toBe(EXIT.ok);
    const lines = dryRun.out.split('\n');
    expect(lines[0]).toBe(`Dry run of ${edited} (a MarginCMS export, 1 files): would create 0, update 1, leave 0 unchanged, skip 0.`);
    expect(lines[1]).toMatch(
      new RegExp(
        `^  update ${path}: Will stay a draft; its body changes\\. \\(The file is not what the manifest lists \\(.+\\): read by its own front matter\\.\\)$`,
      ),
    );
    expect(await t.json(['import', edited, '--apply'])).toMatchObject({ counts: { update: 1 } });
    expect(await t.json(['posts', 'get', draft.id])).toMatchObject({ status: 'draft', body: 'Draft body, edited.\n' });
  });

  it('refuses a hostile archive with exit 6, naming the reason and the entry, and imports nothing', async () => {
    const t = await served(make);
    await t.login();
    const zip = join(t.configDir, 'hostile.zip');
    writeFileSync(
      zip,
      zipSync({ 'posts/ok.md': strToU8('---\ntitle: Fine\n---\nBody.\n'), '../../etc/evil.md': strToU8('---\ntitle: x\n---\n') }),
    );
    const refused = await t.margin(['import', zip, '--apply']);
    expect(refused.code).toBe(EXIT.invalid);
    expect(refused.err).toMatch(/^margin: the archive is refused \(unsafe_path\): .+\n/);
    expect(refused.err.split('\n').slice(1)).toEqual(['  entry: ../../etc/evil.md', '  nothing was imported', '']);
    expect(await t.json(['posts', 'list'])).toEqual([]);
    writeFileSync(zip, 'not a zip at all');
    const garbage = await t.margin(['import', zip, '--apply', '--json']);
    expect(garbage.code).toBe(EXIT.invalid);
    expect(garbage.err).toContain('(not_a_zip)');
    expect(await t.json(['posts', 'list'])).toEqual([]);
  });

  it('moves a site between two servers: margin export, then margin import --apply, gives the same posts and the same export', async () => {
    const from = await served(make);
    await from.login();
    await from.json(['posts', 'create', '--title', 'Moving: "house" #2 🚚', '--tag', 'moving', '--publish', '--body-file', '-'], {
      stdin: '# Boxes\n\nمرحبا\n',
    });
    await from.json(['posts', 'create', '--title', 'Empty draft']);
    const first = join(from.configDir, 'site.zip');
    expect((await from.margin(['export', '--out', first])).code).toBe(EXIT.ok);
    const moved = await from.json(['posts', 'list']);
    // The second server starts empty (on a database store, the same database, emptied).
    const to = await served(make);
    await to.login();
    expect(await to.json(['posts', 'list'])).toEqual([]);

    expect(await to.json(['import', first, '--apply'])).toMatchObject({ source: 'margincms', counts: { files: 2, create: 2, skip: 0 } });
    const second = join(to.configDir, 'site.zip');
    expect((await to.margin(['export', '--out', second])).code).toBe(EXIT.ok);
    const [a, b] = [unzipSync(readFileSync(first)), unzipSync(readFileSync(second))];
    expect(Object.keys(b).sort()).toEqual(Object.keys(a).sort());
    for (const path of Object.keys(a).filter((name) => name !== 'manifest.json')) {
      expect(strFromU8(b[path]!), path).toBe(strFromU8(a[path]!));
    }
    expect(await to.json(['posts', 'list'])).toEqual(moved);
  });

  it('refreshes an expired access token once, keeps the new pair, and forgets the session at logout', async () => {
    const t = await served(make);
    await t.login();
    const first = t.credentials();
    t.clock.advance((TTL_SECONDS + 60) * 1000);
    expect(await t.json(['whoami'])).toMatchObject({ email: ADMIN.email });
    const second = t.credentials();
    expect(second.accessToken).not.toBe(first.accessToken);
    expect(second.refreshToken).not.toBe(first.refreshToken);
    expect(await t.json(['whoami'])).toMatchObject({ email: ADMIN.email });
    expect(t.credentials()).toEqual(second);

    expect((await t.margin(['logout'])).code).toBe(EXIT.ok);
    expect((await t.margin(['whoami'])).code).toBe(EXIT.unauthorized);
  });

  it('ends the session when the server refuses its refresh token, and says to log in again', async () => {
    const t = await served(make);
    await t.login();
    const saved = t.credentials();
    // Another copy of the session refreshes first: the saved refresh token is then spent.
    t.clock.advance((TTL_SECONDS + 60) * 1000);
    expect((await t.json(['whoami'])).email).toBe(ADMIN.email);
    writeFileSync(join(t.env.MARGIN_CONFIG_DIR, 'credentials.json'), JSON.stringify(saved));
    t.clock.advance(24 * 3600 * 1000);
    const outcome = await t.margin(['whoami']);
    expect(outcome.code).toBe(EXIT.unauthorized);
    expect(outcome.err).toContain('run margin login');
  });
});

describe('the margin program', () => {
  it('runs from bin/margin.mjs: login, a --json listing on stdout, and exit 7 with the address when the server is gone', async () => {
    const { createMemoryStore } = await import('../../src/adapters/memory/store.js');
    const t = await served(async () => createMemoryStore());
    const program = (args: string[], stdin = '') =>
      new Promise<Outcome>((resolve, reject) => {
        const child = spawn(process.execPath, [join(ROOT, 'bin/margin.mjs'), ...args], {
          env: { PATH: process.env.PATH ?? '', ...t.env },
          stdio: ['pipe', 'pipe', 'pipe'],
        });
        let out = '';
        let err = '';
        child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
        child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
        child.on('error', reject);
        child.on('exit', (code) => resolve({ code: code ?? -1, out, err }));
        child.stdin.end(stdin);
      });
    const login = await program(['login', '--email', ADMIN.email], `${ADMIN.password}\n`);
    expect(login.code, login.err).toBe(EXIT.ok);
    const listed = await program(['posts', 'list', '--json']);
    expect(listed).toMatchObject({ code: EXIT.ok, err: '' });
    expect(JSON.parse(listed.out)).toEqual([]);
    const usage = await program(['nope']);
    expect(usage.code).toBe(EXIT.usage);
    expect(usage.err).toContain('unknown command "nope"');
    // The server goes away: the saved address is reported.
    await t.closeServer();
    const gone = await program(['posts', 'list']);
    expect(gone.code).toBe(EXIT.unavailable);
    expect(gone.err).toContain(`cannot reach ${t.baseUrl}: ECONNREFUSED`);
  }, 30_000);
});
