/**
 * A PostgreSQL cluster of a test's own: initdb into a temporary folder with the machine's
 * PostgreSQL binaries, listening on its own port of 127.0.0.1, so that a test can stop and start
 * it (a database restart under load) without touching the shared server. Call `destroy()` at the
 * end: it stops the cluster and removes its folder.
 *
 * PostgreSQL refuses to run as root, so as root (CI, this machine) the binaries run as the
 * `postgres` user through `runuser`, and the folder belongs to that user.
 */
import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './ports.js';

const run = promisify(execFile);

/** The newest installed PostgreSQL's bin folder (Debian: /usr/lib/postgresql/<version>/bin), or null. */
function postgresBinDir(root = '/usr/lib/postgresql'): string | null {
  if (!existsSync(root)) return null;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? null : join(root, versions[0], 'bin');
}

export interface PrivateCluster {
  port: number;
  /** `postgres://postgres@127.0.0.1:<port>/postgres`. */
  url: string;
  /** Stops the server: `fast` ends every session at once, as an operator's restart does. */
  stop(): Promise<void>;
  /** Starts it again and waits until it accepts connections. */
  start(): Promise<void>;
  /** Stops it (if running) and removes its folder. */
  destroy(): Promise<void>;
}

/** initdb + start. Throws when no PostgreSQL binaries are installed. */
export async function createPrivateCluster(): Promise<PrivateCluster> {
  const bin = postgresBinDir();
  if (bin === null) throw new Error('no PostgreSQL binaries under /usr/lib/postgresql: apt-get install postgresql');
  const asRoot = userInfo().uid === 0;
  const dir = mkdtempSync(join(tmpdir(), 'margin-pg-'));
  const data = join(dir, 'data');
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    chownSync(dir, Number(stdout.trim()), Number(gid.trim()));
  }
  const pg = (tool: string, args: string[]) =>
    asRoot ? run('runuser', ['-u', 'postgres', '--', join(bin, tool), ...args]) : run(join(bin, tool), args);
  const port = await freePort();
  await pg('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8', '--locale=C']);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off`;
  const start = async () => {
    await pg('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'server.log'), '-w', '-t', '30', 'start']);
  };
  let running = false;
  const stop = async () => {
    await pg('pg_ctl', ['-D', data, '-m', 'fast', '-w', '-t', '30', 'stop']);
    running = false;
  };
  await start();
  running = true;
  return {
    port,
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop,
    async start() {
      await start();
      running = true;
    },
    async destroy() {
      if (running) await stop().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
