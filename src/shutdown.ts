import type { Server } from 'node:http';
import type { Config } from './config.js';
import type { Logger } from './log.js';

export interface ShutdownOptions {
  server: Server;
  /** Told first: from then on the process reports not ready. */
  readiness: { startDraining(): void };
  logger: Logger;
  shutdown: Config['shutdown'];
  /** Releases what the server held (timers, the metrics server, the store) once no request is in flight. */
  release: () => Promise<void>;
}

/**
 * Stops the process on SIGINT and SIGTERM: readiness fails at once; on SIGTERM the server goes on
 * serving for the configured delay (load balancers notice the 503 and stop sending), then stops
 * accepting connections, closes idle keep-alive ones and waits for the requests in flight, up to
 * the timeout (then it cuts them and exits 1); then `release`, and exit 0. Returns what stops it
 * the same way, at once and with exit 1, when the server cannot go on (the reason is logged).
 */
export function stopOnSignals(options: ShutdownOptions): (reason: string) => void {
  let stopping = false;
  const stop = async (signal: string, exitCode: 0 | 1) => {
    if (stopping) return;
    stopping = true;
    options.readiness.startDraining();
    const delayMs = signal === 'SIGTERM' ? options.shutdown.delaySeconds * 1000 : 0;
    options.logger.info('shutting down: not ready from now on', { signal, delayMs });
    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
    await drain(options);
    await options.release();
    options.logger.info('stopped');
    options.logger.flush();
    process.exit(exitCode);
  };
  // A failure while stopping (a store that will not close) is logged and exits 1, never left unhandled.
  const stopOn = (signal: string, exitCode: 0 | 1 = 0) =>
    stop(signal, exitCode).catch((error: unknown) => {
      options.logger.error('shutdown failed', { signal, error: error instanceof Error ? error.message : String(error) });
      options.logger.flush();
      process.exit(1);
    });
  process.once('SIGINT', () => void stopOn('SIGINT'));
  process.once('SIGTERM', () => void stopOn('SIGTERM'));
  // The server cannot go on (its database was migrated past it): the same stop, without the delay, and exit 1.
  return (reason) => {
    options.logger.error(`stopping: ${reason}`);
    void stopOn('fatal', 1);
  };
}

/** Closes the server and waits for the requests in flight; past the timeout, cuts them and exits 1. */
async function drain({ server, logger, shutdown }: ShutdownOptions): Promise<void> {
  const timer = setTimeout(() => {
    logger.error('shutdown timed out with requests in flight; cutting them', { timeoutSeconds: shutdown.timeoutSeconds });
    server.closeAllConnections();
    logger.flush();
    process.exit(1);
  }, shutdown.timeoutSeconds * 1000);
  timer.unref();
  // Keep-alive connections become idle as their last answers go out: close them as they do.
  const closeIdle = setInterval(() => server.closeIdleConnections(), 100);
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
  });
  clearInterval(closeIdle);
}
