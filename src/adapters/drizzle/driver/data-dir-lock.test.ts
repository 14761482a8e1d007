import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { DataDirInUseError, LOCK_FILE_NAME, lockDataDir, type LockHolder } from './data-dir-lock.js';

const MODULE = new URL('./data-dir-lock.ts', import.meta.url).pathname;

const directories: string[] = [];
const children: ChildProcess[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'margin-lock-'));
  directories.push(dir);
  return dir;
}
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  for (const dir of directories.splice(0)) rmSync(dir, { recursive: true, force: true });
});

interface Holding {
  child: ChildProcess;
  /** What the child printed: `locked`, or the refusal. */
  result: Promise<string>;
  exited: Promise<void>;
}

/** A separate process that takes the lock on `dir` (through this module) and holds it until killed. */
function holdInChild(dir: string): Holding {
  const code = `
    import { lockDataDir } from ${JSON.stringify(MODULE)};
    try { await lockDataDir(${JSON.stringify(dir)}); console.log('locked'); setInterval(() => {}, 60_000); }
    catch (error) { console.log(error.message); process.exit(3); }`;
  const { child, lines, exited } = spawnModule(code);
  return { child, result: lines.next().then((line) => line.value ?? ''), exited };
}

/**
 * A separate process that, on each line of its standard input, drops what it holds (never a lock
 * another process wrote since) and tries the lock on `dir`, printing `locked` or the refusal.
 */
function racer(dir: string) {
  const code = `
    import { lockDataDir } from ${JSON.stringify(MODULE)};
    import { createInterface } from 'node:readline';
    let lock = null;
    console.log('ready');
    for await (const _ of createInterface({ input: process.stdin })) {
      lock?.release();
      lock = null;
      try { lock = await lockDataDir(${JSON.stringify(dir)}); console.log('locked'); }
      catch (error) { console.log(error.message); }
    }`;
  const { child, lines } = spawnModule(code);
  const next = () => lines.next().then((line) => line.value ?? '');
  return { child, ready: next(), go: () => (child.stdin!.write('go\n'), next()) };
}

function spawnModule(code: string) {
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { stdio: ['pipe', 'pipe', 'inherit'] });
  children.push(child);
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  return { child, lines: createInterface({ input: child.stdout! })[Symbol.asyncIterator](), exited };
}

const lockFile = (dir: string) => join(dir, LOCK_FILE_NAME);
const holderIn = (dir: string) => JSON.parse(readFileSync(lockFile(dir), 'utf8')) as LockHolder;
const rewrite = (dir: string, change: Partial<LockHolder>) => writeFileSync(lockFile(dir), JSON.stringify({ ...holderIn(dir), ...change }));

async function refusalOf(dir: string): Promise<DataDirInUseError> {
  const error = await lockDataDir(dir).then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(DataDirInUseError);
  return error as DataDirInUseError;
}

describe('lockDataDir', { timeout: 30_000 }, () => {
  it('writes an owner-only margin.lock naming this process, and release deletes it', async () => {
    const dir = tempDir();
    const lock = await lockDataDir(dir);
    expect(statSync(lockFile(dir)).mode & 0o777).toBe(0o600);
    expect(holderIn(dir)).toMatchObject({ pid: process.pid, host: hostname() });
    lock.release();
    lock.release();
    expect(existsSync(lockFile(dir))).toBe(false);
    (await lockDataDir(dir)).release();
  });

  it('refuses a second lock on the same folder in the same process', async () => {
    const dir = tempDir();
    const lock = await lockDataDir(dir);
    try {
      expect((await refusalOf(dir)).message).toMatch(/in use by this process already/);
    } finally {
      lock.release();
    }
  });

  it('refuses while another live process holds it, naming its PID and what to do, and leaves its lock alone', async () => {
    const dir = tempDir();
    const other = holdInChild(dir);
    expect(await other.result).toBe('locked');
    const before = readFileSync(lockFile(dir), 'utf8');
    const refusal = await refusalOf(dir);
    expect(refusal.holder?.pid).toBe(other.child.pid);
    expect(refusal.message).toContain(`PID ${other.child.pid}`);
    expect(refusal.message).toContain(`kill ${other.child.pid}`);
    expect(refusal.message).toContain('DATABASE_URL');
    expect(readFileSync(lockFile(dir), 'utf8')).toBe(before);
  });

  it('takes over the lock of a process killed with SIGKILL', async () => {
    const dir = tempDir();
    const other = holdInChild(dir);
    expect(await other.result).toBe('locked');
    other.child.kill('SIGKILL');
    await other.exited;
    const lock = await lockDataDir(dir);
    expect(holderIn(dir).pid).toBe(process.pid);
    lock.release();
  });

  it('takes over a lock whose PID now belongs to another process (its start time differs)', async () => {
    const dir = tempDir();
    const other = holdInChild(dir);
    expect(await other.result).toBe('locked');
    // The PID runs, but it is not the process that wrote the lock.
    rewrite(dir, { startTicks: '1' });
    const lock = await lockDataDir(dir);
    expect(holderIn(dir).pid).toBe(process.pid);
    lock.release();
  });

  it('takes over a lock written before a reboot (another boot id)', async () => {
    const dir = tempDir();
    const other = holdInChild(dir);
    expect(await other.result).toBe('locked');
    rewrite(dir, { bootId: 'an-earlier-boot' });
    (await lockDataDir(dir)).release();
  });

  it('takes over a lock naming its own PID that it does not hold (a restarted container keeps PID 1)', async () => {
    const dir = tempDir();
    (await lockDataDir(dir)).release();
    writeFileSync(lockFile(dir), JSON.stringify({ pid: process.pid, host: hostname(), bootId: null, startTicks: null, token: 'earlier' }));
    (await lockDataDir(dir)).release();
  });

  it('refuses a lock from another host, which it cannot check, naming the host and the file to delete', async () => {
    const dir = tempDir();
    writeFileSync(lockFile(dir), JSON.stringify({ pid: 1, host: 'elsewhere.example', bootId: null, startTicks: null, token: 't' }));
    const refusal = await refusalOf(dir);
    expect(refusal.message).toContain('on host elsewhere.example');
    expect(refusal.message).toContain(`delete ${lockFile(dir)}`);
  });

  it('refuses a lock file it cannot read, naming it', async () => {
    const dir = tempDir();
    writeFileSync(lockFile(dir), 'not a lock');
    expect((await refusalOf(dir)).message).toContain(`its lock file ${lockFile(dir)} cannot be read`);
  });

  it('does not delete on release a lock another process has written since', async () => {
    const dir = tempDir();
    const lock = await lockDataDir(dir);
    rewrite(dir, { token: 'someone else' });
    lock.release();
    expect(holderIn(dir).token).toBe('someone else');
  });

  it('clears a takeover guard left by a dead process', async () => {
    const dir = tempDir();
    writeFileSync(lockFile(dir), JSON.stringify({ pid: process.pid, host: hostname(), bootId: null, startTicks: null, token: 'earlier' }));
    const guard = `${lockFile(dir)}.takeover`;
    writeFileSync(guard, '');
    const old = new Date(Date.now() - 60_000);
    utimesSync(guard, old, old);
    (await lockDataDir(dir)).release();
    expect(existsSync(guard)).toBe(false);
  });

  it('lets exactly one of several processes that find the same stale lock at once take it', async () => {
    const dir = tempDir();
    const racers = [1, 2, 3, 4, 5].map(() => racer(dir));
    await Promise.all(racers.map((r) => r.ready));
    for (let round = 0; round < 50; round += 1) {
      // A lock left by a process that has exited.
      writeFileSync(
        lockFile(dir),
        JSON.stringify({ pid: spawnSync('true').pid, host: hostname(), bootId: null, startTicks: null, token: `dead-${round}` }),
      );
      const results = await Promise.all(racers.map((r) => r.go()));
      expect(results.filter((result) => result === 'locked')).toHaveLength(1);
      const winner = racers[results.indexOf('locked')]!;
      expect(holderIn(dir).pid).toBe(winner.child.pid);
      for (const result of results.filter((r) => r !== 'locked')) expect(result).toContain(`PID ${winner.child.pid}`);
    }
  });
});
