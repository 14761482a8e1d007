/**
 * The preview link as a reviewer opens it: the same URL answers a browser (Accept: text/html
 * first) a readable page of the post and every other client the Content API's JSON; a dead link
 * is an HTML 404 page for the one and the `not-found` problem for the other. PREVIEW_URL_TEMPLATE
 * sends reviewers to the site's own frontend instead.
 */
import { describe, expect, it } from 'vitest';
import type { components } from '../../generated/api.js';
import { createMemoryStore } from '../../src/adapters/memory/store.js';
import { FixedClock, type Media, type MediaFile, type MediaType } from '../../src/domain/index.js';
import { describeOnEveryStore } from '../support/stores.js';
import { expectProblem, peek, setup } from './helpers.js';

type Created = components['schemas']['PreviewLinkCreated'];
type ContentPost = components['schemas']['ContentPost'];

const T0 = new Date('2026-12-01T09:00:00.000Z');
const SITE = { siteUrl: 'https://blog.example.com', postPath: '/blog/{slug}', apiUrl: 'https://api.example.com', siteTitle: 'Margin blog' };
const MEDIA = 'https://api.example.com/api/v1/content/media';
/** What Chromium sends when it opens a link (a navigation). */
const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8';
const COVER = 'covercovercovercovercoverc';

function file(name: string, contentType: MediaType, width: number, height: number, n: number): MediaFile {
  return { name, contentType, width, height, bytes: width * 40, sha256: n.toString(16).padStart(64, '0') };
}

/** A 1200 × 800 JPEG with its 640 variants, as an upload stores it. */
function photo(id: string): Media {
  const original = file('original.jpg', 'image/jpeg', 1200, 800, 1);
  return {
    id,
    contentType: 'image/jpeg',
    width: 1200,
    height: 800,
    bytes: original.bytes,
    sha256: original.sha256,
    sourceSha256: '5'.repeat(64),
    alt: 'The library alt',
    caption: '',
    createdAt: T0,
    files: [original, file('640.jpg', 'image/jpeg', 640, 427, 2), file('640.webp', 'image/webp', 640, 427, 3)],
  };
}

async function previews(make: Parameters<typeof setup>[0], content: Record<string, unknown> = {}) {
  const t = await setup(make, { clock: new FixedClock(T0), content: { ...SITE, ...content } });
  await t.store.media.create(photo(COVER));
  async function link(postId: string): Promise<Created> {
    const response = await t.send('POST', `/posts/${postId}/preview-links`);
    expect(response.status, await peek(response)).toBe(201);
    return (await response.json()) as Created;
  }
  /** The preview at a link's API URL, without credentials, with `accept` as the Accept header (none when null). */
  const open = (created: Created, accept: string | null, query = '') =>
    t.send('GET', `${new URL(created.apiUrl).pathname.replace('/api/v1', '')}${query}`, {
      anonymous: true,
      headers: accept === null ? {} : { accept },
    });
  return { ...t, link, open };
}

/** The page's CSP: its own stylesheet by hash, images from the API's media and HTTPS, nothing else. */
const PAGE_CSP =
  /^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/]{43}='; img-src https:\/\/api\.example\.com https: data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'$/;

describeOnEveryStore('the preview page', (make) => {
  it('answers a browser 200 text/html: a page of the draft with its title, date, cover and rendered body, no-store, noindex, Vary: Accept, Accept-Encoding and its own CSP', async () => {
    const t = await previews(make);
    const draft = await t.create({
      title: 'Tom & "Jerry" <3',
      body: 'A *draft* with [a link](https://example.org/).\n\n<script>alert(1)</script>\n',
      tags: ['soon'],
      coverImage: { mediaId: COVER, alt: 'A cat, chasing' },
    });
    const response = await t.open(await t.link(draft.id), BROWSER);
    expect(response.status, await peek(response)).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('x-robots-tag')).toBe('noindex');
    expect(response.headers.get('vary')).toBe('Accept, Accept-Encoding');
    expect(response.headers.get('etag')).toBeNull();
    expect(response.headers.get('content-security-policy')).toMatch(PAGE_CSP);
    const page = await response.text();
    expect(page).toMatch(/^<!doctype html>\n<html lang="en">/);
    expect(page).toContain('<meta name="robots" content="noindex">');
    expect(page).toContain('<title>Preview: Tom &amp; &quot;Jerry&quot; &lt;3 · Margin blog</title>');
    expect(page).toContain('<h1>Tom &amp; &quot;Jerry&quot; &lt;3</h1>');
    expect(page).toContain(`<time datetime="${T0.toISOString()}">December 1, 2026</time>`);
    expect(page).toContain(
      `<img src="${MEDIA}/${COVER}/original.jpg" srcset="${MEDIA}/${COVER}/640.jpg 640w, ${MEDIA}/${COVER}/original.jpg 1200w"`,
    );
    expect(page).toContain('width="1200" height="800" alt="A cat, chasing">');
    expect(page).toContain('<em>draft</em>');
    expect(page).toContain('<a href="https://example.org/"');
    expect(page).toContain('Preview of a draft: not published.');
    expect(page).toMatch(/<main>[\s\S]*<article>[\s\S]*<\/article>\s*<\/main>/);
    // The body is the renderer's sanitised HTML: no script of the post's reaches the page, and the page has none.
    expect(page).not.toMatch(/<script/i);
    // The one <style> is the one the CSP's hash allows.
    const style = /<style>([\s\S]*?)<\/style>/.exec(page)![1]!;
    const { createHash } = await import('node:crypto');
    expect(response.headers.get('content-security-policy')).toContain(`'sha256-${createHash('sha256').update(style).digest('base64')}'`);
  });

  it('says a scheduled draft is scheduled, with its publishAt as its date', async () => {
    const t = await previews(make);
    const publishAt = '2026-12-08T09:30:00.000Z';
    const scheduled = await t.create({ title: 'Tomorrow', body: 'Soon.', publishAt });
    const page = await (await t.open(await t.link(scheduled.id), BROWSER)).text();
    expect(page).toContain('Preview of a draft scheduled for December 8, 2026 at 9:30 AM UTC.');
    expect(page).toContain(`<time datetime="${publishAt}">December 8, 2026</time>`);
  });

  it('keeps answering JSON to API clients: no Accept, */*, application/json, and JSON preferred over HTML, with Vary: Accept, Accept-Encoding', async () => {
    const t = await previews(make);
    const draft = await t.create({ title: 'Not yet', body: 'A *draft*.' });
    const created = await t.link(draft.id);
    for (const accept of [null, '*/*', 'application/json', 'application/json, text/html;q=0.9', 'text/html;q=0.5, application/*']) {
      const response = await t.open(created, accept, '?include=html');
      expect(response.status, `${accept}: ${await peek(response)}`).toBe(200);
      expect(response.headers.get('content-type'), String(accept)).toBe('application/json');
      expect(response.headers.get('vary')).toBe('Accept, Accept-Encoding');
      expect(response.headers.get('x-robots-tag')).toBe('noindex');
      expect(response.headers.get('content-security-policy')).toBe("default-src 'none'; frame-ancestors 'none'");
      expect((await response.json()) as ContentPost).toMatchObject({ id: draft.id, html: '<p>A <em>draft</em>.</p>\n' });
    }
  });

  it('answers a browser a 404 HTML page for a revoked or unknown link, and the not-found problem to other clients', async () => {
    const t = await previews(make);
    const draft = await t.create({ title: 'Not yet', body: 'Draft.' });
    const revoked = await t.link(draft.id);
    expect((await t.send('DELETE', `/posts/${draft.id}/preview-links/${revoked.id}`)).status).toBe(204);
    const unknown = { ...revoked, apiUrl: revoked.apiUrl.replace(revoked.token, 'A'.repeat(43)) };
    for (const gone of [revoked, unknown]) {
      const page = await t.open(gone, BROWSER);
      expect(page.status).toBe(404);
      expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(page.headers.get('cache-control')).toBe('no-store');
      expect(page.headers.get('x-robots-tag')).toBe('noindex');
      expect(page.headers.get('content-security-policy')).toMatch(PAGE_CSP);
      const text = await page.text();
      expect(text).toContain('<h1>This preview link does not work</h1>');
      expect(text).toContain('<meta name="robots" content="noindex">');
      expect(text).not.toContain('Not yet');
      const problem = await t.open(gone, 'application/json');
      await expectProblem(problem, 404, 'not-found');
      expect(problem.headers.get('x-robots-tag')).toBe('noindex');
      expect(problem.headers.get('vary')).toBe('Accept, Accept-Encoding');
    }
  });

  it('without PREVIEW_URL_TEMPLATE gives the Content API URL as both url and apiUrl', async () => {
    const t = await previews(make);
    const draft = await t.create({ title: 'Not yet', body: 'Draft.' });
    const created = await t.link(draft.id);
    expect(created.url).toBe(`https://api.example.com/api/v1/content/preview/${created.token}`);
    expect(created.apiUrl).toBe(created.url);
  });
});

describe('PREVIEW_URL_TEMPLATE', () => {
  it("makes a new link's url the site's frontend with the token, apiUrl still the Content API's", async () => {
    const t = await previews(async () => createMemoryStore(), { previewUrlTemplate: 'https://blog.example.com/preview/{token}?from=cms' });
    const draft = await t.create({ title: 'Not yet', body: 'Draft.' });
    const created = await t.link(draft.id);
    expect(created.url).toBe(`https://blog.example.com/preview/${created.token}?from=cms`);
    expect(created.apiUrl).toBe(`https://api.example.com/api/v1/content/preview/${created.token}`);
    expect((await t.open(created, null)).status).toBe(200);
  });
});
