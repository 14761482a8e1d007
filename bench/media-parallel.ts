/**
 * The parallel-upload line of `make bench` (#40 item 3): twenty ~15 MB JPEGs sent at once to a
 * fresh built server, half as the raw body and half as a `multipart/form-data` form's file part.
 * Prints the server's RSS when idle (after one small upload has loaded sharp), its peak while the
 * twenty are read, decoded and stored, its RSS once they are answered and it has settled, and the
 * worst `/healthz` latency seen by a poller in a thread of its own (so that the bench's own
 * uploads do not delay it) while they run, and for comparison while the server is idle just
 * before (on a shared machine, what its load alone costs). Quick mode sends as many bytes, in
 * images that cost little to decode (see QUICK_JPEG).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { quick } from './env.js';
import { distinctJpegs, type JpegShape } from './media.js';
import { rssMiB } from './measure.js';
import { fmt } from './report.js';
import type { RunningServer } from './servers.js';

const MiB = 1024 * 1024;

/** Uploads sent at once. */
export const PARALLEL_UPLOADS = 20;

/** Full: 14.8 MiB each, 5 MP of noise at quality 100 (4:4:4), kept byte for byte as the original. */
const PARALLEL_JPEG: JpegShape = { width: 2300, height: 2300, amplitude: 256, quality: 100, chroma: '4:4:4' };
/**
 * Quick: as many bytes in flight, in 1 MP of noise followed by 14 MiB of APP15 segments (which a
 * decoder skips and the cleaning removes), so that the twenty decode and store in seconds.
 */
const QUICK_JPEG: JpegShape = { width: 1000, height: 1000, amplitude: 256, quality: 90 };
const QUICK_PADDING_BYTES = 14 * MiB;

/** Seconds the server is left alone after the last answer before its RSS is read again. */
const SETTLE_SECONDS = quick ? 3 : 10;

/** Targets of #40 item 3. */
export const PARALLEL_TARGETS = { rssOverIdleMiB: 300, healthzMs: 250 } as const;

export interface ParallelRun {
  store: string;
  uploads: number;
  /** Answers by status (`201`, `413 Payload too large`, …). */
  statuses: Record<string, number>;
  uploadMiB: number;
  seconds: number;
  idleMiB: number | null;
  /** The highest RSS from the start of the uploads to the last answer (VmHWM reset first, and 10 ms samples). */
  peakMiB: number | null;
  /** RSS `SETTLE_SECONDS` after the last answer. */
  afterMiB: number | null;
  healthzWorstMs: number;
  healthzPolls: number;
  /** The worst /healthz in 3 s of polling the idle server just before: the machine's share. */
  healthzIdleWorstMs: number;
}

/** Resets the process's VmHWM to its current RSS (Linux: `5` into clear_refs); false when not allowed. */
function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

function hwmMiB(pid: number): number | null {
  try {
    const match = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : null;
  } catch {
    return null;
  }
}

/** Polls `url` one request after another (50 ms apart) in a worker thread until told to stop; answers the latencies. */
function pollHealthz(url: string): { stop: () => Promise<number[]> } {
  const worker = new Worker(
    `
    const { parentPort, workerData } = require('node:worker_threads');
    let running = true;
    const times = [];
    parentPort.on('message', () => { running = false; });
    (async () => {
      while (running) {
        const t0 = performance.now();
        try { const res = await fetch(workerData); await res.arrayBuffer(); } catch {}
        times.push(performance.now() - t0);
        await new Promise((r) => setTimeout(r, 50));
      }
      parentPort.postMessage(times);
    })();
    `,
    { eval: true, workerData: url },
  );
  return {
    stop: () =>
      new Promise((resolve, reject) => {
        worker.once('message', (times: number[]) => void worker.terminate().then(() => resolve(times)));
        worker.once('error', reject);
        worker.postMessage('stop');
      }),
  };
}

async function send(baseUrl: string, token: string, jpeg: Uint8Array, asForm: boolean): Promise<string> {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  let body: FormData | Uint8Array;
  if (asForm) {
    const form = new FormData();
    form.append('file', new Blob([jpeg], { type: 'image/jpeg' }), 'photo.jpg');
    form.append('alt', 'A photo');
    body = form;
  } else {
    headers['content-type'] = 'image/jpeg';
    body = jpeg;
  }
  try {
    const res = await fetch(`${baseUrl}/media`, { method: 'POST', headers, body });
    const answer = (await res.json()) as { title?: string };
    return res.status === 201 ? '201' : `${res.status} ${answer.title ?? ''}`;
  } catch (error) {
    return `no answer (${(error as Error).message})`;
  }
}

/**
 * Sends `jpegs` at once to `server` (a fresh one) after one small untimed upload (`warmUp`), as
 * the module's comment says.
 */
export async function measureParallelUploads(
  server: RunningServer,
  store: string,
  token: string,
  warmUp: Uint8Array,
  jpegs: readonly Uint8Array[],
): Promise<ParallelRun> {
  const first = await send(server.baseUrl, token, warmUp, false);
  if (first !== '201') throw new Error(`warm-up POST /media answered ${first}`);
  // The same poller while the server is idle: what the machine's own load costs /healthz.
  const idlePoller = pollHealthz(`${server.baseUrl}/healthz`);
  await new Promise((r) => setTimeout(r, 3000));
  const idleTimes = await idlePoller.stop();
  const idleMiB = rssMiB(server.pid);
  const reset = resetPeak(server.pid);
  let sampled = idleMiB ?? 0;
  const sampler = setInterval(() => (sampled = Math.max(sampled, rssMiB(server.pid) ?? 0)), 10);
  const poller = pollHealthz(`${server.baseUrl}/healthz`);
  const t0 = performance.now();
  const answers = await Promise.all(jpegs.map((jpeg, i) => send(server.baseUrl, token, jpeg, i % 2 === 1)));
  const seconds = (performance.now() - t0) / 1000;
  const times = await poller.stop();
  clearInterval(sampler);
  const hwm = reset ? hwmMiB(server.pid) : null;
  await new Promise((r) => setTimeout(r, SETTLE_SECONDS * 1000));
  const statuses: Record<string, number> = {};
  for (const answer of answers) statuses[answer] = (statuses[answer] ?? 0) + 1;
  return {
    store,
    uploads: answers.length,
    statuses,
    uploadMiB: jpegs.reduce((n, j) => n + j.byteLength, 0) / jpegs.length / MiB,
    seconds,
    idleMiB,
    peakMiB: Math.max(sampled, hwm ?? 0),
    afterMiB: rssMiB(server.pid),
    healthzWorstMs: Math.max(...times),
    healthzPolls: times.length,
    healthzIdleWorstMs: Math.max(...idleTimes),
  };
}

/** The JPEGs of one run: a small warm-up and `PARALLEL_UPLOADS` distinct ~15 MB ones (`offset` keeps runs apart). */
export async function parallelJpegs(offset: number): Promise<{ warmUp: Uint8Array; jpegs: Uint8Array[] }> {
  const [warmUp] = await distinctJpegs(1, { width: 800 + offset, height: 600, amplitude: 24, quality: 90 });
  const jpegs = await distinctJpegs(PARALLEL_UPLOADS, quick ? QUICK_JPEG : PARALLEL_JPEG, offset * PARALLEL_UPLOADS);
  return { warmUp: warmUp!, jpegs: quick ? jpegs.map((jpeg) => padded(jpeg, QUICK_PADDING_BYTES)) : jpegs };
}

/** `jpeg` with about `bytes` more in APP15 segments right after its SOI marker. */
function padded(jpeg: Uint8Array, bytes: number): Uint8Array {
  const segment = 0xffff - 2; // the most data one segment holds
  const count = Math.ceil(bytes / segment);
  const out = new Uint8Array(jpeg.byteLength + count * (segment + 4));
  out.set(jpeg.subarray(0, 2));
  let at = 2;
  for (let i = 0; i < count; i += 1) {
    out.set([0xff, 0xef, 0xff, 0xff], at); // APP15, length 65535 (its two bytes included)
    out.fill(i % 251, at + 4, at + 4 + segment);
    at += segment + 4;
  }
  out.set(jpeg.subarray(2), at);
  return out;
}

/** The run as one report line, with each target `met` or `NOT met`. */
export function parallelLine(r: ParallelRun): string {
  const other = Object.entries(r.statuses)
    .filter(([status]) => status !== '201')
    .map(([status, n]) => `${n} × ${status}`);
  const over = r.peakMiB !== null && r.idleMiB !== null ? r.peakMiB - r.idleMiB : null;
  const rssMet = over !== null && over <= PARALLEL_TARGETS.rssOverIdleMiB;
  const healthzMet = r.healthzWorstMs <= PARALLEL_TARGETS.healthzMs;
  return (
    `${r.store}: ${r.statuses['201'] ?? 0} of ${r.uploads} answered 201${other.length > 0 ? ` (${other.join(', ')})` : ''} in ` +
    `${fmt(r.seconds, 1)} s; RSS idle ${fmt(r.idleMiB)} MiB, **peak ${fmt(r.peakMiB)} MiB (+${fmt(over)})**, ` +
    `${SETTLE_SECONDS} s after ${fmt(r.afterMiB)} MiB; **/healthz worst ${fmt(r.healthzWorstMs)} ms** (${r.healthzPolls} polls; idle just before: ` +
    `${fmt(r.healthzIdleWorstMs)} ms). ` +
    `Targets: peak ≤ idle + ${PARALLEL_TARGETS.rssOverIdleMiB} MiB ${rssMet ? 'met' : 'NOT met'}, ` +
    `/healthz ≤ ${PARALLEL_TARGETS.healthzMs} ms ${healthzMet ? 'met' : 'NOT met'}`
  );
}
