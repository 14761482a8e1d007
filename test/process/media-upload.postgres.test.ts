/**
 * Image uploads to the server process over a real socket: an upload is refused at the byte limit
 * while it streams in, before its client has sent all it declared, and an upload whose client
 * goes away midway leaves no staged file behind (the server's TMPDIR is a folder of the test's own).
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { requirePostgres, testServerUrl } from '../support/databases.js';
import { accessToken, createUser, startServer, useScratchDatabases, type Started } from '../support/server-process.js';

const serverUrl = testServerUrl();
const available = await requirePostgres(serverUrl);
const scratchDatabase = useScratchDatabases(serverUrl);

const ACCOUNT = { email: 'ada@example.com', password: 'correct horse battery staple', name: 'Ada Lovelace' };
/** MEDIA_MAX_BYTES of these servers: 1 MiB. */
const MAX_BYTES = 1024 * 1024;
/** A PNG signature: what the body starts with. */
const PNG_SIGNATURE = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

let staging: string;
beforeEach(async () => {
  staging = await mkdtemp(join(tmpdir(), 'margin-upload-process-'));
});
afterEach(async () => {
  await rm(staging, { recursive: true, force: true });
});

/** The staged uploads in the server's temporary folder. */
async function staged(): Promise<string[]> {
  return (await readdir(staging)).filter((name) => name.startsWith('margin-upload-'));
}

async function eventually(check: () => Promise<boolean>, seconds = 20): Promise<void> {
  for (const deadline = Date.now() + seconds * 1000; !(await check());) {
    if (Date.now() > deadline) throw new Error(`not within ${seconds} s`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function uploadServer(): Promise<{ server: Started; token: string }> {
  const db = await scratchDatabase();
  await createUser(db.url, ACCOUNT);
  const server = await startServer(db.url, { MEDIA_MAX_BYTES: String(MAX_BYTES), TMPDIR: staging, LOG_LEVEL: 'warn' });
  return { server, token: await accessToken(server.base, ACCOUNT.email, ACCOUNT.password) };
}

/** Opens a connection and sends the head of a raw PNG upload declaring `length` bytes of body. */
async function startUpload(server: Started, token: string, length: number): Promise<{ socket: Socket; answer: Promise<string> }> {
  const socket = connect(server.port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  const answer = new Promise<string>((resolve) => {
    let text = '';
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
    socket.on('error', () => resolve(text));
    socket.on('close', () => resolve(text));
  });
  const head = [
    'POST /api/v1/media HTTP/1.1',
    'Host: 127.0.0.1',
    `Authorization: Bearer ${token}`,
    'Content-Type: image/png',
    `Content-Length: ${length}`,
  ].join('\r\n');
  socket.write(`${head}\r\n\r\n`);
  return { socket, answer };
}

/** Writes `bytes` bytes (the PNG signature, then zeros) and waits until the socket has taken them. */
async function sendBody(socket: Socket, bytes: number): Promise<void> {
  const body = new Uint8Array(bytes);
  body.set(PNG_SIGNATURE);
  await new Promise<void>((resolve, reject) => socket.write(body, (error) => (error ? reject(error) : resolve())));
}

describe.skipIf(!available)('image uploads to the server process', () => {
  it('answers 413 to an image past MEDIA_MAX_BYTES as it streams in, before its client has sent all it declared, and leaves no staged file', async () => {
    const { server, token } = await uploadServer();
    // Declared within the limit plus a form's 64 KiB, so the declared length alone passes.
    const declared = MAX_BYTES + 60 * 1024;
    const { socket, answer } = await startUpload(server, token, declared);
    await sendBody(socket, MAX_BYTES + 16 * 1024);
    // The last 44 KiB are never sent: only a server that refuses as it reads answers now.
    const timeout = new Promise<string>((resolve) => setTimeout(() => resolve('no answer within 20 s'), 20_000));
    const text = await Promise.race([answer, timeout]);
    socket.destroy();
    expect(text).toMatch(/^HTTP\/1\.1 413 /);
    expect(text).toMatch(/\r\nconnection: close\r\n/i);
    expect(text).toContain(`"detail":"The image is larger than ${MAX_BYTES} bytes."`);
    expect(await staged()).toEqual([]);
    const library = await fetch(`${server.base}/media`, { headers: { authorization: `Bearer ${token}` } });
    expect(((await library.json()) as { items: unknown[] }).items).toEqual([]);
  }, 60_000);

  it('stages an upload in a file as it arrives and removes it when its client goes away midway', async () => {
    const { server, token } = await uploadServer();
    const { socket } = await startUpload(server, token, 512 * 1024);
    await sendBody(socket, 256 * 1024);
    // Half the body has arrived: it is in a file of the server's TMPDIR, not held in memory.
    await eventually(async () => (await staged()).length === 1);
    socket.destroy();
    await eventually(async () => (await staged()).length === 0);
    expect((await fetch(`${server.base}/healthz`)).status).toBe(200);
  }, 60_000);
});
