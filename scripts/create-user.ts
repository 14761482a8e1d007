/**
 * Creates a user, or resets the name and password of the user with that email, in the configured
 * store (DATABASE_URL, else the embedded PGlite under DATA_DIR).
 *
 *   npm run user:create -- --email ada@example.com --name "Ada Lovelace"
 *
 * The password comes from ADMIN_PASSWORD, else from the first line of standard input (not echoed
 * at a terminal); never from a flag, which would leave it in the shell history and `ps`.
 * Prints `created <email>` or `updated <email>`, never the password.
 */
import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import { createArgon2PasswordHasher } from '../src/adapters/crypto/argon2-password-hasher.js';
import { createZxcvbnPasswordPolicy } from '../src/adapters/crypto/zxcvbn-password-policy.js';
import { createUlidIds } from '../src/adapters/system/ulid-ids.js';
import { ConfigError, loadDatabaseConfig } from '../src/config.js';
import { loadEnvFile } from '../src/env-file.js';
import { systemClock } from '../src/domain/index.js';
import { createLogger } from '../src/log.js';
import { openStore } from '../src/open-store.js';
import { createOrResetUser } from '../src/app/users.js';

const USAGE = 'usage: npm run user:create -- --email <email> --name <name>  (password from ADMIN_PASSWORD or standard input)';

class UsageError extends Error {}

function parse(argv: string[]): { email: string; name: string } {
  if (argv.some((arg) => arg === '--password' || arg.startsWith('--password=') || arg === '-p')) {
    throw new UsageError(
      'refusing --password: a password on the command line leaks into shell history and process lists. ' +
        'Set ADMIN_PASSWORD or pipe it on standard input instead.',
    );
  }
  let values: { email?: string | undefined; name?: string | undefined };
  try {
    ({ values } = parseArgs({ args: argv, options: { email: { type: 'string' }, name: { type: 'string' } }, strict: true }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const email = values.email?.trim() ?? '';
  if (!/^[^@\s]+@[^@\s]+$/.test(email) || email.length > 254) throw new UsageError('--email must be an email address');
  const name = values.name?.trim() ?? '';
  if (name === '') throw new UsageError('--name is required');
  return { email, name };
}

/** The first line of standard input; at a terminal it asks for it and does not echo it. */
async function readPasswordFromStdin(): Promise<string> {
  const tty = process.stdin.isTTY === true;
  if (tty) process.stderr.write('Password: ');
  const silent = new Writable({ write: (_chunk, _encoding, done) => done() });
  const lines = createInterface({ input: process.stdin, output: tty ? silent : undefined, terminal: tty });
  try {
    for await (const line of lines) return line;
    return '';
  } finally {
    lines.close();
    if (tty) process.stderr.write('\n');
  }
}

async function main(): Promise<number> {
  const { email, name } = parse(process.argv.slice(2));
  const fromEnv = process.env.ADMIN_PASSWORD;
  const password = fromEnv !== undefined && fromEnv !== '' ? fromEnv : await readPasswordFromStdin();
  if (password === '') throw new UsageError('no password: set ADMIN_PASSWORD or give it on the first line of standard input');
  // Checked before the database is opened (or, embedded, created); the use case checks it too.
  const passwords = createZxcvbnPasswordPolicy();
  const problem = await passwords.problem(password, [email, name]);
  if (problem !== null) throw new UsageError(`the password ${problem}`);

  // The server's database, from .env too; read after the password, so that the first start's
  // ADMIN_PASSWORD kept in .env is never taken for this user's.
  loadEnvFile();
  const database = loadDatabaseConfig(process.env);
  const store = await openStore(
    database,
    createLogger('error', (line) => process.stderr.write(line + '\n')),
  );
  try {
    const deps = {
      users: store.users,
      refreshTokens: store.refreshTokens,
      hasher: createArgon2PasswordHasher(),
      passwords,
      ids: createUlidIds(systemClock),
      clock: systemClock,
    };
    const { user, created } = await createOrResetUser(deps, { email, name, password });
    process.stdout.write(`${created ? 'created' : 'updated'} ${user.email}\n`);
  } finally {
    await store.close();
  }
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof UsageError) {
      process.stderr.write(`user:create: ${error.message}\n${USAGE}\n`);
      process.exit(2);
    }
    process.stderr.write(
      error instanceof ConfigError
        ? `${error.message}\n`
        : `user:create failed: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exit(1);
  },
);
