/**
 * `margin`, the command-line client of the MarginCMS admin API, built on the typed client
 * (`src/client`). Run it as `npx margin …` from a clone. `margin --help` lists the commands; the
 * exit codes are in exit-codes.ts.
 */
import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { createMarginClient, type components, type MarginClient, type Post } from '../client/index.js';
import { credentialsFile, forgetCredentials, loadCredentials, saveCredentials, type Credentials } from './credentials.js';
import { CliError, EXIT, problemError, type ExitCode } from './exit-codes.js';
import { saveCheckedArchive } from './site-export.js';

const DEFAULT_URL = 'http://localhost:8080/api/v1';

const HELP = `margin: the MarginCMS command-line client

Usage: margin <command> [options]

  login [--url URL] [--email EMAIL]   Log in (password from MARGIN_PASSWORD, else asked for);
                                      the session is kept in ${'$'}XDG_CONFIG_HOME/margin (0600)
  logout                              End the session on the server and forget it here
  whoami                              The user logged in
  posts list [--status S]... [--tag T] [--q TEXT] [--limit N] [--all]
  posts get ID
  posts create --title T [--body-file FILE|-] [--excerpt E] [--tag T]... [--slug S] [--publish]
  posts edit ID [--title T] [--body-file FILE|-] [--excerpt E] [--tag T]... [--slug S] [--if-match VERSION]
  posts publish ID [--if-match VERSION]
  export [--out FILE] [--layout flat|hugo] [--status S]... [--tag T]
                                      The whole site as a zip of markdown files (default
                                      margin-export-<date>.zip), checked against its manifest
  import FILE [--dry-run|--apply]     Import a zip of markdown files (a MarginCMS export, or
                                      Hugo, Jekyll or Astro content): --dry-run (the default)
                                      reports what would be created, updated or skipped and why;
                                      --apply does it. Importing the same archive again changes nothing

Options: --json prints what the server answered as JSON on stdout, for scripts.
         MARGIN_URL sets the server for login (default ${DEFAULT_URL}).

Exit codes: 0 done; 1 unexpected failure; 2 usage; 3 not logged in or refused (401);
            4 conflict (the post changed: 412; 409); 5 not found; 6 invalid input (422, 400, 413);
            7 server unavailable (network, 429, 5xx).
`;

const OPTIONS = {
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  url: { type: 'string' },
  email: { type: 'string' },
  status: { type: 'string', multiple: true },
  tag: { type: 'string', multiple: true },
  q: { type: 'string' },
  limit: { type: 'string' },
  all: { type: 'boolean' },
  title: { type: 'string' },
  'body-file': { type: 'string' },
  excerpt: { type: 'string' },
  slug: { type: 'string' },
  publish: { type: 'boolean' },
  'if-match': { type: 'string' },
  out: { type: 'string', short: 'o' },
  layout: { type: 'string' },
  'dry-run': { type: 'boolean' },
  apply: { type: 'boolean' },
} satisfies ParseArgsConfig['options'];

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

interface Io {
  out: (text: string) => void;
  err: (text: string) => void;
  env: NodeJS.ProcessEnv;
  /** Reads all of stdin (for `--body-file -` and a piped password). */
  stdin: () => Promise<string>;
  isTty: boolean;
  /** stderr is a terminal: long work shows a progress line there. */
  errIsTty?: boolean;
  /** Now, for default file names (tests fix it). */
  now?: () => Date;
}

/** Runs one command line; answers the exit code. Never throws. */
export async function run(argv: readonly string[], io: Io): Promise<ExitCode> {
  try {
    const { values, positionals } = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true });
    if (values.help || positionals.length === 0) {
      io.out(HELP);
      return positionals.length === 0 && !values.help ? EXIT.usage : EXIT.ok;
    }
    await dispatch(positionals, values, io);
    return EXIT.ok;
  } catch (error) {
    if (error instanceof CliError) {
      io.err(`margin: ${error.message}\n${error.lines.map((line) => `${line}\n`).join('')}`);
      return error.code;
    }
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS')) {
      io.err(`margin: ${(error as Error).message}\nRun margin --help for the commands.\n`);
      return EXIT.usage;
    }
    io.err(`margin: ${(error as Error).message}\n`);
    return EXIT.failed;
  }
}

async function dispatch(positionals: string[], values: Values, io: Io): Promise<void> {
  const [command, sub, ...rest] = positionals;
  const print = (value: unknown, human: () => string) => io.out(values.json ? `${JSON.stringify(value, null, 2)}\n` : human());
  switch (command) {
    case 'login':
      return login(values, io, print);
    case 'logout': {
      const { client } = session(io);
      await call(io, () => client.logout());
      forgetCredentials(io.env);
      return print({ loggedOut: true }, () => 'Logged out.\n');
    }
    case 'whoami': {
      const { client, credentials } = session(io);
      const me = await ok(call(io, () => client.api.GET('/auth/me')));
      return print(me, () => `${me.name} <${me.email}> on ${credentials.baseUrl}\n`);
    }
    case 'posts':
      return posts(sub, rest, values, io, print);
    case 'export':
      if (sub !== undefined) throw new CliError(EXIT.usage, 'export takes no arguments; use --out FILE');
      return exportSite(values, io, print);
    case 'import':
      if (sub === undefined || rest.length > 0) throw new CliError(EXIT.usage, 'import takes one zip file: margin import FILE [--apply]');
      return importSite(sub, values, io, print);
    default:
      throw new CliError(EXIT.usage, `unknown command ${JSON.stringify(command)}; run margin --help`);
  }
}

type Print = (value: unknown, human: () => string) => void;

async function login(values: Values, io: Io, print: Print): Promise<void> {
  const baseUrl = (values.url ?? io.env.MARGIN_URL ?? DEFAULT_URL).replace(/\/+$/, '');
  const email = values.email ?? io.env.MARGIN_EMAIL;
  if (!email) throw new CliError(EXIT.usage, 'login needs --email (or MARGIN_EMAIL)');
  const password = io.env.MARGIN_PASSWORD ?? (await askPassword(io));
  let saved: Credentials | null = null;
  const client = createMarginClient({
    baseUrl,
    onTokens: (pair) => {
      if (pair) saved = { baseUrl, email, accessToken: pair.accessToken, refreshToken: pair.refreshToken };
    },
  });
  await ok(call(io, () => client.login(email, password), baseUrl));
  saveCredentials(saved!, io.env);
  print({ baseUrl, email }, () => `Logged in to ${baseUrl} as ${email}; session kept in ${credentialsFile(io.env)}.\n`);
}

async function askPassword(io: Io): Promise<string> {
  if (!io.isTty) return (await io.stdin()).split(/\r?\n/)[0] ?? '';
  io.err('Password: ');
  const rl = createInterface({ input: process.stdin, terminal: true });
  // Echo nothing while the password is typed.
  (rl as unknown as { _writeToOutput: (text: string) => void })._writeToOutput = () => undefined;
  const line = await new Promise<string>((resolve) => rl.once('line', resolve));
  rl.close();
  io.err('\n');
  return line;
}

/** The saved session as a client; tokens it refreshes are saved, and a session the server ended is forgotten. */
function session(io: Io): { client: MarginClient; credentials: Credentials } {
  const credentials = loadCredentials(io.env);
  if (!credentials) throw new CliError(EXIT.unauthorized, 'not logged in; run margin login');
  const client = createMarginClient({
    baseUrl: credentials.baseUrl,
    tokens: credentials,
    onTokens: (pair) => {
      if (pair) saveCredentials({ ...credentials, accessToken: pair.accessToken, refreshToken: pair.refreshToken }, io.env);
      else forgetCredentials(io.env);
    },
  });
  return { client, credentials };
}

interface Answer<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** Makes a call; a network failure becomes exit 7 with the server's address. */
async function call<A>(io: Io, request: () => Promise<A>, baseUrl?: string): Promise<A> {
  try {
    return await request();
  } catch (error) {
    const where = baseUrl ?? loadCredentials(io.env)?.baseUrl ?? 'the server';
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    throw new CliError(EXIT.unavailable, `cannot reach ${where}: ${cause?.code ?? cause?.message ?? (error as Error).message}`);
  }
}

/** The answer's data, or the CliError its problem says. */
async function ok<T>(answer: Promise<Answer<T> | undefined>): Promise<T> {
  const result = await answer;
  if (!result) throw new CliError(EXIT.unauthorized, 'not logged in; run margin login');
  if (result.response.ok) return result.data as T;
  if (result.response.status === 401) {
    throw new CliError(EXIT.unauthorized, `${problemError(401, result.error).message} (run margin login)`);
  }
  throw problemError(result.response.status, result.error);
}

async function posts(sub: string | undefined, args: string[], values: Values, io: Io, print: Print): Promise<void> {
  const id = () => {
    if (args.length !== 1) throw new CliError(EXIT.usage, `posts ${sub} needs one post id`);
    return args[0]!;
  };
  const { client } = session(io);
  switch (sub) {
    case 'list': {
      const limit = values.limit === undefined ? 20 : Number(values.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > 100)
        throw new CliError(EXIT.usage, '--limit takes a whole number from 1 to 100');
      if ((values.tag?.length ?? 0) > 1) throw new CliError(EXIT.usage, 'posts list filters by one --tag');
      const items: Post[] = [];
      let cursor: string | undefined;
      do {
        const page = await ok(
          call(io, () =>
            client.api.GET('/posts', {
              params: {
                query: {
                  limit,
                  ...(cursor ? { cursor } : {}),
                  ...(values.status ? { status: values.status as Post['status'][] } : {}),
                  ...(values.tag?.[0] ? { tag: values.tag[0] } : {}),
                  ...(values.q ? { q: values.q } : {}),
                },
              },
            }),
          ),
        );
        items.push(...(page.items as Post[]));
        cursor = page.nextCursor ?? undefined;
      } while (values.all && cursor);
      return print(items, () =>
        items.map((p) => `${p.id}  ${p.status.padEnd(9)} v${String(p.version).padEnd(4)} ${p.updatedAt}  ${p.title}\n`).join(''),
      );
    }
    case 'get': {
      const post = await ok(call(io, () => client.getPost(id())));
      return print(post, () => describe(post) + `\n${post.body}${post.body.endsWith('\n') || post.body === '' ? '' : '\n'}`);
    }
    case 'create': {
      if (values.title === undefined) throw new CliError(EXIT.usage, 'posts create needs --title');
      const body = values['body-file'] === undefined ? undefined : await readBody(values['body-file'], io);
      const post = await ok(
        call(io, () =>
          client.createPost({
            title: values.title!,
            ...(body !== undefined ? { body } : {}),
            ...(values.excerpt !== undefined ? { excerpt: values.excerpt } : {}),
            ...(values.slug !== undefined ? { slug: values.slug } : {}),
            ...(values.tag ? { tags: values.tag } : {}),
            ...(values.publish ? { status: 'published' as const } : {}),
          }),
        ),
      );
      return print(post, () => `Created ${post.id} (${post.slug}), ${post.status}, version ${post.version}.\n`);
    }
    case 'edit':
    case 'publish': {
      const postId = id();
      const patch =
        sub === 'publish'
          ? { status: 'published' as const }
          : {
              ...(values.title !== undefined ? { title: values.title } : {}),
              ...(values.excerpt !== undefined ? { excerpt: values.excerpt } : {}),
              ...(values.slug !== undefined ? { slug: values.slug } : {}),
              ...(values.tag ? { tags: values.tag } : {}),
              ...(values['body-file'] !== undefined ? { body: await readBody(values['body-file'], io) } : {}),
            };
      if (Object.keys(patch).length === 0) throw new CliError(EXIT.usage, 'posts edit needs something to change (--title, --body-file, …)');
      let ifMatch: string;
      if (values['if-match'] !== undefined) {
        if (!/^[1-9][0-9]*$/.test(values['if-match'])) throw new CliError(EXIT.usage, '--if-match takes the version you read, e.g. 3');
        ifMatch = `"${values['if-match']}"`;
      } else {
        const current = await ok(call(io, () => client.getPost(postId)));
        ifMatch = `"${current.version}"`;
      }
      const post = await ok(call(io, () => client.updatePost(postId, patch, { ifMatch })));
      return print(post, () => `${sub === 'publish' ? 'Published' : 'Updated'} ${post.id}, now version ${post.version}.\n`);
    }
    default:
      throw new CliError(EXIT.usage, `unknown posts command ${JSON.stringify(sub)}; run margin --help`);
  }
}

async function exportSite(values: Values, io: Io, print: Print): Promise<void> {
  const layout = values.layout ?? 'flat';
  if (layout !== 'flat' && layout !== 'hugo') throw new CliError(EXIT.usage, '--layout is flat or hugo');
  if ((values.tag?.length ?? 0) > 1) throw new CliError(EXIT.usage, 'export filters by one --tag');
  const out = values.out ?? `margin-export-${(io.now?.() ?? new Date()).toISOString().slice(0, 10)}.zip`;
  if (existsSync(out)) throw new CliError(EXIT.usage, `${out} exists; choose another with --out`);
  const { client } = session(io);
  const answer = await call(io, () =>
    client.api.GET('/export', {
      params: {
        query: {
          layout,
          ...(values.status ? { status: values.status as Post['status'][] } : {}),
          ...(values.tag?.[0] ? { tag: values.tag[0] } : {}),
        },
      },
      parseAs: 'stream',
    }),
  );
  const stream = (await ok(Promise.resolve(answer))) as unknown as ReadableStream<Uint8Array> | null | undefined;
  if (stream == null) throw new CliError(EXIT.failed, 'the server answered the export without a body');
  const started = Date.now();
  let shown = 0;
  const progress = (bytes: number) => {
    if (!io.errIsTty || Date.now() - shown < 100) return;
    shown = Date.now();
    io.err(`\rExporting: ${mib(bytes)}`);
  };
  let checked;
  try {
    checked = await saveCheckedArchive(stream, out, progress);
  } catch (error) {
    if (io.errIsTty) io.err('\n');
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') throw new CliError(EXIT.usage, `${out} or ${out}.part exists; remove it or choose another --out`);
    if (typeof code === 'string') throw new CliError(EXIT.failed, `cannot write ${out}: ${code}`);
    throw new CliError(EXIT.unavailable, `the export failed and nothing was kept: ${(error as Error).message}`);
  }
  if (io.errIsTty) io.err(`\rExporting: ${mib(checked.bytes)}, ${checked.files.length} posts checked\n`);
  const seconds = (Date.now() - started) / 1000;
  return print(
    { file: out, bytes: checked.bytes, posts: checked.files.length, counts: checked.counts },
    () =>
      `Exported ${checked.files.length} posts to ${out} (${mib(checked.bytes)} in ${seconds.toFixed(1)} s), checked against its manifest.\n`,
  );
}

type ImportReport = components['schemas']['ImportReport'];

/** The bytes of `bytes` as a stream of 64 KiB chunks, telling `onProgress` the bytes handed to the socket so far. */
function uploadStream(bytes: Uint8Array, onProgress: (sent: number) => void): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent >= bytes.byteLength) {
        controller.close();
        return;
      }
      const chunk = bytes.subarray(sent, sent + 65536);
      sent += chunk.byteLength;
      controller.enqueue(chunk);
      onProgress(sent);
    },
  });
}

async function importSite(file: string, values: Values, io: Io, print: Print): Promise<void> {
  if (values['dry-run'] && values.apply) throw new CliError(EXIT.usage, 'import takes --dry-run or --apply, not both');
  const mode = values.apply ? 'apply' : 'dry-run';
  let bytes: Uint8Array;
  try {
    bytes = await readFile(file);
  } catch (error) {
    throw new CliError(EXIT.failed, `cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  const { client } = session(io);
  const total = bytes.byteLength;
  let shown = 0;
  const progress = (sent: number) => {
    if (!io.errIsTty || (Date.now() - shown < 100 && sent < total)) return;
    shown = Date.now();
    const width = 24;
    const done = Math.round((sent / Math.max(total, 1)) * width);
    io.err(`\rUploading ${file} [${'#'.repeat(done)}${'-'.repeat(width - done)}] ${mib(sent)} of ${mib(total)}`);
    if (sent >= total) io.err(`\n${mode === 'apply' ? 'Importing' : 'Checking (dry run)'}…\n`);
  };
  // Streamed so that a terminal sees the upload (undici needs `duplex` for a stream body); the
  // length is sent, so the server refuses an archive over its limit before reading it.
  const streamed = { duplex: 'half' } as Record<string, unknown>;
  const answer = await call(io, () =>
    client.api.POST('/import', {
      params: { query: { mode } },
      body: uploadStream(bytes, progress) as unknown as string,
      bodySerializer: (body) => body,
      headers: { 'content-type': 'application/zip', 'content-length': String(total) },
      ...streamed,
    }),
  );
  if (answer.response.status === 422 && (answer.error as { reason?: unknown } | undefined)?.reason !== undefined) {
    const problem = answer.error as { detail?: string; reason: string; entry?: string | null };
    throw new CliError(EXIT.invalid, `the archive is refused (${problem.reason}): ${problem.detail ?? ''}`.trimEnd(), [
      ...(problem.entry ? [`  entry: ${problem.entry}`] : []),
      '  nothing was imported',
    ]);
  }
  const report = (await ok(Promise.resolve(answer))) as ImportReport;
  return print(report, () => importSummary(report, file));
}

/**
 * The report for a human: the counts, each update and each file read otherwise than its export's
 * manifest lists with what it becomes in words, then each skipped file with its path and reason.
 */
function importSummary(report: ImportReport, file: string): string {
  const { counts } = report;
  const verb = report.mode === 'apply' ? 'Imported' : 'Dry run of';
  const what =
    report.mode === 'apply'
      ? `${counts.create} created, ${counts.update} updated, ${counts.unchanged} unchanged, ${counts.skip} skipped`
      : `would create ${counts.create}, update ${counts.update}, leave ${counts.unchanged} unchanged, skip ${counts.skip}`;
  const lines = [
    `${verb} ${file} (${report.source === 'margincms' ? 'a MarginCMS export' : 'markdown files'}, ${counts.files} files): ${what}.`,
  ];
  for (const item of report.items.filter((entry) => entry.action !== 'skip' && (entry.action === 'update' || entry.detail !== null))) {
    lines.push(`  ${item.action.padEnd(6)} ${item.path}: ${item.summary}${item.detail ? ` (${item.detail})` : ''}`);
  }
  for (const item of report.items.filter((entry) => entry.action === 'skip')) {
    lines.push(`  skip   ${item.path}: ${item.reason}${item.detail ? ` (${item.detail})` : ''}`);
  }
  if (report.mode === 'dry-run' && counts.create + counts.update > 0) lines.push('Nothing was written; run again with --apply to import.');
  return `${lines.join('\n')}\n`;
}

function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

function describe(post: Post): string {
  return [
    `id:        ${post.id}`,
    `title:     ${post.title}`,
    `slug:      ${post.slug}`,
    `status:    ${post.status}`,
    `version:   ${post.version}`,
    `tags:      ${post.tags.join(', ')}`,
    `updated:   ${post.updatedAt}`,
    ...(post.excerpt ? [`excerpt:   ${post.excerpt}`] : []),
    '',
  ].join('\n');
}

async function readBody(file: string, io: Io): Promise<string> {
  if (file === '-') return io.stdin();
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new CliError(EXIT.failed, `cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}
