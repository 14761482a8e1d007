// Starts the mock of generated/openapi.json as `make mock` does (scripts/mock.mjs: Prism behind the
// proxy that writes its 422s as the server does) on a free local port, for contract tests.
//
// Prism runs in its own process group (detached) so that stop() can kill it together with any
// child it spawns. Its stdout and stderr are captured, and included in every error message, so a
// failed start says why.
import { spawn, type ChildProcess } from 'node:child_process';
import { freePort } from './ports.js';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const mockScript = 'scripts/mock.mjs';
const bundle = 'generated/openapi.json';
const host = '127.0.0.1';

export interface PrismMock {
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  baseUrl: string;
  /** Kills Prism's whole process group and waits for it to exit. Safe to call twice. */
  stop(): Promise<void>;
  /** Everything Prism has written to stdout and stderr so far (the last 64 KiB). */
  output(): string;
}

export interface StartPrismOptions {
  /** How long to wait for `GET /healthz` to answer. Default 30 s. */
  readyTimeoutMs?: number;
}

const maxOutput = 64 * 1024;

export async function startPrism(options: StartPrismOptions = {}): Promise<PrismMock> {
  // Another process may take the port between freePort() and Prism's listen: retry on EADDRINUSE.
  const attempts = 3;
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(await freePort(host), options.readyTimeoutMs ?? 30_000);
    } catch (error) {
      if (attempt >= attempts || !(error instanceof PortInUseError)) throw error;
    }
  }
}

class PortInUseError extends Error {}

async function startOnce(port: number, readyTimeoutMs: number): Promise<PrismMock> {
  const baseUrl = `http://${host}:${port}`;
  const child = spawn(process.execPath, [mockScript, '--spec', bundle, '--host', host, '--port', String(port)], {
    cwd: root,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' },
  });

  let captured = '';
  const capture = (chunk: Buffer): void => {
    captured += chunk.toString('utf8');
    if (captured.length > maxOutput) captured = captured.slice(captured.length - maxOutput);
  };
  child.stdout?.on('data', capture);
  child.stderr?.on('data', capture);
  const output = (): string => captured;

  let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  let spawnError: Error | undefined;
  const exited = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      exit = { code, signal };
      resolve();
    });
    child.once('error', (error) => {
      spawnError = error;
      if (child.pid === undefined) resolve();
    });
  });

  // If the test process goes away without calling stop(), do not leave Prism running.
  const killOnExit = (): void => killGroup(child, 'SIGKILL');
  process.once('exit', killOnExit);

  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    process.removeListener('exit', killOnExit);
    if (exit === undefined && child.pid !== undefined) {
      killGroup(child, 'SIGTERM');
      const timer = setTimeout(() => killGroup(child, 'SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    }
    child.stdout?.destroy();
    child.stderr?.destroy();
  };

  const describe = (): string =>
    `Prism (${mockScript} --spec ${bundle} on ${baseUrl})` +
    (exit ? ` exited with code ${exit.code} signal ${exit.signal}` : '') +
    (spawnError ? ` failed to spawn: ${spawnError.message}` : '') +
    `\n--- Prism output ---\n${output() || '(none)'}`;

  const started = Date.now();
  while (true) {
    if (exit !== undefined || spawnError !== undefined) {
      await stop();
      const message = `${describe()}\nPrism did not start.`;
      throw /EADDRINUSE/.test(output()) ? new PortInUseError(message) : new Error(message);
    }
    if (await answers(`${baseUrl}/healthz`)) break;
    if (Date.now() - started > readyTimeoutMs) {
      await stop();
      throw new Error(`${describe()}\nPrism did not answer GET /healthz within ${readyTimeoutMs} ms.`);
    }
    await Promise.race([delay(200), exited]);
  }

  return { baseUrl, stop, output };
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch (error) {
    // ESRCH: the group is already gone.
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

async function answers(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
    await response.arrayBuffer();
    return true;
  } catch {
    return false;
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
