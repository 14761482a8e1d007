/**
 * Preview links over HTTP on every store: created, listed and revoked by an admin; the preview
 * itself public on the Content API (no token, CORS open, never stored or indexed), showing a post
 * whatever its status while the rest of the Content API still 404s it.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { components } from '../../generated/api.js';
import { createMemoryStore } from '../../src/adapters/memory/store.js';
import {
  FixedClock,
  PREVIEW_LINK_DEFAULT_TTL_MS,
  PREVIEW_LINKS_ACTIVE_MAX,
  type PreviewLink,
  type PreviewLinkRepository,
} from '../../src/domain/index.js';
import { createLogger } from '../../src/log.js';
import { describeOnEveryStore } from '../support/stores.js';
import { expectInvalid, expectProblem, expectUnauthorized, peek, setup, UNKNOWN_ID } from './helpers.js';

type Created = components['schemas']['PreviewLinkCreated'];
type Listed = components['schemas']['PreviewLinkPage'];
type ContentPost = components['schemas']['ContentPost'];

const T0 = new Date('2026-12-01T09:00:00.000Z');
const DAY = 86_400_000;
const SITE = { siteUrl: 'https://blog.example.com', postPath: '/blog/{slug}', apiUrl: 'https://api.example.com', siteTitle: 'Margin blog' };
const PREVIEW_URL = /^https:\/\/api\.example\.com\/api\/v1\/content\/preview\/([A-Za-z0-9_-]{43})$/;

describeOnEveryStore('preview links', (make) => {
  async function previews() {
    const clock = new FixedClock(T0);
    const t = await setup(make, { clock, content: SITE });
    async function link(postId: string, body?: Record<string, unknown>): Promise<Created> {
      const response = await t.send('POST', `/posts/${postId}/preview-links`, body === undefined ? {} : { body });
      expect(response.status, await peek(response)).toBe(201);
      return (await response.json()) as Created;
    }
    /** The preview at a created link's URL, without credentials. */
    const open = (created: Created, query = '') =>
      t.send('GET', `${new URL(created.url).pathname.replace('/api/v1', '')}${query}`, { anonymous: true });
    async function page(postId: string, query = '') {
      const response = await t.send('GET', `/posts/${postId}/preview-links${query}`);
      expect(response.status, await peek(response)).toBe(200);
      return (await response.json()) as Listed;
    }
    /** The first page of the post's links (up to 100). */
    const listed = async (postId: string) => (await page(postId, '?limit=100')).items;
    /** Every link of the post, following `nextCursor` with pages of `limit`, and how many pages it took. */
    async function everyLink(postId: string, limit: number) {
      const items: Listed['items'] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const got: Listed = await page(postId, `?limit=${limit}${cursor === null ? '' : `&cursor=${cursor}`}`);
        items.push(...got.items);
        cursor = got.nextCursor;
        pages += 1;
      } while (cursor !== null && pages < 1000);
      return { items, pages };
    }
    return { ...t, clock, link, open, page, listed, everyLink };
  }

  it('answers 201 with an absolute url on the Content API, the token in it, Location and a 7-day expiry', async () => {
    const t = await previews();
    const draft = await t.create({ title: 'Not yet', body: 'Draft.' });
    const response = await t.send('POST', `/posts/${draft.id}/preview-links`);
    expect(response.status, await peek(response)).toBe(201);
    const created = (await response.json()) as Created;
    expect(created.url).toMatch(PREVIEW_URL);
    expect(PREVIEW_URL.exec(created.url)?.[1]).toBe(created.token);
    expect(created.expiresAt).toBe(new Date(T0.getTime() + PREVIEW_LINK_DEFAULT_TTL_MS).toISOString());
    expect(response.headers.get('location')).toBe(`/api/v1/posts/${draft.id}/preview-links/${created.id}`);
  });

  it('shows a draft at its url with no-store and noindex, while the Content API still answers 404 for it', async () => {
    const t = await previews();
    const draft = await t.create({ title: 'Not yet', body: 'A *draft*.', tags: ['soon'] });
    const created = await t.link(draft.id);
    const response = await t.open(created);
    expect(response.status, await peek(response)).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('x-robots-tag')).toBe('noindex');
    expect(response.headers.get('etag')).toBeNull();
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    const shown = (await response.json()) as ContentPost;
    expect(shown).toMatchObject({ id: draft.id, title: 'Not yet', body: 'A *draft*.', tags: ['soon'], publishedAt: T0.toISOString() });
    expect(shown).not.toHaveProperty('status');
    await expectProblem(await t.send('GET', `/content/posts/${draft.id}`, { anonymous: true }), 404, 'not-found');
    const html = await t.open(created, '?include=html');
    expect(((await html.json()) as ContentPost).html).toContain('<em>draft</em>');
    // Later edits show at once.
    await t.patch(draft.id, draft.version, { title: 'Nearly' });
    expect(((await (await t.open(created)).json()) as ContentPost).title).toBe('Nearly');
  });

  it('shows a scheduled post with its publishAt as publishedAt', async () => {
    const t = await previews();
    const publishAt = new Date(T0.getTime() + DAY).toISOString();
    const scheduled = await t.create({ title: 'Tomorrow', body: 'Soon.', publishAt });
    const response = await t.open(await t.link(scheduled.id));
    expect(response.status, await peek(response)).toBe(200);
    expect(((await response.json()) as ContentPost).publishedAt).toBe(publishAt);
    await expectProblem(await t.send('GET', `/content/posts/${scheduled.id}`, { anonymous: true }), 404, 'not-found');
  });

  it('answers the same 404 for an expired, a revoked and an unknown token, and for a deleted post', async () => {
    const t = await previews();
    const draft = await t.create({ title: 'Not yet', body: 'Draft.' });
    const short = await t.link(draft.id, { expiresAt: new Date(T0.getTime() + 60_000).toISOString() });
    const revoked = await t.link(draft.id);
    const kept = await t.link(draft.id);
    expect((await t.send('DELETE', `/posts/${draft.id}/preview-links/${revoked.id}`)).status).toBe(204);
    // Revoking again is 204 too.
    expect((await t.send('DELETE', `/posts/${draft.id}/preview-links/${revoked.id}`)).status).toBe(204);
    t.clock.advance(60_000);
    const unknown = { ...kept, url: kept.url.replace(kept.token, 'A'.repeat(43)) };
    const details = new Set<string>();
    for (const gone of [short, revoked, unknown]) details.add((await expectProblem(await t.open(gone), 404, 'not-found')).detail as string);
    expect(details.size).toBe(1);
    expect((await t.open(kept)).status).toBe(200);
    const items = await t.listed(draft.id);
    expect(items.map((item) => [item.id, item.status])).toEqual([
      [kept.id, 'active'],
      [revoked.id, 'revoked'],
      [short.id, 'expired'],
    ]);
    expect(JSON.stringify(items)).not.toContain(kept.token);
    const post = await t.getPost(draft.id);
    expect((await t.send('DELETE', `/posts/${draft.id}`, { headers: { 'if-match': `"${post.version}"` } })).status).toBe(204);
    await expectProblem(await t.open(kept), 404, 'not-found');
  });

  it('refuses an expiry in the past or beyond 90 days with 422 at /body/expiresAt', async () => {
    const t = await previews();
    const draft = await t.create({ title: 'Not yet', body: 'Draft.' });
    for (const at of [T0.getTime() - 1, T0.getTime() + 91 * DAY]) {
      const body = { expiresAt: new Date(at).toISOString() };
      await expectInvalid(await t.send('POST', `/posts/${draft.id}/preview-links`, { body }), '/body/expiresAt');
    }
    expect(await t.listed(draft.id)).toEqual([]);
  });

  it(`answers 422 preview-link-limit-reached to a post's ${PREVIEW_LINKS_ACTIVE_MAX + 1}st active link and creates nothing; revoking one lets another be created`, async () => {
    const t = await previews();
    const draft = await t.create({ title: 'Not yet', body: 'Draft.' });
    const made: Created[] = [];
    for (let n = 0; n < PREVIEW_LINKS_ACTIVE_MAX; n += 1) made.push(await t.link(draft.id));
    const refused = await expectProblem(await t.send('POST', `/posts/${draft.id}/preview-links`), 422, 'preview-link-limit-reached');
    expect(refused).toMatchObject({ title: 'Preview link limit reached', limit: PREVIEW_LINKS_ACTIVE_MAX });
    expect(refused.detail).toBe(
      `This post has ${PREVIEW_LINKS_ACTIVE_MAX} active preview links, the most it may have; revoke one before creating another.`,
    );
    const all = await t.listed(draft.id);
    expect(all.map((l) => l.id).sort()).toEqual(made.map((l) => l.id).sort());
    // Another post is not limited by this one's links.
    const other = await t.create({ title: 'Other', body: 'Draft.' });
    await t.link(other.id);
    expect((await t.send('DELETE', `/posts/${draft.id}/preview-links/${made[0]!.id}`)).status).toBe(204);
    const again = await t.link(draft.id);
    expect((await t.open(again)).status).toBe(200);
    await expectProblem(await t.send('POST', `/posts/${draft.id}/preview-links`), 422, 'preview-link-limit-reached');
    // An expired link frees its place too.
    t.clock.advance(PREVIEW_LINK_DEFAULT_TTL_MS);
    expect((await t.send('POST', `/posts/${draft.id}/preview-links`)).status).toBe(201);
  });

  it('of creates racing for the last places, exactly as many are created as were free; the others are 422', async () => {
    const t = await previews();
    const draft = await t.create({ title: 'Not yet', body: 'Draft.' });
    for (let n = 2; n < PREVIEW_LINKS_ACTIVE_MAX; n += 1) await t.link(draft.id);
    const raced = await Promise.all(Array.from({ length: 8 }, () => t.send('POST', `/posts/${draft.id}/preview-links`)));
    const statuses = raced.map((r) => r.status).sort();
    expect(statuses).toEqual([201, 201, 422, 422, 422, 422, 422, 422]);
    for (const refused of raced.filter((r) => r.status === 422)) await expectProblem(refused, 422, 'preview-link-limit-reached');
    expect(await t.listed(draft.id)).toHaveLength(PREVIEW_LINKS_ACTIVE_MAX);
  });

  it('pages 300 links by cursor, newest first (ties by id): following nextCursor reaches every one once', async () => {
    const t = await previews();
    const draft = await t.create({ title: 'Not yet', body: 'Draft.' });
    const other = await t.create({ title: 'Other', body: 'Draft.' });
    // Made through the store (the API stops at the limit): three a minute, some revoked, some expired.
    const stored: PreviewLink[] = [];
    for (let n = 0; n < 300; n += 1) {
      const createdAt = new Date(T0.getTime() - Math.floor(n / 3) * 60_000);
      stored.push({
        id: `01JF${String(n).padStart(22, '0')}`,
        postId: draft.id,
        tokenHash: createHash('sha256').update(`token ${n}`).digest('hex'),
        createdAt,
        expiresAt: new Date(createdAt.getTime() + (n % 5 === 0 ? 60_000 : DAY)),
        revokedAt: n % 7 === 0 ? createdAt : null,
      });
    }
    for (const link of stored) await t.store.previewLinks.create(link);
    await t.link(other.id);
    const newestFirst = [...stored].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (b.id < a.id ? -1 : 1));
    for (const limit of [7, 20, 100]) {
      const { items, pages } = await t.everyLink(draft.id, limit);
      expect(pages).toBe(Math.ceil(300 / limit));
      expect(new Set(items.map((l) => l.id)).size).toBe(300);
      expect(items.map((l) => l.id)).toEqual(newestFirst.map((l) => l.id));
    }
    expect((await t.page(draft.id)).items).toHaveLength(20);
    const byStatus = (await t.everyLink(draft.id, 100)).items.map((l) => l.status);
    expect(new Set(byStatus)).toEqual(new Set(['active', 'expired', 'revoked']));
    // A cursor of one post's list is refused on another's.
    const { nextCursor } = await t.page(draft.id, '?limit=1');
    const misused = await t.send('GET', `/posts/${other.id}/preview-links?cursor=${nextCursor}`);
    await expectInvalid(misused, '/query/cursor');
  });

  it('answers 404 for an unknown post or link, and 401 to the admin operations without a token', async () => {
    const t = await previews();
    const draft = await t.create({ title: 'Not yet', body: 'Draft.' });
    const created = await t.link(draft.id);
    await expectProblem(await t.send('POST', `/posts/${UNKNOWN_ID}/preview-links`), 404, 'not-found');
    await expectProblem(await t.send('GET', `/posts/${UNKNOWN_ID}/preview-links`), 404, 'not-found');
    await expectProblem(await t.send('DELETE', `/posts/${draft.id}/preview-links/${UNKNOWN_ID}`), 404, 'not-found');
    await expectProblem(await t.send('DELETE', `/posts/${UNKNOWN_ID}/preview-links/${created.id}`), 404, 'not-found');
    await expectUnauthorized(await t.send('POST', `/posts/${draft.id}/preview-links`, { anonymous: true }));
    await expectUnauthorized(await t.send('GET', `/posts/${draft.id}/preview-links`, { anonymous: true }));
    await expectUnauthorized(await t.send('DELETE', `/posts/${draft.id}/preview-links/${created.id}`, { anonymous: true }));
    expect((await t.open(created)).status).toBe(200);
  });
});

describe('preview logging', () => {
  it('never logs the token of a preview that fails', async () => {
    const lines: string[] = [];
    let failing = false;
    const t = await setup(async () => createMemoryStore(), {
      content: SITE,
      logger: createLogger('debug', (line) => lines.push(line)),
      wrap: (store) => {
        const links = store.previewLinks;
        const previewLinks: PreviewLinkRepository = {
          create: (link, max) => links.create(link, max),
          listForPost: (postId, query) => links.listForPost(postId, query),
          revoke: (postId, id, at) => links.revoke(postId, id, at),
          findActive: (hash, now) => (failing ? Promise.reject(new Error('disk on fire')) : links.findActive(hash, now)),
          purge: (before) => links.purge(before),
        };
        return { ...store, previewLinks };
      },
    });
    const draft = await t.create({ title: 'Not yet', body: 'Draft.' });
    const created = (await (await t.send('POST', `/posts/${draft.id}/preview-links`)).json()) as Created;
    failing = true;
    await expectProblem(await t.send('GET', `/content/preview/${created.token}`, { anonymous: true }), 500, 'internal-error');
    expect(lines.join('\n')).toContain('/api/v1/content/preview/{token}');
    expect(lines.join('\n')).not.toContain(created.token);
  });
});

describe('preview rate limit', () => {
  it('counts previews against the Content API limit of the address', async () => {
    const t = await setup(async () => createMemoryStore(), { content: { ...SITE, rateLimitPerMinute: 2 } });
    const draft = await t.create({ title: 'Not yet', body: 'Draft.' });
    const response = await t.send('POST', `/posts/${draft.id}/preview-links`);
    const created = (await response.json()) as Created;
    const path = new URL(created.url).pathname.replace('/api/v1', '');
    for (let n = 0; n < 2; n += 1) expect((await t.send('GET', path, { anonymous: true })).status).toBe(200);
    await expectProblem(await t.send('GET', path, { anonymous: true }), 429, 'rate-limited');
  });
});
