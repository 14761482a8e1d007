/**
 * The server as a process (`node --import tsx src/main.ts` on PostgreSQL): readiness while the schema is behind,
 * and graceful shutdown (not ready at once, in-flight requests finished, a bound on the wait).
 */
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { migratePostgres } from '../../src/adapters/drizzle/driver/connect-postgres.js';
import { requirePostgres, testServerUrl } from '../support/databases.js';
import { startServer, stopServers, useScratchDatabases } from '../support/server-process.js';
const serverUrl = testServerUrl();
const available = await requirePostgres(serverUrl);

const scratchDatabase = useScratchDatabases(serverUrl);

/** A POST whose headers are sent but whose body is not, yet: a request in flight. */
function requestInFlight(port: number) {
  const socket = connect(port, '127.0.0.1');
  const body = JSON.stringify({ email: 'nobody@example.com', password: 'not the password at all' });
  const half = Math.floor(body.length / 2);
  let answer = '';
  socket.on('data', (chunk) => (answer += chunk.toString()));
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  socket.on('error', () => undefined);
  socket.write(
    `POST /api/v1/auth/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, half)}`,
  );
  return {
    finish: () => socket.write(body.slice(half)),
    answer: async () => {
      await closed;
      return answer;
    },
  };
}

describe.skipIf(!available)('the server process', () => {
  it('is gone, port closed, once the test kills it: no server outlives its test', async () => {
    const db = await scratchDatabase();
    const server = await startServer(db.url);
    expect((await fetch(`${server.base}/healthz`)).status).toBe(200);
    stopServers();
    await server.exited;
    const answered = await fetch(`${server.base}/healthz`).then(
      () => true,
      () => false,
    );
    expect(answered).toBe(false);
  });

  it('starts on a database whose schema is behind, stays not ready and serves no operation until `make migrate` has run', async () => {
    const db = await scratchDatabase({ migrate: false });
    const server = await startServer(db.url);

    const notReady = await fetch(`${server.base}/readyz`);
    expect(notReady.status).toBe(503);
    expect(notReady.headers.get('retry-after')).toBe('5');
    const problem = (await notReady.json()) as { detail: string };
    expect(problem.detail).toBe('The server is not ready yet; retry shortly.');
    const refused = await fetch(`${server.base}/posts`);
    expect(refused.status).toBe(503);
    // Log lines are written in batches, at most half a second late.
    await expect.poll(() => server.output(), { timeout: 3000 }).toContain('not ready: the database schema is behind');

    await migratePostgres(db.url);
    let status = 0;
    for (let i = 0; i < 50 && status !== 200; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      status = (await fetch(`${server.base}/readyz`)).status;
    }
    expect(status).toBe(200);
    await expect.poll(() => server.output(), { timeout: 3000 }).toContain('ready: the database schema is current');
    expect((await fetch(`${server.base}/posts`)).status).toBe(401);
    server.child.kill('SIGINT');
    expect(await server.exited).toBe(0);
  });

  it('answers anonymous readers a 503 that names no migration while the schema is behind, and names them in the log once', async () => {
    const db = await scratchDatabase({ migrate: false });
    const server = await startServer(db.url);

    for (const path of ['/content/posts', '/content/posts/hello', '/content/tags', '/readyz', '/readyz']) {
      const response = await fetch(`${server.base}${path}`);
      expect(response.status, path).toBe(503);
      const text = await response.text();
      expect((JSON.parse(text) as { detail: string }).detail, path).toBe('The server is not ready yet; retry shortly.');
      expect(text, path).not.toMatch(/0000_extensions|migrat|schema/);
    }
    await new Promise((resolve) => setTimeout(resolve, 1100)); // past the once-a-second re-check
    expect((await fetch(`${server.base}/content/posts`)).status).toBe(503);

    // Log lines are written in batches, at most half a second late.
    await expect.poll(() => server.output(), { timeout: 3000 }).toContain('0000_extensions');
    const behind = server
      .output()
      .split('\n')
      .filter((line) => line.includes('not ready: the database schema is behind'));
    expect(behind).toHaveLength(1);
    expect(behind[0]).toMatch(/"detail":"The database schema is behind this server: \d+ migrations are pending \(0000_extensions, /);
    server.child.kill('SIGINT');
    expect(await server.exited).toBe(0);
  });

  it('on SIGTERM answers not ready at once, keeps serving for the delay, finishes the request in flight and exits 0', async () => {
    const db = await scratchDatabase();
    const server = await startServer(db.url, { SHUTDOWN_DELAY_SECONDS: '1', SHUTDOWN_TIMEOUT_SECONDS: '5' });
    expect((await fetch(`${server.base}/readyz`)).status).toBe(200);
    const inFlight = requestInFlight(server.port);
    await new Promise((resolve) => setTimeout(resolve, 100));

    server.child.kill('SIGTERM');
    let readiness = 200;
    for (let i = 0; i < 20 && readiness === 200; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      readiness = (await fetch(`${server.base}/readyz`)).status;
    }
    expect(readiness).toBe(503);
    const draining = await fetch(`${server.base}/readyz`);
    expect(((await draining.json()) as { detail: string }).detail).toMatch(/shutting down/);
    expect((await fetch(`${server.base}/healthz`)).status, 'still serving during the delay').toBe(200);

    await new Promise((resolve) => setTimeout(resolve, 1300)); // past the delay: the listener is closed
    await expect(fetch(`${server.base}/healthz`)).rejects.toThrow();
    expect(server.child.exitCode, 'waits for the request in flight').toBeNull();
    inFlight.finish();
    const answer = await inFlight.answer();
    expect(answer).toMatch(/^HTTP\/1\.1 401 /);
    expect(await server.exited).toBe(0);
    expect(server.output()).toContain('"message":"stopped"');
  });

  it('cuts requests still in flight after SHUTDOWN_TIMEOUT_SECONDS and exits 1', async () => {
    const db = await scratchDatabase();
    const server = await startServer(db.url, { SHUTDOWN_DELAY_SECONDS: '0', SHUTDOWN_TIMEOUT_SECONDS: '1' });
    const inFlight = requestInFlight(server.port);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const sent = Date.now();
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(1);
    expect(Date.now() - sent).toBeGreaterThanOrEqual(900);
    expect(Date.now() - sent).toBeLessThan(5000);
    expect(await inFlight.answer()).toBe('');
    expect(server.output()).toContain('shutdown timed out with requests in flight');
  });
});
