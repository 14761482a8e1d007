/** Environment knobs shared by the benchmark entry points, read once. */

/** A positive number from `name`, else `fallback`; a bad value stops the run. */
export function envNumber(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, got ${JSON.stringify(raw)}`);
  return value;
}

export const quick = process.env.BENCH_QUICK === '1';

/** The PostgreSQL server scratch databases are created on. */
export const serverUrl = process.env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';

export interface LoadSettings {
  connections: number;
  warmupSeconds: number;
  durationSeconds: number;
}

/** BENCH_CONNECTIONS, BENCH_WARMUP, BENCH_DURATION (quick: 1 s and 2 s). */
export function loadSettings(): LoadSettings {
  return {
    connections: Math.floor(envNumber('BENCH_CONNECTIONS', 50)),
    warmupSeconds: quick ? 1 : envNumber('BENCH_WARMUP', 3),
    durationSeconds: quick ? 2 : envNumber('BENCH_DURATION', 10),
  };
}
