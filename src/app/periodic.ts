/**
 * Runs `task` every `intervalMs` (first after one interval); a tick that comes while the previous
 * run is still going is skipped, and a failed run is logged as `<name> failed` with the next one
 * coming on time. The timer does not keep the process alive. Returns a stop function that waits
 * for a run in progress.
 */
export function runEvery(
  name: string,
  intervalMs: number,
  task: () => Promise<void>,
  log: { warn(message: string, fields?: Record<string, unknown>): void },
): () => Promise<void> {
  let running: Promise<void> | null = null;
  const timer = setInterval(() => {
    if (running !== null) return;
    running = task()
      .catch((error: unknown) => log.warn(`${name} failed`, { error }))
      .finally(() => {
        running = null;
      });
  }, intervalMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
