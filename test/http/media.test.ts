import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import type { components } from '../../generated/api.js';
import { serveApp } from '../../src/adapters/http/node-server.js';
import { createSharpImageProcessor } from '../../src/adapters/images/sharp-image-processor.js';
import { createMemoryStore } from '../../src/adapters/memory/store.js';
import { FixedClock, type ImageProcessor, type StagedBytes } from '../../src/domain/index.js';
import { json, url } from '../support/http.js';
import { describeOnEveryStore } from '../support/stores.js';
import { expectProblem, peek, setup } from './helpers.js';

type ApiMedia = components['schemas']['Media'];

const FILE_PATH = /^http:\/\/localhost\/api\/v1\/content\/media\/([a-z2-7]{26})\/([a-z0-9.]+)$/;

/** A flat-coloured PNG: small on the wire, whatever its size in pixels. */
async function png(width: number, height: number, colour = { r: 40, g: 120, b: 200 }): Promise<Uint8Array> {
  return new Uint8Array(
    await sharp({ create: { width, height, channels: 3, background: colour } })
      .png()
      .toBuffer(),
  );
}

/** A PNG of noise, so that a cut removes real image data. */
async function noisyPng(width: number, height: number): Promise<Uint8Array> {
  const image = sharp({ create: { width, height, channels: 3, background: 'black', noise: { type: 'gaussian', mean: 128, sigma: 40 } } });
  return new Uint8Array(await image.png().toBuffer());
}

/** What a phone writes: taken sideways (EXIF orientation 6), its maker and model, and where (GPS). */
async function phoneJpeg(): Promise<Uint8Array> {
  const image = sharp({
    create: { width: 800, height: 600, channels: 3, background: 'black', noise: { type: 'gaussian', mean: 128, sigma: 30 } },
  })
    .withExif({
      IFD0: { Make: 'AcmePhones', Model: 'Pocket 9' },
      IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '48/1 51/1 2405/100', GPSLongitudeRef: 'E', GPSLongitude: '2/1 21/1 702/100' },
    })
    .withMetadata({ orientation: 6 })
    .jpeg({ quality: 85 });
  return new Uint8Array(await image.toBuffer());
}

/**
 * A decompression bomb: a PNG whose header declares 10,000 × 10,000 pixels (300 MB once decoded)
 * and whose data, all zeros, deflates to about 300 KB.
 */
let bomb: Uint8Array | undefined;
function bombPng(): Uint8Array {
  bomb ??= makeBombPng(10_000);
  return bomb;
}

function makeBombPng(side: number): Uint8Array {
  const chunk = (type: string, data: Buffer) => {
    const head = Buffer.alloc(4);
    head.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([head, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(side, 0);
  ihdr.writeUInt32BE(side, 4);
  ihdr.set([8, 2, 0, 0, 0], 8); // 8-bit RGB, no interlace
  const rows = deflateSync(Buffer.alloc((side * 3 + 1) * side), { level: 9 });
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return new Uint8Array(Buffer.concat([signature, chunk('IHDR', ihdr), chunk('IDAT', rows), chunk('IEND', Buffer.alloc(0))]));
}

function includes(haystack: Uint8Array, needle: Uint8Array | string): boolean {
  return Buffer.from(haystack).includes(typeof needle === 'string' ? Buffer.from(needle, 'latin1') : Buffer.from(needle));
}

const MEDIA_MAX_BYTES = 20 * 1024 * 1024;
const BOUNDARY = 'margin-test-boundary';

/** A folder of the test's own where uploads are staged, removed after `use`. */
async function withUploadDir(use: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'margin-media-test-'));
  try {
    await use(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** A body of `head` then zeros, `bytes` in all, after which it stalls: it never ends. */
function stalledBody(head: Uint8Array, bytes: number): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent >= bytes) return new Promise<void>(() => undefined);
      const chunk = sent === 0 ? head : new Uint8Array(Math.min(1024 * 1024, bytes - sent));
      controller.enqueue(chunk);
      sent += chunk.byteLength;
      return undefined;
    },
  });
}

/** The head of a `multipart/form-data` body's part (BOUNDARY), a file part when `fileName` is given. */
function partHead(name: string, fileName?: string): Uint8Array {
  const file = fileName === undefined ? '' : `; filename="${fileName}"\r\nContent-Type: image/png`;
  return new TextEncoder().encode(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"${file}\r\n\r\n`);
}

/** `promise`, or a failure naming the wait after `ms`. */
function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  return Promise.race([promise, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms))]);
}

/** Resolves once `check` holds (polled every 10 ms, at most 10 s). */
async function eventually(check: () => boolean): Promise<void> {
  for (let i = 0; !check(); i += 1) {
    if (i > 1000) throw new Error('never happened');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** sharp with the default limits, counting the uploads it is given. */
function countingImages(): ImageProcessor & { uploads: unknown[] } {
  const images = createSharpImageProcessor({ maxBytes: MEDIA_MAX_BYTES, maxPixels: 50_000_000, concurrency: 1 });
  const counting = {
    uploads: [] as unknown[],
    process: (upload: Parameters<ImageProcessor['process']>[0]) => {
      counting.uploads.push(upload);
      return images.process(upload);
    },
    inspect: (bytes: Uint8Array) => images.inspect(bytes),
  };
  return counting;
}

async function mediaSetup(make: Parameters<typeof setup>[0], options: Parameters<typeof setup>[1] = {}) {
  const t = await setup(make, options);

  /** POST /media with the raw bytes (as `type`) and the query, as the admin. */
  function upload(bytes: Uint8Array, type = 'image/png', query = '', headers: Record<string, string> = {}): Promise<Response> {
    return t.fetch(url(`/media${query}`), { method: 'POST', headers: { ...t.auth, 'content-type': type, ...headers }, body: bytes });
  }

  async function uploaded(bytes: Uint8Array, type = 'image/png', query = ''): Promise<ApiMedia> {
    const response = await upload(bytes, type, query);
    expect(response.status, await peek(response)).toBe(201);
    return (await response.json()) as ApiMedia;
  }

  /** GET of a public file URL, without a token. */
  function file(fileUrl: string, headers: Record<string, string> = {}): Promise<Response> {
    const [, id, name] = FILE_PATH.exec(fileUrl) ?? [];
    expect(id, fileUrl).toBeDefined();
    return t.fetch(url(`/content/media/${id}/${name}`), { headers });
  }

  /** The ids in the library's first page. */
  async function library(): Promise<string[]> {
    const response = await t.fetch(url('/media?limit=100'), { headers: t.auth });
    expect(response.status).toBe(200);
    return ((await response.json()) as components['schemas']['MediaPage']).items.map((m) => m.id);
  }

  return { ...t, upload, uploaded, file, library };
}

function expectPublicFileHeaders(response: Response, contentType: string, sha256?: string) {
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe(contentType);
  expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  expect(response.headers.get('content-security-policy')).toMatch(/^default-src 'none'/);
  expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
  expect(response.headers.get('access-control-allow-origin')).toBe('*');
  expect(response.headers.get('etag')).toMatch(/^"[0-9a-f]{64}"$/);
  if (sha256 !== undefined) expect(response.headers.get('etag')).toBe(`"${sha256}"`);
}

describeOnEveryStore('media', (make) => {
  describe('media URLs', () => {
    let colour = 0;
    /** A media (another image each time) uploaded over `origin`, with `headers`. */
    async function uploadedOver(t: Awaited<ReturnType<typeof mediaSetup>>, origin: string, headers: Record<string, string> = {}) {
      const response = await t.fetch(`${origin}/api/v1/media?alt=Sea`, {
        method: 'POST',
        headers: { ...t.auth, 'content-type': 'image/png', ...headers },
        body: await png(400, 200, { r: 10 * ++colour, g: 120, b: 200 }),
      });
      expect(response.status, await peek(response)).toBe(201);
      return (await response.json()) as ApiMedia;
    }

    it('without PUBLIC_API_URL start at the origin the request named (its Host), for the library, a cover, a post of the Content API and a preview link', async () => {
      const t = await mediaSetup(make, { content: { apiUrl: null } });
      const origin = 'http://cms.example.net:8443';
      const media = await uploadedOver(t, origin);
      expect(media.url).toBe(`${origin}/api/v1/content/media/${media.id}/original.png`);
      expect(media.variants.every((variant) => variant.url.startsWith(`${origin}/api/v1/content/media/${media.id}/`))).toBe(true);
      const listed = await t.fetch(`http://other.example.org/api/v1/media`, { headers: t.auth });
      expect(((await listed.json()) as { items: ApiMedia[] }).items[0]?.url).toBe(
        `http://other.example.org/api/v1/content/media/${media.id}/original.png`,
      );

      const post = await t.create({ title: 'Sea', status: 'published', coverImage: { mediaId: media.id } });
      const content = await t.fetch(`${origin}/api/v1/content/posts/${post.id}?include=html`);
      const body = (await content.json()) as { coverImage: { url: string } };
      expect(body.coverImage.url).toBe(`${origin}/api/v1/content/media/${media.id}/original.png`);
      const elsewhere = await t.fetch(`http://other.example.org/api/v1/content/posts/${post.id}?include=html`);
      expect(((await elsewhere.json()) as typeof body).coverImage.url).toBe(
        `http://other.example.org/api/v1/content/media/${media.id}/original.png`,
      );
      // Other bytes, another ETag: a cache keyed by the URL never mixes the two.
      expect(elsewhere.headers.get('etag')).not.toBe(content.headers.get('etag'));

      const link = await t.fetch(`${origin}/api/v1/posts/${post.id}/preview-links`, {
        method: 'POST',
        headers: { ...t.auth, 'content-type': 'application/json' },
        body: '{}',
      });
      expect(((await link.json()) as { url: string }).url).toMatch(new RegExp(`^${origin}/api/v1/content/preview/[A-Za-z0-9_-]{43}$`));
    });

    it('with TRUST_PROXY take the scheme from the last X-Forwarded-Proto the proxy set and the host from Host, never from X-Forwarded-Host (which a client can send and no cache keys by); without it neither is read', async () => {
      const forwarded = { 'x-forwarded-proto': 'http, https', 'x-forwarded-host': 'evil.example' };
      const proxied = await mediaSetup(make, { content: { apiUrl: null }, trustProxy: true });
      const media = await uploadedOver(proxied, 'http://blog.example.com', forwarded);
      expect(media.url).toBe(`https://blog.example.com/api/v1/content/media/${media.id}/original.png`);
      const bad = await uploadedOver(proxied, 'http://10.0.0.5:8080', { 'x-forwarded-proto': 'gopher' });
      expect(bad.url).toBe(`http://10.0.0.5:8080/api/v1/content/media/${bad.id}/original.png`);

      const direct = await mediaSetup(make, { content: { apiUrl: null } });
      const own = await uploadedOver(direct, 'http://10.0.0.5:8080', forwarded);
      expect(own.url).toBe(`http://10.0.0.5:8080/api/v1/content/media/${own.id}/original.png`);
    });

    it('with PUBLIC_API_URL start there, whatever the request named', async () => {
      const t = await mediaSetup(make, { content: { apiUrl: 'https://api.example.com' }, trustProxy: true });
      const media = await uploadedOver(t, 'http://10.0.0.5:8080', { 'x-forwarded-host': 'blog.example.com' });
      expect(media.url).toBe(`https://api.example.com/api/v1/content/media/${media.id}/original.png`);
    });
  });

  describe('uploadMedia', () => {
    it('answers 201 with Location for a 2000 px wide PNG, with WebP and PNG variants at each width below it, and alt and caption from the query', async () => {
      const t = await mediaSetup(make);
      const bytes = await png(2000, 1000);
      const response = await t.upload(bytes, 'image/png', '?alt=A%20blue%20field&caption=Sky');
      expect(response.status, await peek(response)).toBe(201);
      const media = (await response.json()) as ApiMedia;
      expect(response.headers.get('location')).toBe(`/api/v1/media/${media.id}`);
      expect(media).toMatchObject({ contentType: 'image/png', width: 2000, height: 1000, alt: 'A blue field', caption: 'Sky' });
      expect(media.id).toMatch(/^[a-z2-7]{26}$/);
      expect(media.url).toBe(`http://localhost/api/v1/content/media/${media.id}/original.png`);
      expect(media.variants.map((v) => `${v.width} ${v.contentType}`)).toEqual([
        '320 image/png',
        '320 image/webp',
        '640 image/png',
        '640 image/webp',
        '1024 image/png',
        '1024 image/webp',
        '1600 image/png',
        '1600 image/webp',
      ]);
      for (const variant of media.variants) {
        expect(variant.width).toBeLessThan(media.width);
        expect(variant.height).toBe(Math.round((1000 * variant.width) / 2000));
        expect(variant.url).toBe(`http://localhost/api/v1/content/media/${media.id}/${variant.width}.${variant.contentType.slice(6)}`);
      }
      const got = await t.fetch(url(`/media/${media.id}`), { headers: t.auth });
      expect(await got.json()).toEqual(media);
    });

    it('serves the original and every variant to anyone without a token: the stored type, nosniff, CSP, immutable caching and the SHA-256 as ETag', async () => {
      const t = await mediaSetup(make);
      const bytes = await png(700, 350);
      const media = await t.uploaded(bytes);
      const original = await t.file(media.url);
      expectPublicFileHeaders(original, 'image/png', media.sha256);
      // A flat PNG with no metadata is served byte for byte as uploaded.
      expect(new Uint8Array(await original.arrayBuffer())).toEqual(bytes);
      expect(media.variants).toHaveLength(4);
      for (const variant of media.variants) {
        const response = await t.file(variant.url);
        expectPublicFileHeaders(response, variant.contentType);
        const served = new Uint8Array(await response.arrayBuffer());
        expect(served.byteLength).toBe(variant.bytes);
        const meta = await sharp(served).metadata();
        expect({ format: meta.format, width: meta.width }).toEqual({ format: variant.contentType.slice(6), width: variant.width });
      }
    });

    it('answers 304 with the ETag and no body when If-None-Match names the file, and 200 for another tag', async () => {
      const t = await mediaSetup(make);
      const media = await t.uploaded(await png(400, 300));
      const notModified = await t.file(media.url, { 'if-none-match': `"${media.sha256}"` });
      expect(notModified.status).toBe(304);
      expect(notModified.headers.get('etag')).toBe(`"${media.sha256}"`);
      expect(notModified.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(await notModified.text()).toBe('');
      expect((await t.file(media.url, { 'if-none-match': `W/"${media.sha256}", "x"` })).status).toBe(304);
      expect((await t.file(media.url, { 'if-none-match': `"${'0'.repeat(64)}"` })).status).toBe(200);
    });

    it('serves a phone JPEG without its EXIF, GPS or maker, turned as it was taken', async () => {
      const t = await mediaSetup(make);
      const bytes = await phoneJpeg();
      expect((await sharp(bytes).metadata()).exif).toBeDefined();
      const media = await t.uploaded(bytes, 'image/jpeg');
      // Orientation 6: the 800 × 600 sensor image stands upright, 600 × 800.
      expect(media).toMatchObject({ contentType: 'image/jpeg', width: 600, height: 800 });
      const response = await t.file(media.url);
      expectPublicFileHeaders(response, 'image/jpeg', media.sha256);
      const served = new Uint8Array(await response.arrayBuffer());
      const meta = await sharp(served).metadata();
      expect(meta.exif).toBeUndefined();
      expect(meta.orientation ?? 1).toBe(1);
      expect({ width: meta.width, height: meta.height }).toEqual({ width: 600, height: 800 });
      expect(includes(served, 'Exif\u0000\u0000')).toBe(false);
      expect(includes(served, 'AcmePhones')).toBe(false);
      // The latitude's seconds, 2405/100, as the rational EXIF stores (big- or little-endian).
      expect(includes(served, Uint8Array.from([0, 0, 0x09, 0x65, 0, 0, 0, 0x64]))).toBe(false);
      expect(includes(served, Uint8Array.from([0x65, 0x09, 0, 0, 0x64, 0, 0, 0]))).toBe(false);
      for (const variant of media.variants) {
        const v = new Uint8Array(await (await t.file(variant.url)).arrayBuffer());
        expect((await sharp(v).metadata()).exif, variant.url).toBeUndefined();
      }
    });

    it('answers an identical upload 200 with the same media, its first alt kept, and no Location', async () => {
      const t = await mediaSetup(make);
      const bytes = await png(500, 500);
      const first = await t.uploaded(bytes, 'image/png', '?alt=First');
      const again = await t.upload(bytes, 'image/png', '?alt=Second');
      expect(again.status).toBe(200);
      expect(again.headers.get('location')).toBeNull();
      expect(await again.json()).toEqual(first);
    });

    it('takes a multipart/form-data form with the file part and the alt and caption parts', async () => {
      const t = await mediaSetup(make);
      const form = new FormData();
      form.set('file', new Blob([await png(300, 200)], { type: 'application/octet-stream' }), 'whatever.svg');
      form.set('alt', 'From a form');
      form.set('caption', 'Caption part');
      const response = await t.fetch(url('/media'), { method: 'POST', headers: t.auth, body: form });
      expect(response.status, await peek(response)).toBe(201);
      expect(await response.json()).toMatchObject({ contentType: 'image/png', width: 300, alt: 'From a form', caption: 'Caption part' });
    });

    it('answers 400 for a form without a file part and for a body that is not the multipart it says', async () => {
      const t = await mediaSetup(make);
      const form = new FormData();
      form.set('alt', 'No file');
      await expectProblem(await t.fetch(url('/media'), { method: 'POST', headers: t.auth, body: form }), 400, 'malformed-request');
      const broken = await t.upload(new TextEncoder().encode('--nope\r\nnot a part'), 'multipart/form-data; boundary=other');
      await expectProblem(broken, 400, 'malformed-request');
    });

    it('answers 415 for SVG, whether declared as SVG or as PNG, for garbage, and for a type that is not an image', async () => {
      const t = await mediaSetup(make);
      const svg = new TextEncoder().encode(
        '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><rect width="10" height="10"/></svg>',
      );
      await expectProblem(await t.upload(svg, 'image/svg+xml'), 415, 'unsupported-media-type');
      await expectProblem(await t.upload(svg, 'image/png'), 415, 'unsupported-media-type');
      const garbage = Uint8Array.from({ length: 4096 }, (_, i) => (i * 7919) % 251);
      await expectProblem(await t.upload(garbage, 'image/jpeg'), 415, 'unsupported-media-type');
      await expectProblem(await t.upload(await png(10, 10), 'application/octet-stream'), 415, 'unsupported-media-type');
      await expectProblem(await t.upload(await png(10, 10), 'application/json'), 415, 'unsupported-media-type');
      expect(await t.library()).toEqual([]);
    });

    it('refuses a 10,000 × 10,000 PNG with a 422 media-refused too-many-pixels before decoding it', async () => {
      const t = await mediaSetup(make);
      const bomb = bombPng();
      expect(bomb.byteLength).toBeLessThan(1024 * 1024);
      const problem = await expectProblem(await t.upload(bomb), 422, 'media-refused');
      expect(problem.reason).toBe('too-many-pixels');
    });

    it('refuses a truncated PNG with a 422 media-refused unreadable', async () => {
      const t = await mediaSetup(make);
      const whole = await noisyPng(200, 200);
      const problem = await expectProblem(await t.upload(whole.slice(0, Math.floor(whole.length * 0.6))), 422, 'media-refused');
      expect(problem.reason).toBe('unreadable');
    });

    it('answers 413 for an image over MEDIA_MAX_BYTES (20 MiB), streamed or just over the limit, and stores nothing', async () => {
      const t = await mediaSetup(make);
      const huge = new Uint8Array(21 * 1024 * 1024);
      huge.set(await png(10, 10));
      await expectProblem(await t.upload(huge), 413, 'payload-too-large');
      // Within the body limit (which leaves room for a form), but over the image limit.
      const over = new Uint8Array(20 * 1024 * 1024 + 1);
      over.set(await png(10, 10));
      await expectProblem(await t.upload(over), 413, 'payload-too-large');
      const chunks = [huge.subarray(0, 8 * 1024 * 1024), huge.subarray(8 * 1024 * 1024)];
      const stream = new ReadableStream<Uint8Array>({
        pull(controller) {
          const next = chunks.shift();
          if (next === undefined) controller.close();
          else controller.enqueue(next);
        },
      });
      const streamed = await t.fetch(url('/media'), {
        method: 'POST',
        headers: { ...t.auth, 'content-type': 'image/png' },
        body: stream,
        duplex: 'half',
      } as RequestInit);
      await expectProblem(streamed, 413, 'payload-too-large');
      expect(await t.library()).toEqual([]);
    });

    it('answers 413 at the first byte of an image past MEDIA_MAX_BYTES as it streams in, raw or a form part, without waiting for the rest; stores nothing and leaves no file', async () => {
      await withUploadDir(async (dir) => {
        const t = await mediaSetup(make, { uploadDir: dir });
        const head = await png(10, 10);
        // Each body stalls one byte past the limit (within the body limit, which leaves 64 KiB for
        // a form): only an upload refused as it streams is answered at all.
        const raw = t.fetch(url('/media'), {
          method: 'POST',
          headers: { ...t.auth, 'content-type': 'image/png' },
          body: stalledBody(head, MEDIA_MAX_BYTES + 1),
          duplex: 'half',
        } as RequestInit);
        const rawProblem = await expectProblem(await within(raw, 20_000), 413, 'payload-too-large');
        expect(rawProblem.detail).toBe(`The image is larger than ${MEDIA_MAX_BYTES} bytes.`);
        // The parser holds back what could be the start of the next boundary (its length and a few bytes).
        const part = partHead('file', 'big.png');
        const heldBack = BOUNDARY.length + 8;
        const form = t.fetch(url('/media'), {
          method: 'POST',
          headers: { ...t.auth, 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
          body: stalledBody(Buffer.concat([part, head]), part.byteLength + MEDIA_MAX_BYTES + 1 + heldBack),
          duplex: 'half',
        } as RequestInit);
        const formProblem = await expectProblem(await within(form, 20_000), 413, 'payload-too-large');
        expect(formProblem.detail).toBe(`The image is larger than ${MEDIA_MAX_BYTES} bytes.`);
        expect(await t.library()).toEqual([]);
        expect(await readdir(dir)).toEqual([]);
      });
    });

    it('stages an upload in a file of the upload folder, hashed as it arrived, while it waits its turn to be decoded, and removes it once answered', async () => {
      await withUploadDir(async (dir) => {
        let turn!: () => void;
        const theirTurn = new Promise<void>((resolve) => (turn = resolve));
        const seen: { upload: unknown; files: string[] }[] = [];
        const sharpImages = countingImages();
        const images: ImageProcessor = {
          async process(upload) {
            seen.push({ upload, files: await readdir(dir) });
            await theirTurn;
            return sharpImages.process(upload);
          },
          inspect: (bytes) => sharpImages.inspect(bytes),
        };
        const t = await mediaSetup(make, { uploadDir: dir, images });
        const bytes = await png(300, 200);
        const answer = t.upload(bytes);
        await eventually(() => seen.length === 1);
        const { upload, files } = seen[0]!;
        expect(upload).not.toBeInstanceOf(Uint8Array);
        expect((upload as StagedBytes).sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
        expect((upload as StagedBytes).byteLength).toBe(bytes.byteLength);
        expect(files).toEqual([expect.stringMatching(/^margin-upload-/)]);
        expect(new Uint8Array(await readFile(join(dir, files[0]!)))).toEqual(bytes);
        turn();
        expect((await answer).status).toBe(201);
        expect(await readdir(dir)).toEqual([]);
      });
    });

    it('finds a repeated upload, raw or as a form, by the hash taken as it arrived: 200 with the same media, not decoded again, no file left', async () => {
      await withUploadDir(async (dir) => {
        const images = countingImages();
        const t = await mediaSetup(make, { uploadDir: dir, images });
        const bytes = await png(400, 300);
        const first = await t.uploaded(bytes);
        const form = new FormData();
        form.set('file', new Blob([bytes]), 'again.png');
        const asForm = await t.fetch(url('/media'), { method: 'POST', headers: t.auth, body: form });
        expect(asForm.status, await peek(asForm)).toBe(200);
        expect(await asForm.json()).toEqual(first);
        const again = await t.upload(bytes);
        expect(again.status).toBe(200);
        expect(await again.json()).toEqual(first);
        expect(images.uploads).toHaveLength(1);
        expect(await readdir(dir)).toEqual([]);
      });
    });

    it('answers 422 naming a form part the form does not have (x=1, or a second file part), and stores nothing', async () => {
      await withUploadDir(async (dir) => {
        const t = await mediaSetup(make, { uploadDir: dir });
        const image = new Blob([await png(40, 30)]);
        const withText = new FormData();
        withText.set('file', image, 'a.png');
        withText.set('x', '1');
        const text = await expectProblem(
          await t.fetch(url('/media'), { method: 'POST', headers: t.auth, body: withText }),
          422,
          'validation-failed',
        );
        expect(text.errors).toEqual([{ pointer: '/body/x', message: 'is not an allowed property' }]);
        const withFile = new FormData();
        withFile.set('alt', 'A square');
        withFile.set('file', image, 'a.png');
        withFile.set('thumbnail', image, 'thumb.png');
        const file = await expectProblem(
          await t.fetch(url('/media'), { method: 'POST', headers: t.auth, body: withFile }),
          422,
          'validation-failed',
        );
        expect(file.errors).toEqual([{ pointer: '/body/thumbnail', message: 'is not an allowed property' }]);
        expect(await t.library()).toEqual([]);
        expect(await readdir(dir)).toEqual([]);
      });
    });

    it('answers 401 without a token and stores nothing', async () => {
      const t = await mediaSetup(make);
      const response = await t.fetch(url('/media'), { method: 'POST', headers: { 'content-type': 'image/png' }, body: await png(10, 10) });
      await expectProblem(response, 401, 'unauthorized');
    });
  });

  describe('listMedia', () => {
    it('lists the library newest first, in cursor pages', async () => {
      const clock = new FixedClock(new Date('2026-12-01T10:00:00.000Z'));
      const t = await mediaSetup(make, { clock });
      const ids: string[] = [];
      for (const r of [10, 20, 30]) {
        ids.push((await t.uploaded(await png(50, 50, { r, g: 0, b: 0 }))).id);
        clock.advance(1000);
      }
      const first = await json(await t.fetch(url('/media?limit=2'), { headers: t.auth }));
      expect(first.items.map((m: ApiMedia) => m.id)).toEqual([ids[2], ids[1]]);
      expect(first.nextCursor).toEqual(expect.any(String));
      const second = await json(await t.fetch(url(`/media?limit=2&cursor=${encodeURIComponent(first.nextCursor)}`), { headers: t.auth }));
      expect(second).toMatchObject({ items: [{ id: ids[0] }], nextCursor: null });
    });
  });

  describe('updateMedia', () => {
    it('changes the alt text and keeps the caption; an alt over 1000 characters is a 422', async () => {
      const t = await mediaSetup(make);
      const media = await t.uploaded(await png(60, 60), 'image/png', '?alt=Old&caption=Kept');
      const response = await t.fetch(url(`/media/${media.id}`), {
        method: 'PATCH',
        headers: { ...t.auth, 'content-type': 'application/json' },
        body: JSON.stringify({ alt: 'New' }),
      });
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ ...media, alt: 'New' });
      const tooLong = await t.fetch(url(`/media/${media.id}`), {
        method: 'PATCH',
        headers: { ...t.auth, 'content-type': 'application/json' },
        body: JSON.stringify({ alt: 'a'.repeat(1001) }),
      });
      await expectProblem(tooLong, 422, 'validation-failed');
      expect(await (await t.fetch(url(`/media/${media.id}`), { headers: t.auth })).json()).toMatchObject({ alt: 'New', caption: 'Kept' });
    });
  });

  describe('deleteMedia', () => {
    async function inUse(t: Awaited<ReturnType<typeof mediaSetup>>) {
      const media = await t.uploaded(await png(400, 200));
      const post = await t.create({ title: 'A post with a picture', body: `Look:\n\n![A blue field](${media.variants[0]!.url})\n` });
      return { media, post };
    }

    it('answers 409 media-in-use naming the post whose body links it, and deletes nothing', async () => {
      const t = await mediaSetup(make);
      const { media, post } = await inUse(t);
      const refused = await t.fetch(url(`/media/${media.id}`), { method: 'DELETE', headers: t.auth });
      const problem = await expectProblem(refused, 409, 'media-in-use');
      expect(problem.posts).toEqual([{ id: post.id, title: 'A post with a picture', slug: post.slug }]);
      expect((await t.file(media.url)).status).toBe(200);
    });

    it('deletes with force=true (204), after which its files and the media answer 404', async () => {
      const t = await mediaSetup(make);
      const { media } = await inUse(t);
      const deleted = await t.fetch(url(`/media/${media.id}?force=true`), { method: 'DELETE', headers: t.auth });
      expect(deleted.status, await peek(deleted)).toBe(204);
      await expectProblem(await t.file(media.url), 404, 'not-found');
      await expectProblem(await t.file(media.variants[0]!.url), 404, 'not-found');
      await expectProblem(await t.fetch(url(`/media/${media.id}`), { headers: t.auth }), 404, 'not-found');
    });

    it('takes a force-deleted media off the posts it is the cover of, each as an edit with its revision', async () => {
      const t = await mediaSetup(make);
      const media = await t.uploaded(await png(400, 200), 'image/png', '?alt=A%20blue%20field');
      const covered = await t.create({ title: 'Covered', body: 'Text.', coverImage: { mediaId: media.id } });
      const other = await t.uploaded(await png(300, 200));
      const elsewhere = await t.create({ title: 'Another cover', body: 'Text.', coverImage: { mediaId: other.id } });
      expect(covered).toMatchObject({ version: 1, coverImage: { mediaId: media.id, alt: 'A blue field' } });

      const deleted = await t.fetch(url(`/media/${media.id}?force=true`), { method: 'DELETE', headers: t.auth });
      expect(deleted.status, await peek(deleted)).toBe(204);
      const after = (await (await t.fetch(url(`/posts/${covered.id}`), { headers: t.auth })).json()) as typeof covered;
      expect(after).toMatchObject({ version: 2, coverImage: null });
      const revisions = (await (await t.fetch(url(`/posts/${covered.id}/revisions`), { headers: t.auth })).json()) as {
        items: { version: number; changed?: string[] }[];
      };
      expect(revisions.items.find((r) => r.version === 2)).toMatchObject({ changed: ['coverImage'] });
      const untouched = (await (await t.fetch(url(`/posts/${elsewhere.id}`), { headers: t.auth })).json()) as typeof elsewhere;
      expect(untouched).toMatchObject({ version: 1, coverImage: { mediaId: other.id } });
    });
  });

  describe('getMediaFile', () => {
    it('answers 404 for an unknown media and for a file the media does not have', async () => {
      const t = await mediaSetup(make);
      const media = await t.uploaded(await png(100, 100));
      await expectProblem(await t.fetch(url(`/content/media/${'a'.repeat(26)}/original.png`)), 404, 'not-found');
      await expectProblem(await t.fetch(url(`/content/media/${media.id}/original.jpg`)), 404, 'not-found');
      await expectProblem(await t.fetch(url(`/content/media/${media.id}/320.webp`)), 404, 'not-found');
    });
  });
});

describe('media files and the Content API rate limit [memory]', () => {
  it('counts file reads like every other Content API read: past the limit, 429 with Retry-After', async () => {
    const t = await mediaSetup(async () => createMemoryStore(), { content: { rateLimitPerMinute: 2 } });
    const media = await t.uploaded(await png(100, 100));
    expect((await t.file(media.url)).status).toBe(200);
    expect((await t.fetch(url('/content/tags'))).status).toBe(200);
    const limited = await t.file(media.url);
    await expectProblem(limited, 429, 'rate-limited');
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
  });
});

/** Writes `head` (a request without its body) on a connection of its own and reads until the server closes it. */
function exchange(port: number, head: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
    socket.on('error', reject);
    socket.on('end', () => resolve(text));
    socket.write(head);
  });
}

describe('media over a socket [memory]', () => {
  it('answers a declared Content-Length over MEDIA_MAX_BYTES + 64 KiB with 413 before any of the body is sent, and serves a file byte for byte with its length', async () => {
    const t = await mediaSetup(async () => createMemoryStore());
    const listener = serveApp(t.app.fetch, { hostname: '127.0.0.1', port: 0 });
    await new Promise((resolve) => listener.once('listening', resolve));
    const { port } = listener.address() as AddressInfo;
    try {
      const head = [
        'POST /api/v1/media HTTP/1.1',
        'Host: x',
        `Authorization: ${t.auth.authorization}`,
        'Content-Type: image/png',
        `Content-Length: ${20 * 1024 * 1024 + 64 * 1024 + 1}`,
      ].join('\r\n');
      const answer = await exchange(port, `${head}\r\n\r\n`);
      expect(answer).toMatch(/^HTTP\/1\.1 413 /);
      expect(answer).toMatch(/\r\nconnection: close\r\n/i);
      expect(answer).toContain('https://margincms.dev/problems/payload-too-large');

      const bytes = await png(300, 200);
      const media = await t.uploaded(bytes);
      const served = await fetch(`http://127.0.0.1:${port}/api/v1/content/media/${media.id}/original.png`);
      expect(served.status).toBe(200);
      expect(served.headers.get('content-length')).toBe(String(bytes.byteLength));
      expect(new Uint8Array(await served.arrayBuffer())).toEqual(bytes);
    } finally {
      await new Promise((resolve) => listener.close(resolve));
    }
  });
});
