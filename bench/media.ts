/**
 * The image line of `make bench` (#31): the files `media-get` serves, and the two runs that are
 * not a fixed-time load (`media-upload`: uploads per second of distinct ~4 MB JPEGs;
 * `media-rss`: the server's peak RSS while ten ~20 MiB uploads are processed at once).
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { quick } from './env.js';
import { peakRssMiB, rssMiB } from './measure.js';
import { median } from './report.js';
import type { RunningServer } from './servers.js';

const MiB = 1024 * 1024;

export interface JpegShape {
  width: number;
  height: number;
  /** Noise amplitude added to a gradient (0-255): the larger, the larger the file. */
  amplitude: number;
  quality: number;
  /** JPEG chroma subsampling (sharp's default, 4:2:0, unless given). */
  chroma?: '4:4:4' | '4:2:0';
}

/** A phone photo's size: 12 MP at quality 90, about 4 MB (quick: 2 MP). */
export const UPLOAD_JPEG: JpegShape = quick
  ? { width: 1600, height: 1200, amplitude: 48, quality: 90 }
  : { width: 4000, height: 3000, amplitude: 48, quality: 90 };
/** Just under MEDIA_MAX_BYTES (20 MiB): 20 MP at quality 100 (quick: 2 MP). */
export const RSS_JPEG: JpegShape = quick
  ? { width: 1600, height: 1200, amplitude: 56, quality: 100 }
  : { width: 5000, height: 4000, amplitude: 56, quality: 100 };

/**
 * `count` JPEGs of one shape that differ in their pixels (each has a few pixels of its own), so
 * that none is answered by the deduplication (an upload whose bytes, or whose re-encoded
 * original, are stored already answers 200 without being processed).
 */
export async function distinctJpegs(count: number, shape: JpegShape, first = 0): Promise<Uint8Array[]> {
  const { width, height, amplitude, quality, chroma = '4:2:0' } = shape;
  // A left-to-right gradient plus noise: JPEG sizes of a photo rather than of a flat colour.
  const pixels = randomBytes(width * height * 3);
  for (let i = 0; i < pixels.length; i += 1) {
    const x = Math.floor(i / 3) % width;
    pixels[i] = 60 + Math.floor((x * 120) / width) + (pixels[i]! % amplitude);
  }
  const jpegs: Uint8Array[] = [];
  for (let n = first; n < first + count; n += 1) {
    // A 16-pixel band of its own per image, where the next image's differs.
    pixels.fill(n % 256, 0, 48);
    pixels.fill((n >> 8) % 256, 48, 96);
    const jpeg = await sharp(pixels, { raw: { width, height, channels: 3 } })
      .jpeg({ quality, chromaSubsampling: chroma })
      .toBuffer();
    jpegs.push(new Uint8Array(jpeg));
  }
  return jpegs;
}

interface Uploaded {
  status: number;
  ms: number;
  body: { id?: string; variants?: { width: number; contentType: string; url: string; bytes: number }[] };
}

async function upload(baseUrl: string, token: string, bytes: Uint8Array): Promise<Uploaded> {
  const t0 = performance.now();
  const res = await fetch(`${baseUrl}/media`, {
    method: 'POST',
    headers: { 'content-type': 'image/jpeg', authorization: `Bearer ${token}` },
    body: bytes,
  });
  const body = (await res.json()) as Uploaded['body'];
  return { status: res.status, ms: performance.now() - t0, body };
}

export interface MediaFile {
  /** The Content API path of the file (`/api/v1/content/media/<id>/<name>`). */
  path: string;
  bytes: Uint8Array;
}

/**
 * Uploads one 2400 × 1600 photo-like JPEG and answers its variant nearest 100 KB, its bytes as
 * served. With `floorDir`, writes them to `<floorDir>/<id>/<name>` for the floor's `serveStatic`.
 */
export async function storeServedFile(baseUrl: string, token: string, floorDir?: string): Promise<MediaFile> {
  const [jpeg] = await distinctJpegs(1, { width: 2400, height: 1600, amplitude: 24, quality: 90 });
  const answer = await upload(baseUrl, token, jpeg!);
  if (answer.status !== 201 || !answer.body.variants?.length) {
    throw new Error(`POST /media answered ${answer.status}: ${JSON.stringify(answer.body).slice(0, 300)}`);
  }
  const nearest = [...answer.body.variants].sort((a, b) => Math.abs(a.bytes - 100_000) - Math.abs(b.bytes - 100_000))[0]!;
  const path = new URL(nearest.url).pathname;
  const res = await fetch(new URL(path, baseUrl));
  const bytes = new Uint8Array(await res.arrayBuffer());
  if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}`);
  if (floorDir !== undefined) {
    const [, , , , , id, name] = path.split('/');
    mkdirSync(join(floorDir, id!), { recursive: true });
    writeFileSync(join(floorDir, id!, name!), bytes);
  }
  return { path, bytes };
}

export interface UploadRun {
  uploads: number;
  created: number;
  /** Answers other than 201 (a 200 is a deduplicated upload: not processed, so not counted). */
  failed: number;
  /** Answers by status, with the title of each problem answered. */
  statuses: Record<string, number>;
  seconds: number;
  perSec: number;
  p50Ms: number;
  maxMs: number;
  megabytes: number;
  peakRssMiB: number | null;
}

/**
 * Uploads `jpegs` through `parallel` clients, each taking the next one when its last is answered,
 * after one untimed warm-up upload (`warmUp`, distinct from them). Uploads per second is the
 * number of 201s over the time from the first request to the last answer.
 */
export async function runUploads(
  server: RunningServer,
  token: string,
  warmUp: Uint8Array,
  jpegs: readonly Uint8Array[],
  parallel: number,
): Promise<UploadRun> {
  const first = await upload(server.baseUrl, token, warmUp);
  if (first.status !== 201) throw new Error(`warm-up POST /media answered ${first.status}`);
  const answers: Uploaded[] = [];
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < jpegs.length) answers.push(await upload(server.baseUrl, token, jpegs[next++]!));
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  const created = answers.filter((a) => a.status === 201).length;
  const times = answers.map((a) => a.ms);
  const statuses: Record<string, number> = {};
  for (const a of answers) {
    const label = a.status === 201 ? '201' : `${a.status} ${String((a.body as { title?: unknown }).title ?? '')}`;
    statuses[label] = (statuses[label] ?? 0) + 1;
  }
  return {
    uploads: answers.length,
    created,
    failed: answers.length - created,
    statuses,
    seconds,
    perSec: created / seconds,
    p50Ms: median(times),
    maxMs: Math.max(...times),
    megabytes: jpegs.reduce((n, j) => n + j.byteLength, 0) / jpegs.length / MiB,
    peakRssMiB: server.peakRssMiB(),
  };
}

export interface RssRun {
  uploads: number;
  created: number;
  uploadMiB: number;
  beforeMiB: number | null;
  /** VmHWM after the ten answers: the process's peak, start included. */
  peakMiB: number | null;
  seconds: number;
}

/** Sends every one of `jpegs` at once to a fresh server and reads its peak RSS when all are answered. */
export async function measureUploadRss(server: RunningServer, token: string, jpegs: readonly Uint8Array[]): Promise<RssRun> {
  const beforeMiB = rssMiB(server.pid);
  const t0 = performance.now();
  const answers = await Promise.all(jpegs.map((jpeg) => upload(server.baseUrl, token, jpeg)));
  const seconds = (performance.now() - t0) / 1000;
  return {
    uploads: answers.length,
    created: answers.filter((a) => a.status === 201).length,
    uploadMiB: jpegs.reduce((n, j) => n + j.byteLength, 0) / jpegs.length / MiB,
    beforeMiB,
    peakMiB: peakRssMiB(server.pid),
    seconds,
  };
}
