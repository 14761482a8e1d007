import { createServer } from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { stopOnSignals } from './shutdown.js';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('stopOnSignals', () => {
  it('logs a release that fails and exits 1, leaving no rejection unhandled', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const exited = new Promise<number | undefined>((resolve) => {
      vi.spyOn(process, 'exit').mockImplementation(((code?: number) => resolve(code)) as typeof process.exit);
    });
    const unhandled = vi.fn();
    process.on('unhandledRejection', unhandled);
    const errors: { message: string; fields?: Record<string, unknown> }[] = [];
    const logger = {
      info: () => undefined,
      warn: () => undefined,
      error: (message: string, fields?: Record<string, unknown>) => errors.push({ message, fields }),
      flush: () => undefined,
    };
    stopOnSignals({
      server,
      readiness: { startDraining: () => undefined },
      logger: logger as never,
      shutdown: { delaySeconds: 0, timeoutSeconds: 5 },
      release: () => Promise.reject(new Error('the store would not close')),
    });
    process.emit('SIGINT');
    expect(await exited).toBe(1);
    expect(errors).toEqual([{ message: 'shutdown failed', fields: { signal: 'SIGINT', error: 'the store would not close' } }]);
    await new Promise((resolve) => setImmediate(resolve));
    process.off('unhandledRejection', unhandled);
    expect(unhandled).not.toHaveBeenCalled();
  });

  it('stops at once when the server cannot go on: logs why, drains, releases and exits 1', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const exited = new Promise<number | undefined>((resolve) => {
      vi.spyOn(process, 'exit').mockImplementation(((code?: number) => resolve(code)) as typeof process.exit);
    });
    const said: string[] = [];
    const logger = {
      info: (message: string) => said.push(message),
      warn: () => undefined,
      error: (message: string) => said.push(message),
      flush: () => undefined,
    };
    let drained = false;
    let released = false;
    const stop = stopOnSignals({
      server,
      readiness: { startDraining: () => (drained = true) },
      logger: logger as never,
      shutdown: { delaySeconds: 30, timeoutSeconds: 5 },
      release: async () => {
        released = true;
      },
    });
    stop('database schema is ahead of this server');
    expect(await exited).toBe(1);
    expect([drained, released, server.listening]).toEqual([true, true, false]);
    expect(said).toEqual(['stopping: database schema is ahead of this server', 'shutting down: not ready from now on', 'stopped']);
  });
});
