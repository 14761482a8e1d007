/** Best-effort process figures from /proc (Linux): CPU time, resident memory. */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;

/** utime + stime of `pid` in microseconds, or null when the process is gone. */
export function cpuMicros(pid: number): number | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // Fields after the command name, which is in parentheses and may contain spaces.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15)
  return (ticks * 1_000_000) / CLOCK_TICKS;
}

/** CPU microseconds of every process whose command starts with `postgres`, by pid. */
export function postgresCpu(): Map<number, number> {
  const out = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (!readFileSync(`/proc/${entry}/comm`, 'utf8').startsWith('postgres')) continue;
    } catch {
      continue;
    }
    const micros = cpuMicros(Number(entry));
    if (micros !== null) out.set(Number(entry), micros);
  }
  return out;
}

/**
 * CPU spent by PostgreSQL processes between two `postgresCpu()` snapshots. A process born in
 * between counts from zero; one that ended in between is lost (best effort).
 */
export function postgresCpuDelta(before: Map<number, number>, after: Map<number, number>): number {
  let total = 0;
  for (const [pid, micros] of after) total += micros - (before.get(pid) ?? 0);
  return total;
}

function statusKb(pid: number, field: 'VmHWM' | 'VmRSS'): number | null {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}

/** Peak resident set size of `pid` in MiB. */
export const peakRssMiB = (pid: number) => mib(statusKb(pid, 'VmHWM'));
/** Current resident set size of `pid` in MiB. */
export const rssMiB = (pid: number) => mib(statusKb(pid, 'VmRSS'));
const mib = (kb: number | null) => (kb === null ? null : kb / 1024);

/**
 * `runLoad`'s hooks that sample the CPU of `pid` and of PostgreSQL around the measured window;
 * then `perRequest` divides what each spent in it by the requests answered (null when a sample is
 * missing or nothing was answered).
 */
export function cpuAround(pid: number) {
  let cpu0: number | null = null;
  let cpu1: number | null = null;
  let pg0 = new Map<number, number>();
  let pg1 = new Map<number, number>();
  return {
    before: () => {
      cpu0 = cpuMicros(pid);
      pg0 = postgresCpu();
    },
    after: () => {
      cpu1 = cpuMicros(pid);
      pg1 = postgresCpu();
    },
    perRequest(requests: number): { serverCpuUsPerReq: number | null; pgCpuUsPerReq: number | null } {
      const per = (micros: number | null) => (micros === null || requests === 0 ? null : micros / requests);
      const serverCpu = cpu0 !== null && cpu1 !== null ? cpu1 - cpu0 : null;
      return { serverCpuUsPerReq: per(serverCpu), pgCpuUsPerReq: per(postgresCpuDelta(pg0, pg1)) };
    },
  };
}
