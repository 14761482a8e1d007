/**
 * Runs housekeeping once: deletes idempotency answers past their time, failed logins older than
 * the throttle window, expired or revoked refresh tokens and the sealed replays of used ones, in
 * batches of HOUSEKEEPING_BATCH_SIZE, under the same lock as the server's own runs.
 *
 *   DATABASE_URL set   → the PostgreSQL database it names
 *   otherwise          → the PGlite database in DATA_DIR (default `.data/`)
 *
 * Usage: npx tsx scripts/purge.ts   (or `make purge`, e.g. from cron with HOUSEKEEPING_INTERVAL_SECONDS=0)
 */
import { Housekeeping } from '../src/app/housekeeping.js';
import { loadHousekeepingConfig } from '../src/config.js';
import { loadEnvFile } from '../src/env-file.js';
import { systemClock } from '../src/domain/index.js';
import { createLogger } from '../src/log.js';
import { openStore } from '../src/open-store.js';

async function main(): Promise<void> {
  loadEnvFile(); // the server's settings, the environment winning
  const { database, housekeeping, refreshGraceSeconds, loginWindowSeconds } = loadHousekeepingConfig(process.env);
  const store = await openStore(database, createLogger('warn'));
  try {
    const report = await new Housekeeping({
      unitOfWork: store.unitOfWork,
      clock: systemClock,
      batchSize: housekeeping.batchSize,
      loginWindowSeconds,
      refreshGraceSeconds,
    }).runOnce();
    if (!report.ran) {
      console.log('purge: another process is running housekeeping; nothing done');
      return;
    }
    console.log(
      `purge: deleted ${report.idempotencyKeys} idempotency keys, ${report.loginAttempts} login failures, ` +
        `${report.refreshTokens} refresh tokens; cleared ${report.refreshReplays} refresh replays`,
    );
  } finally {
    await store.close();
  }
}

main().catch((error: unknown) => {
  console.error('purge: failed:', error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
