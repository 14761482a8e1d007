/**
 * Export → edit → import, lossless (issue #41 item 6), on the built server over real sockets, each
 * site a process of its own on a PostgreSQL database of its own: a site with drafts, an archived
 * post, a 5 MB cover and body images is exported through GET /export, one file's body is edited
 * by hand, and the archive is sent to a fresh server as a dry run, then applied. Every post keeps
 * its status, cover, images and body, and the fresh site exports the edited archive file for file.
 */
import { createHash, randomBytes } from 'node:crypto';
import { strFromU8, strToU8, unzipSync, zipSync } from 'fflate';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { components } from '../../generated/api.js';
import { createTestDatabase, requirePostgres, testServerUrl, type TestDatabase } from '../support/databases.js';
import { accessToken, createUser, startServer, stopServers } from '../support/server-process.js';

const available = await requirePostgres(testServerUrl());

type Report = components['schemas']['ImportReport'];
type Item = components['schemas']['ImportItem'];
type Post = components['schemas']['Post'];
type Media = components['schemas']['Media'];

const TIMEOUT_MS = 120_000;
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** Gaussian noise, so that neither PNG nor the zip compresses it away. */
const noise = (width: number, height: number) =>
  sharp({ create: { width, height, channels: 3, background: 'black', noise: { type: 'gaussian', mean: 128, sigma: 60 } } });

interface Site {
  base: string;
  auth: Record<string, string>;
}

const databases: TestDatabase[] = [];

/** A built server on a fresh database, and a signed-in user's header. */
async function site(): Promise<Site> {
  const db = await createTestDatabase(testServerUrl(), { migrate: true });
  databases.push(db);
  const email = 'owner@example.com';
  const password = `Round-${randomBytes(12).toString('hex')}`;
  await createUser(db.url, { email, password, name: 'Owner' });
  const server = await startServer(db.url, { LOG_LEVEL: 'warn', ACCESS_LOG: 'false' }, { built: true });
  return { base: server.base, auth: { authorization: `Bearer ${await accessToken(server.base, email, password)}` } };
}

async function call<T>(at: Site, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<T> {
  const response = await fetch(`${at.base}${path}`, {
    method,
    headers: { ...at.auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  expect(response.status, `${method} ${path}: ${text}`).toBeLessThan(300);
  return JSON.parse(text) as T;
}

async function upload(at: Site, bytes: Uint8Array, type: string, alt: string): Promise<Media> {
  const response = await fetch(`${at.base}/media?alt=${encodeURIComponent(alt)}`, {
    method: 'POST',
    headers: { ...at.auth, 'content-type': type },
    body: bytes,
  });
  expect(response.status, await response.clone().text()).toBe(201);
  return (await response.json()) as Media;
}

async function exported(at: Site): Promise<Record<string, Uint8Array>> {
  const response = await fetch(`${at.base}/export`, { headers: at.auth });
  expect(response.status).toBe(200);
  return unzipSync(new Uint8Array(await response.arrayBuffer()));
}

async function importZip(at: Site, zip: Uint8Array, mode: 'dry-run' | 'apply'): Promise<Report> {
  const response = await fetch(`${at.base}/import?mode=${mode}`, {
    method: 'POST',
    headers: { ...at.auth, 'content-type': 'application/zip' },
    body: zip,
  });
  const text = await response.text();
  expect(response.status, text).toBe(200);
  return JSON.parse(text) as Report;
}

const byPath = (report: Report): Record<string, Item> => Object.fromEntries(report.items.map((item) => [item.path, item]));

let source: Site;
let target: Site;

beforeAll(async () => {
  if (!available) return;
  [source, target] = await Promise.all([site(), site()]);
}, TIMEOUT_MS);
afterAll(async () => {
  stopServers();
  for (const db of databases.splice(0)) await db.drop();
});

describe.skipIf(!available)('export → edit → import into a fresh server, on the built server', () => {
  it(
    'keeps every post its status, cover, images and body: a 5 MB cover, drafts, an archived post, one file edited by hand; the dry run says what each becomes',
    { timeout: TIMEOUT_MS },
    async () => {
      const coverBytes = new Uint8Array(await noise(1400, 1400).png().toBuffer());
      const photoBytes = new Uint8Array(await noise(1400, 1100).jpeg({ quality: 95 }).toBuffer());
      const iconBytes = new Uint8Array(await noise(64, 64).png().toBuffer());
      expect(coverBytes.byteLength).toBeGreaterThan(5_000_000);
      expect(photoBytes.byteLength).toBeGreaterThan(1 << 20);
      const cover = await upload(source, coverBytes, 'image/png', 'A noisy cover');
      const photo = await upload(source, photoBytes, 'image/jpeg', 'A noisy photo');
      const icon = await upload(source, iconBytes, 'image/png', 'An icon');

      const create = (post: Record<string, unknown>) => call<Post>(source, 'POST', '/posts', post);
      const live = await create({
        title: 'Live with a cover',
        body: `Published.\n\n![A photo](${photo.url})\n`,
        status: 'published',
        tags: ['photos'],
        coverImage: { mediaId: cover.id, alt: 'The big cover' },
      });
      const draft = await create({ title: 'A draft', body: `Not yet.\n\n![An icon](${icon.url})\n`, status: 'draft' });
      const scheduled = await create({ title: 'Scheduled', body: 'Later.\n', status: 'draft', publishAt: '2099-01-01T09:00:00.000Z' });
      const once = await create({
        title: 'Old news',
        body: `Archived.\n\n![A photo](${photo.url})\n`,
        status: 'published',
        coverImage: { mediaId: cover.id, alt: 'The big cover, again' },
      });
      const archived = await call<Post>(source, 'PATCH', `/posts/${once.id}`, { status: 'archived' }, { 'if-match': '"1"' });

      const files = await exported(source);
      const coverPath = `media/${sha256(coverBytes).slice(0, 16)}.png`;
      expect(files[coverPath]?.byteLength).toBe(coverBytes.byteLength);
      const draftPath = `${draft.slug}.md`;
      const original = strFromU8(files[draftPath]!);
      expect(original).toContain('status: draft\n');
      const edited = { ...files, [draftPath]: strToU8(original.replace('Not yet.\n', 'Not yet: edited by hand.\n')) };
      const zip = zipSync(edited);

      const dry = await importZip(target, zip, 'dry-run');
      expect(dry).toMatchObject({ source: 'margincms', counts: { files: 7, create: 7, update: 0, unchanged: 0, skip: 0 } });
      const planned = byPath(dry);
      expect(planned[draftPath]).toMatchObject({
        action: 'create',
        id: draft.id,
        summary: 'Will be created as a draft.',
        detail: expect.stringMatching(/^The file is not what the manifest lists \(.*\): read by its own front matter\.$/) as unknown,
      });
      expect(planned[`${live.slug}.md`]).toMatchObject({ action: 'create', summary: 'Will be created as a published post.', detail: null });
      expect(planned[`${scheduled.slug}.md`]).toMatchObject({
        summary: 'Will be created as a draft scheduled for 2099-01-01T09:00:00.000Z.',
      });
      expect(planned[`${archived.slug}.md`]).toMatchObject({ summary: 'Will be created as an archived post.' });
      expect(planned[coverPath]).toMatchObject({ action: 'create', summary: 'Will be stored in the media library.', detail: null });
      expect((await call<{ total: number }>(target, 'GET', '/posts')).total).toBe(0);
      expect((await call<{ items: unknown[] }>(target, 'GET', '/media')).items).toEqual([]);

      const applied = await importZip(target, zip, 'apply');
      expect(applied.counts).toEqual({ files: 7, create: 7, update: 0, unchanged: 0, skip: 0 });
      expect(byPath(applied)[draftPath]).toMatchObject({ action: 'create', id: draft.id, summary: 'Created as a draft.' });

      for (const before of [live, draft, scheduled, archived]) {
        const after = await call<Post>(target, 'GET', `/posts/${before.id}`);
        expect(after, before.slug).toMatchObject({
          title: before.title,
          slug: before.slug,
          status: before.status,
          publishAt: before.publishAt,
          tags: before.tags,
          coverImage: before.coverImage === null ? null : { alt: before.coverImage.alt },
        });
      }
      const draftAfter = await call<Post>(target, 'GET', `/posts/${draft.id}`);
      expect(draftAfter.body).toMatch(/^Not yet: edited by hand\.\n\n!\[An icon\]\(http:\/\/[^)]+\/original\.png\)\n$/);
      const library = (await call<{ items: Media[] }>(target, 'GET', '/media?limit=100')).items;
      expect(library.map((media) => media.bytes).sort()).toEqual([coverBytes, photoBytes, iconBytes].map((b) => b.byteLength).sort());
      const liveAfter = await call<Post>(target, 'GET', `/posts/${live.id}`);
      const coverAfter = library.find((media) => media.id === liveAfter.coverImage?.mediaId)!;
      const stored = new Uint8Array(await (await fetch(coverAfter.url)).arrayBuffer());
      expect(sha256(stored)).toBe(sha256(coverBytes));

      // The fresh site writes the edited archive back, file for file (the manifest aside: its time and the edited file's digest).
      const again = await exported(target);
      expect(Object.keys(again).sort()).toEqual(Object.keys(edited).sort());
      for (const path of Object.keys(edited).filter((name) => name !== 'manifest.json')) {
        expect(sha256(again[path]!), path).toBe(sha256(edited[path]!));
      }
    },
  );
});
