import { randomBytes } from 'node:crypto';
import { closeSync, openSync, readFileSync, realpathSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** The lock file's name inside the data directory (PostgreSQL keeps its postmaster.pid there too). */
export const LOCK_FILE_NAME = 'margin.lock';

/** What the lock file records of the process holding it. */
export interface LockHolder {
  pid: number;
  host: string;
  /** The kernel's boot id (Linux), so a lock from before a reboot is known stale; null elsewhere. */
  bootId: string | null;
  /** The process's start time in clock ticks since boot (Linux), so a PID reused by another process is not taken for the holder; null elsewhere. */
  startTicks: string | null;
  /** Unique to this holding: a process releases only the lock it wrote. */
  token: string;
  /** The program holding it (`main.js`, `create-user.ts`) and since when, for the message. */
  program: string;
  since: string;
}

/** An exclusive hold on a data directory; `release` is idempotent. */
export interface DataDirLock {
  readonly file: string;
  release(): void;
}

/** A data directory held by another live process (or whose lock cannot be judged): nothing was opened. */
export class DataDirInUseError extends Error {
  constructor(
    readonly file: string,
    readonly holder: LockHolder | null,
    reason: string,
  ) {
    super(reason);
    this.name = 'DataDirInUseError';
  }
}

/** Data directories this process holds (real path → token): a second open in the same process is refused too. */
const held = new Map<string, string>();

/** How long a lock file may stay empty or unreadable (being written) before it is refused as unreadable. */
const UNREADABLE_GRACE_MS = 1000;
/** A takeover guard is held for a few synchronous calls: one older than this was left by a dead process. */
const GUARD_STALE_MS = 10_000;

/**
 * Takes the exclusive lock on `dir` (which must exist): a `margin.lock` file created with O_EXCL,
 * recording this process's PID, host, boot id and start time. A lock left by a process that no
 * longer runs (its PID gone, or now another process's: start time or boot id differ) is taken
 * over; a lock held by a live process, one from another host, or one that cannot be read is
 * refused with a DataDirInUseError naming the holder. Liveness is judged by the PID, never by
 * the file's age: PGlite runs on the event loop and can block it for long, so a heartbeat would
 * let a second process in while the first still writes.
 */
export async function lockDataDir(dir: string): Promise<DataDirLock> {
  const real = realpathSync(dir);
  const file = join(real, LOCK_FILE_NAME);
  if (held.has(real))
    throw new DataDirInUseError(file, null, `${inUseBy(file, 'this process')} already: close it before opening it again.`);
  const self = currentHolder();
  for (let attempt = 0; attempt < 20; attempt += 1) {
    if (tryCreate(file, self)) {
      held.set(real, self.token);
      return { file, release: () => release(real, file, self.token) };
    }
    const holder = await readHolder(file);
    if (holder === 'absent') continue;
    if (holder === 'unreadable') throw new DataDirInUseError(file, null, unreadable(file));
    const verdict = judge(holder);
    if (verdict !== 'stale') throw new DataDirInUseError(file, holder, refusal(file, holder, verdict));
    if (!removeStale(file, holder)) await sleep(50);
  }
  throw new DataDirInUseError(file, null, `${inUseBy(file, 'another process')}: its lock changed hands too often to take. ${WHAT_TO_DO}`);
}

/** What else there is to do while another process holds the folder. */
const ALTERNATIVES =
  'While a server runs, change content through its API or admin app. To run several processes on one database, use PostgreSQL (set DATABASE_URL).';
const WHAT_TO_DO = `One process at a time may open an embedded database: stop the other one first. ${ALTERNATIVES}`;

function inUseBy(file: string, who: string): string {
  return `The embedded database in ${dirname(file)} is in use by ${who}`;
}

function unreadable(file: string): string {
  return `${inUseBy(file, 'an unknown process')}: its lock file ${file} cannot be read. If no MarginCMS process uses this folder, delete that file. ${WHAT_TO_DO}`;
}

function refusal(file: string, holder: LockHolder, verdict: 'alive' | 'elsewhere'): string {
  const where = verdict === 'elsewhere' ? `, on host ${holder.host}` : '';
  const who = `MarginCMS process PID ${holder.pid} (${holder.program}, since ${holder.since}${where})`;
  const stop =
    verdict === 'elsewhere'
      ? `If no MarginCMS process on ${holder.host} uses this folder, delete ${file}.`
      : `Stop it (Ctrl-C in its terminal, or \`kill ${holder.pid}\`), then run this again.`;
  return `${inUseBy(file, who)}. ${stop} ${ALTERNATIVES}`;
}

/** Whether the holder still holds: its process runs (same host, same boot, same start time). */
function judge(holder: LockHolder): 'stale' | 'alive' | 'elsewhere' {
  if (holder.host !== hostname()) return 'elsewhere';
  const bootId = readBootId();
  if (holder.bootId !== null && bootId !== null && holder.bootId !== bootId) return 'stale';
  // Our own PID, yet not held by us: a process before a restart that got the same PID (a container's PID 1).
  if (holder.pid === process.pid) return 'stale';
  if (!isRunning(holder.pid)) return 'stale';
  const ticks = readStartTicks(holder.pid);
  if (holder.startTicks !== null && ticks !== null && holder.startTicks !== ticks) return 'stale';
  return 'alive';
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

function currentHolder(): LockHolder {
  return {
    pid: process.pid,
    host: hostname(),
    bootId: readBootId(),
    startTicks: readStartTicks(process.pid),
    token: randomBytes(16).toString('hex'),
    program: basename(process.argv[1] ?? process.argv0),
    since: new Date().toISOString(),
  };
}

/** Creates `file` with the holder in it, or answers false when it exists. */
function tryCreate(file: string, holder: LockHolder): boolean {
  let fd: number;
  try {
    fd = openSync(file, 'wx', 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    writeSync(fd, JSON.stringify(holder) + '\n');
  } finally {
    closeSync(fd);
  }
  return true;
}

/** The holder recorded in `file`; an empty or partial file (being written) is read again for a while. */
async function readHolder(file: string): Promise<LockHolder | 'absent' | 'unreadable'> {
  const deadline = Date.now() + UNREADABLE_GRACE_MS;
  for (;;) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'absent';
      throw error;
    }
    const holder = parseHolder(text);
    if (holder !== null) return holder;
    if (Date.now() > deadline) return 'unreadable';
    await sleep(20);
  }
}

function parseHolder(text: string): LockHolder | null {
  try {
    const value = JSON.parse(text) as Partial<LockHolder>;
    if (!Number.isInteger(value.pid) || typeof value.host !== 'string' || typeof value.token !== 'string') return null;
    return {
      pid: value.pid!,
      host: value.host,
      bootId: typeof value.bootId === 'string' ? value.bootId : null,
      startTicks: typeof value.startTicks === 'string' ? value.startTicks : null,
      token: value.token,
      program: typeof value.program === 'string' ? value.program : 'unknown program',
      since: typeof value.since === 'string' ? value.since : 'an unknown time',
    };
  } catch {
    return null;
  }
}

/**
 * Deletes the stale lock `holder` wrote, under a guard file, and only if the lock still holds
 * that holder's token: two processes that found the same stale lock must not each delete it, the
 * second deleting the lock the first has just taken. False when another process has the guard.
 */
function removeStale(file: string, holder: LockHolder): boolean {
  const guard = `${file}.takeover`;
  let fd: number;
  try {
    fd = openSync(guard, 'wx', 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    if (ageMs(guard) > GUARD_STALE_MS) unlinkQuietly(guard);
    return false;
  }
  try {
    if (tokenIn(file) === holder.token) unlinkQuietly(file);
  } finally {
    closeSync(fd);
    unlinkQuietly(guard);
  }
  return true;
}

function release(real: string, file: string, token: string): void {
  if (held.get(real) !== token) return;
  held.delete(real);
  if (tokenIn(file) === token) unlinkQuietly(file);
}

function tokenIn(file: string): string | null {
  try {
    return parseHolder(readFileSync(file, 'utf8'))?.token ?? null;
  } catch {
    return null;
  }
}

function ageMs(file: string): number {
  try {
    return Date.now() - statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}

function unlinkQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

function readBootId(): string | null {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || null;
  } catch {
    return null;
  }
}

/** Field 22 of /proc/<pid>/stat (after the command name, which may hold spaces and parentheses). */
function readStartTicks(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}
