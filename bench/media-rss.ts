/**
 * Peak resident memory while ten ~20 MiB JPEG uploads are processed at once (#31: "ten parallel
 * 20 MiB uploads keep the process under a stated RSS").
 *
 * Makes one noise JPEG of BENCH_MEDIA_WIDTH × BENCH_MEDIA_HEIGHT (5000 × 4000) at quality 100 (just
 * under 20 MiB) in a temporary file, then, for each concurrency of BENCH_MEDIA_CONCURRENCY (1,2,4),
 * starts a fresh process that reads it, holds ten copies (ten uploads in memory, as a server holds
 * their bodies), hands all ten to one processor at once and prints its RSS before, its peak (sampled
 * every 10 ms and getrusage's maxrss) and the time taken. Run: `npx tsx bench/media-rss.ts`.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { createSharpImageProcessor } from '../src/adapters/images/sharp-image-processor.js';
import { envNumber } from './env.js';

const UPLOADS = 10;
const MiB = 1024 * 1024;

async function makeJpeg(path: string): Promise<void> {
  const width = Math.floor(envNumber('BENCH_MEDIA_WIDTH', 5000));
  const height = Math.floor(envNumber('BENCH_MEDIA_HEIGHT', 4000));
  const noise = { type: 'gaussian' as const, mean: 128, sigma: envNumber('BENCH_MEDIA_SIGMA', 19) };
  const background = '#000';
  await sharp({ create: { width, height, channels: 3, noise, background } })
    .jpeg({ quality: 100 })
    .toFile(path);
}

/** The measuring child: one processor, ten uploads at once. */
async function measure(path: string, concurrency: number): Promise<void> {
  const file = readFileSync(path);
  const uploads = Array.from({ length: UPLOADS }, () => new Uint8Array(Buffer.from(file)));
  const processor = createSharpImageProcessor({ maxBytes: 20 * MiB, maxPixels: 50_000_000, concurrency });
  global.gc?.();
  const before = process.memoryUsage.rss();
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 10);
  const started = performance.now();
  const results = await Promise.all(uploads.map((bytes) => processor.process(bytes)));
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  const maxrss = process.resourceUsage().maxRSS * 1024;
  const files = results[0]!.variants.length + 1;
  console.log(
    JSON.stringify({
      concurrency,
      beforeMiB: mib(before),
      sampledPeakMiB: mib(peak),
      maxrssMiB: mib(maxrss),
      seconds: +seconds.toFixed(1),
      files,
    }),
  );
}

const mib = (bytes: number): number => Math.round(bytes / MiB);

async function main(): Promise<void> {
  const [, , role, path, concurrency] = process.argv;
  if (role === 'measure') return measure(path!, Number(concurrency));
  const dir = mkdtempSync(join(tmpdir(), 'media-rss-'));
  try {
    const jpeg = join(dir, 'noise.jpg');
    await makeJpeg(jpeg);
    console.log(`one upload: ${(statSync(jpeg).size / MiB).toFixed(1)} MiB JPEG; ${UPLOADS} at once`);
    const levels = (process.env.BENCH_MEDIA_CONCURRENCY ?? '1,2,4').split(',').map(Number);
    for (const level of levels) {
      const self = fileURLToPath(import.meta.url);
      const out = execFileSync(process.execPath, [...process.execArgv, '--expose-gc', self, 'measure', jpeg, String(level)], {
        encoding: 'utf8',
      });
      process.stdout.write(out);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
