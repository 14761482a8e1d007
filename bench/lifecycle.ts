/**
 * Clean-up that runs however a benchmark ends: normally, on an error, or on Ctrl-C / SIGTERM.
 * Servers and scratch databases register their own clean-up here as they are made.
 */
import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const resultsDir = join(dirname(fileURLToPath(import.meta.url)), 'results');
export const stamp = new Date().toISOString().replace(/[:.]/g, '-');
mkdirSync(resultsDir, { recursive: true });

/** Where servers and helper scripts write their output (never the console). */
export const logFile = join(resultsDir, `${stamp}.log`);

export function log(line: string): void {
  appendFileSync(logFile, `${new Date().toISOString()} ${line}\n`);
}

const cleanups: Array<() => Promise<void> | void> = [];

/** Registers `fn` to run at exit (last registered runs first); returns a function that unregisters it. */
export function onCleanup(fn: () => Promise<void> | void): () => void {
  cleanups.push(fn);
  return () => {
    const i = cleanups.indexOf(fn);
    if (i >= 0) cleanups.splice(i, 1);
  };
}

async function cleanUp(): Promise<void> {
  while (cleanups.length > 0) {
    const fn = cleanups.pop()!;
    try {
      await fn();
    } catch (error) {
      console.error(`clean-up failed: ${(error as Error).message}`);
    }
  }
}

/** Runs `main`, then the clean-ups; exit code 1 on an error, 130 on a signal. */
export function runMain(name: string, main: () => Promise<void>): void {
  let interrupted = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      interrupted = true;
      console.error(`\n${name}: ${signal}, cleaning up`);
      void cleanUp().finally(() => process.exit(130));
    });
  }
  main()
    .catch((error: unknown) => {
      console.error(`${name}: failed: ${error instanceof Error ? error.message : String(error)}`);
      console.error(`${name}: server output is in ${logFile}`);
      process.exitCode = 1;
    })
    .finally(async () => {
      if (interrupted) return;
      await cleanUp();
      // Keep-alive sockets of fetch may hold the loop open; the work is done.
      process.exit(process.exitCode ?? 0);
    });
}
