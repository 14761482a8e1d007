/**
 * The typed client's media library calls against the real app (every response checked against
 * the contract): raw uploads with the image's own type, pages by cursor, alt text and caption,
 * deletes refused while a post shows the media unless forced.
 */
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { ADMIN, FixedClock, testServer } from '../../test/support/http.js';
import { describeOnEveryStore, type MakeStore } from '../../test/support/stores.js';
import { createMemoryStore } from '../adapters/memory/store.js';
import { createMarginClient } from './index.js';

const BASE_URL = 'http://localhost/api/v1';

/** A flat-coloured PNG of `width` × `height`. */
async function png(width: number, height: number, colour = { r: 200, g: 80, b: 40 }): Promise<Uint8Array<ArrayBuffer>> {
  const bytes = await sharp({ create: { width, height, channels: 3, background: colour } })
    .png()
    .toBuffer();
  return new Uint8Array(bytes);
}

/** The app over a store, a signed-in client over it, and the Content-Type of each upload it sent. */
async function serve(make: MakeStore, options: { accessTokenTtlSeconds?: number } = {}) {
  const clock = new FixedClock(new Date('2026-12-01T10:00:00.000Z'));
  const server = await testServer({ store: await make(), clock, ...options });
  const uploads: (string | null)[] = [];
  const fetch = (request: Request): Promise<Response> => {
    if (request.method === 'POST' && new URL(request.url).pathname.endsWith('/media')) uploads.push(request.headers.get('content-type'));
    return server.fetch(request);
  };
  const client = createMarginClient({ baseUrl: BASE_URL, fetch });
  expect((await client.login(ADMIN.email, ADMIN.password)).response.status).toBe(200);
  return { client, clock, uploads };
}

describeOnEveryStore('createMarginClient: the media library', (make) => {
  it('uploadMedia sends a File as the raw body with its own type, alt and caption: 201, then 200 with the same media for the same bytes', async () => {
    const { client, uploads } = await serve(make);
    const file = new File([await png(400, 300)], 'sunset.png', { type: 'image/png' });

    const created = await client.uploadMedia(file, { alt: 'A red sunset', caption: 'Taken at dusk' });
    expect(created.response.status).toBe(201);
    expect(created.data).toMatchObject({
      contentType: 'image/png',
      width: 400,
      height: 300,
      alt: 'A red sunset',
      caption: 'Taken at dusk',
    });
    expect(created.data?.variants.map((v) => v.width)).toContain(320);
    expect(uploads).toEqual(['image/png']);

    const again = await client.uploadMedia(file);
    expect(again.response.status).toBe(200);
    expect(again.data?.id).toBe(created.data?.id);
    expect(again.data?.alt).toBe('A red sunset');
  });

  it('listMedia pages by cursor, newest first; getMedia reads one; updateMedia changes its alt text (200)', async () => {
    const { client, clock } = await serve(make);
    const first = (await client.uploadMedia(await png(50, 50, { r: 1, g: 2, b: 3 }), { contentType: 'image/png' })).data!;
    clock.advance(1000);
    const second = (await client.uploadMedia(new Blob([await png(60, 40)], { type: 'image/png' }))).data!;

    const page1 = await client.listMedia({ limit: 1 });
    expect(page1.data?.items.map((m) => m.id)).toEqual([second.id]);
    const page2 = await client.listMedia({ limit: 1, cursor: page1.data!.nextCursor! });
    expect(page2.data?.items.map((m) => m.id)).toEqual([first.id]);
    expect(page2.data?.nextCursor).toBeNull();

    expect((await client.getMedia(first.id)).data).toMatchObject({ id: first.id, width: 50, height: 50 });
    const updated = await client.updateMedia(first.id, { alt: 'A dark square' });
    expect(updated.response.status).toBe(200);
    expect(updated.data).toMatchObject({ id: first.id, alt: 'A dark square', caption: '' });
  });

  it('deleteMedia answers 409 naming the post that links the image, then deletes it with force (204), after which it is 404', async () => {
    const { client } = await serve(make);
    const media = (await client.uploadMedia(new Blob([await png(80, 80)], { type: 'image/png' }))).data!;
    const post = (await client.createPost({ title: 'With a picture', body: `![A square](${media.url})\n` })).data!;

    const refused = await client.deleteMedia(media.id);
    expect(refused.response.status).toBe(409);
    expect(refused.error).toMatchObject({ posts: [{ id: post.id, title: 'With a picture', slug: 'with-a-picture' }] });
    expect((await client.getMedia(media.id)).response.status).toBe(200);

    const forced = await client.deleteMedia(media.id, { force: true });
    expect(forced.response.status).toBe(204);
    expect((await client.getMedia(media.id)).response.status).toBe(404);
  });
});

describe('createMarginClient: uploads refused or retried', () => {
  const memory: MakeStore = async () => createMemoryStore();

  it('uploadMedia of an SVG answers 415 as sent (image/svg+xml), and bytes with no type go as application/octet-stream (415)', async () => {
    const { client, uploads } = await serve(memory);
    const svg = new Blob(['<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'], { type: 'image/svg+xml' });
    const refused = await client.uploadMedia(svg);
    expect(refused.response.status).toBe(415);
    expect(refused.error?.type).toMatch(/unsupported-media-type$/);

    const untyped = await client.uploadMedia(new Blob([await png(10, 10)]));
    expect(untyped.response.status).toBe(415);
    expect(uploads).toEqual(['image/svg+xml', 'application/octet-stream']);
  });

  it('resends the same bytes after the refresh, so an upload with an expired access token goes through (201)', async () => {
    const { client, clock } = await serve(memory, { accessTokenTtlSeconds: 60 });
    clock.advance(2 * 60 * 1000);
    const uploaded = await client.uploadMedia(new Blob([await png(30, 20)], { type: 'image/png' }), { alt: 'Late' });
    expect(uploaded.response.status).toBe(201);
    expect(uploaded.data).toMatchObject({ width: 30, height: 20, alt: 'Late' });
  });
});
