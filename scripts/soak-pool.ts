/**
 * Soak test for this project's postgres.js pool (`openPostgres`; see porsager/postgres#747).
 *
 * Saturates a small pool with many concurrent callers running a trivial query
 * and reports throughput over time. With the stock postgres.js 3.4.9 queue,
 * throughput decays as the run goes on; with patches/postgres+3.4.9.patch it
 * should stay flat.
 *
 * Usage:
 *   npx tsx scripts/soak-pool.ts
 *
 * Environment (all optional):
 *   SOAK_DATABASE_URL        postgres://postgres@127.0.0.1:5432/postgres
 *   SOAK_SECONDS             total run time in seconds           (default 300)
 *   SOAK_INTERVAL_SECONDS    reporting interval in seconds       (default 10)
 *   SOAK_CONCURRENCY         number of concurrent callers        (default 50)
 *   SOAK_POOL_MAX            postgres.js `max` (pool size)       (default 10)
 *
 * Summary: compares the first and the last minute of the run; for runs shorter
 * than 2 minutes it compares the first and the last quarter instead.
 */
import { openPostgres } from '../src/adapters/drizzle/driver/connect-postgres.js';
import { maskUrl } from '../src/mask-url.js';
import { postgresSettings } from '../src/config.js';

function envNumber(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) {
    throw new Error(`${name} must be a positive number, got ${JSON.stringify(raw)}`);
  }
  return value;
}

const databaseUrl = process.env.SOAK_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const durationSec = envNumber('SOAK_SECONDS', 300);
const intervalSec = envNumber('SOAK_INTERVAL_SECONDS', 10);
const concurrency = Math.floor(envNumber('SOAK_CONCURRENCY', 50));
const poolMax = Math.floor(envNumber('SOAK_POOL_MAX', 10));

const durationMs = Math.round(durationSec * 1000);
const intervalMs = Math.round(intervalSec * 1000);

// Per-second completion counts, indexed by whole seconds since start.
const buckets: number[] = new Array<number>(Math.ceil(durationMs / 1000) + 2).fill(0);
let completed = 0;
let errors = 0;
let lastError: unknown;

function fmt(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

async function main(): Promise<void> {
  // The project's own pool (connect-postgres.ts): its options, backoff and patched queue.
  const connection = await openPostgres({
    ...postgresSettings(databaseUrl),
    poolSize: poolMax,
    connectTimeoutSeconds: 10,
    idleTimeoutSeconds: 0,
    statementTimeoutMs: 5000,
  });
  const { sql } = connection;

  // Fail fast on a bad URL / unreachable server before starting the clock.
  await sql`select 1 as ok`;

  console.log(
    `soak-pool: ${maskUrl(databaseUrl)} max=${poolMax} callers=${concurrency} ` + `duration=${durationSec}s interval=${intervalSec}s`,
  );

  const start = performance.now();
  const deadline = start + durationMs;

  let intervalStartCount = 0;
  let intervalStart = start;
  const reporter = setInterval(() => {
    const now = performance.now();
    const n = completed - intervalStartCount;
    const qps = n / ((now - intervalStart) / 1000);
    const heapMb = process.memoryUsage().heapUsed / 2 ** 20;
    console.log(
      `[t=${((now - start) / 1000).toFixed(0).padStart(4)}s] ` +
        `${fmt(qps).padStart(8)} q/s   total=${fmt(completed)}   errors=${errors}   heap=${heapMb.toFixed(1)}MB`,
    );
    intervalStartCount = completed;
    intervalStart = now;
  }, intervalMs);

  async function caller(): Promise<void> {
    while (performance.now() < deadline) {
      try {
        await sql`select 1 as one`;
        const t = performance.now();
        if (t <= deadline) {
          completed++;
          const b = Math.floor((t - start) / 1000);
          buckets[b] = (buckets[b] ?? 0) + 1;
        }
      } catch (err) {
        errors++;
        lastError = err;
        // Back off briefly so a dead server does not turn this into a hot loop.
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  }

  try {
    await Promise.all(Array.from({ length: concurrency }, () => caller()));
  } finally {
    clearInterval(reporter);
    await sql.end({ timeout: 5 });
  }

  const elapsedSec = (performance.now() - start) / 1000;
  const totalSec = Math.floor(durationMs / 1000);
  // Window: one minute, or a quarter of the run for runs under two minutes.
  const windowSec = durationSec >= 120 ? 60 : Math.max(1, Math.floor(totalSec / 4));
  const label = durationSec >= 120 ? 'minute' : 'quarter';
  const sum = (from: number, to: number) => {
    let s = 0;
    for (let i = from; i < to; i++) s += buckets[i] ?? 0;
    return s;
  };
  const firstQps = sum(0, windowSec) / windowSec;
  const lastQps = sum(totalSec - windowSec, totalSec) / windowSec;
  const ratio = firstQps > 0 ? lastQps / firstQps : NaN;

  console.log('---');
  console.log(`total queries     ${fmt(completed)} in ${elapsedSec.toFixed(1)}s (${fmt(completed / elapsedSec)} q/s avg)`);
  console.log(`errors            ${errors}${lastError ? ` (last: ${String((lastError as Error).message ?? lastError)})` : ''}`);
  console.log(`first-${label} qps  ${fmt(firstQps)}   (first ${windowSec}s)`);
  console.log(`last-${label} qps   ${fmt(lastQps)}   (last ${windowSec}s)`);
  console.log(`ratio last/first  ${ratio.toFixed(3)}`);
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
