import { afterEach, describe, expect, it } from 'vitest';
import { HtmlRenderer, htmlEtagsOf, renderMediaOf, type HtmlRendererOptions } from './html-renderer.js';
import type { Media } from '../../../domain/media.js';

const SITE = 'https://blog.example.com';
/** 148,000 unclosed `<div>` lines (888 KB): 8 s of sanitize-html on the event loop before the worker. */
const HOSTILE = Array.from({ length: 148_000 }, () => '<div>').join('\n');

const renderers: HtmlRenderer[] = [];
afterEach(async () => {
  await Promise.all(renderers.splice(0).map((renderer) => renderer.close()));
});

function renderer(options: Partial<HtmlRendererOptions> = {}): HtmlRenderer {
  const made = new HtmlRenderer({ siteUrl: SITE, ...options });
  renderers.push(made);
  return made;
}

/** The longest gap between ticks of a 5 ms interval while `work` runs: how long the event loop was held. */
async function worstLag<T>(work: () => Promise<T>): Promise<{ result: T; lagMs: number; elapsedMs: number }> {
  let worst = 0;
  let last = performance.now();
  const ticker = setInterval(() => {
    const now = performance.now();
    worst = Math.max(worst, now - last);
    last = now;
  }, 5);
  const started = performance.now();
  try {
    const result = await work();
    return { result, lagMs: Math.max(worst, performance.now() - last), elapsedMs: performance.now() - started };
  } finally {
    clearInterval(ticker);
  }
}

const MEDIA_ID = 'd3rmw6a2ztq5hkx4np7ucb2fya';
const photo: Media = {
  id: MEDIA_ID,
  contentType: 'image/png',
  width: 800,
  height: 400,
  bytes: 9000,
  sha256: 'a'.repeat(64),
  sourceSha256: 'b'.repeat(64),
  alt: 'Alt of the library',
  caption: '',
  createdAt: new Date('2026-12-01T09:00:00.000Z'),
  files: [
    { name: 'original.png', contentType: 'image/png', width: 800, height: 400, bytes: 9000, sha256: 'a'.repeat(64) },
    { name: '320.png', contentType: 'image/png', width: 320, height: 160, bytes: 2000, sha256: 'c'.repeat(64) },
    { name: '320.webp', contentType: 'image/webp', width: 320, height: 160, bytes: 900, sha256: 'd'.repeat(64) },
  ],
};
const WITH_PHOTO = `![Photo](/api/v1/content/media/${MEDIA_ID}/original.png)`;

describe('htmlEtagsOf', () => {
  it('changes with the post version, the site and the media found, in whatever order they are given', () => {
    const post = { id: 'a', version: 1 };
    const plain = htmlEtagsOf(post, SITE);
    const withPhoto = htmlEtagsOf(post, SITE, [{ id: MEDIA_ID }]);
    expect(withPhoto.rendered).not.toBe(plain.rendered);
    expect(withPhoto.unrendered).not.toBe(plain.unrendered);
    expect(htmlEtagsOf(post, SITE, [{ id: 'b' }, { id: 'a' }])).toEqual(htmlEtagsOf(post, SITE, [{ id: 'a' }, { id: 'b' }]));
    expect(htmlEtagsOf({ id: 'a', version: 2 }, SITE).rendered).not.toBe(plain.rendered);
    expect(htmlEtagsOf(post, 'https://other.example').rendered).not.toBe(plain.rendered);
  });
});

describe('renderMediaOf', () => {
  it('keeps what the renderer needs of a media: its id and its files, names, types and sizes', () => {
    expect(renderMediaOf(photo)).toStrictEqual({
      id: MEDIA_ID,
      files: [
        { name: 'original.png', contentType: 'image/png', width: 800, height: 400 },
        { name: '320.png', contentType: 'image/png', width: 320, height: 160 },
        { name: '320.webp', contentType: 'image/webp', width: 320, height: 160 },
      ],
    });
  });
});

describe('HtmlRenderer', () => {
  it('renders the images of the media it is given with their size and srcset, in its worker', async () => {
    const html = await renderer().html({ id: 'a', version: 1, body: WITH_PHOTO }, [renderMediaOf(photo)]);
    expect(html).toBe(
      `<p><img src="/api/v1/content/media/${MEDIA_ID}/original.png" alt="Photo" width="800" height="400" ` +
        `srcset="/api/v1/content/media/${MEDIA_ID}/320.webp 320w, /api/v1/content/media/${MEDIA_ID}/original.png 800w" ` +
        'sizes="(max-width: 800px) 100vw, 800px" loading="lazy" decoding="async" /></p>\n',
    );
  });

  it('renders a post version again when a media it showed is gone, as a plain image', async () => {
    const r = renderer();
    const post = { id: 'a', version: 1, body: WITH_PHOTO };
    expect(await r.html(post, [renderMediaOf(photo)])).toContain('srcset=');
    expect(await r.html(post, [])).toBe(
      `<p><img src="/api/v1/content/media/${MEDIA_ID}/original.png" alt="Photo" loading="lazy" decoding="async" /></p>\n`,
    );
  });

  it('previews a body with the media it is given, as the same post would render', async () => {
    const r = renderer();
    const media = [renderMediaOf(photo)];
    expect(await r.preview(WITH_PHOTO, media)).toEqual({ html: await r.html({ id: 'a', version: 1, body: WITH_PHOTO }, media) });
  });

  it('renders a body to sanitised HTML in its worker, marking links off the site', async () => {
    const html = await renderer().html({
      id: 'a',
      version: 1,
      body: '# Hi\n\n<a href="/\\evil.example">x</a> [y](/blog/y)<script>alert(1)</script>',
    });
    expect(html).toBe('<h1>Hi</h1>\n<p><a href="/\\evil.example" rel="nofollow noopener">x</a> <a href="/blog/y">y</a></p>\n');
  });

  it('renders each post version once: the same version asked again, even with another body, answers the first HTML', async () => {
    const r = renderer();
    const concurrent = await Promise.all([
      r.html({ id: 'a', version: 1, body: '*one*' }),
      r.html({ id: 'a', version: 1, body: '*two*' }),
      r.html({ id: 'a', version: 1, body: '*three*' }),
    ]);
    expect(concurrent).toEqual(['<p><em>one</em></p>\n', '<p><em>one</em></p>\n', '<p><em>one</em></p>\n']);
    expect(await r.html({ id: 'a', version: 1, body: '*four*' })).toBe('<p><em>one</em></p>\n');
    expect(await r.html({ id: 'a', version: 2, body: '*five*' })).toBe('<p><em>five</em></p>\n');
    expect(await r.html({ id: 'b', version: 1, body: '*six*' })).toBe('<p><em>six</em></p>\n');
  });

  it('stops a body past its budget and answers null without holding the event loop; the next body renders on a fresh worker', async () => {
    const r = renderer({ budgetMs: 300 });
    await r.html({ id: 'warm', version: 1, body: 'x' }); // the worker's start is not part of the budget
    const { result, lagMs, elapsedMs } = await worstLag(() => r.html({ id: 'hostile', version: 1, body: HOSTILE }));
    expect(result).toBeNull();
    expect(elapsedMs).toBeLessThan(2000);
    expect(lagMs).toBeLessThan(150);
    expect(await r.html({ id: 'after', version: 1, body: '*fine*' })).toBe('<p><em>fine</em></p>\n');
  });

  it('remembers a body that ran out of time: asked again, it is null at once', async () => {
    const r = renderer({ budgetMs: 300 });
    expect(await r.html({ id: 'hostile', version: 1, body: HOSTILE })).toBeNull();
    const { result, elapsedMs } = await worstLag(() => r.html({ id: 'hostile', version: 1, body: HOSTILE }));
    expect(result).toBeNull();
    expect(elapsedMs).toBeLessThan(50);
    // A new version is a new body: it is tried again.
    expect(await r.html({ id: 'hostile', version: 2, body: '*fixed*' })).toBe('<p><em>fixed</em></p>\n');
  });

  it('answers null at once when maxWaiting bodies already wait for a busy worker, without remembering it', async () => {
    const r = renderer({ budgetMs: 300, workers: 1, maxWaiting: 1 });
    const running = r.html({ id: 'hostile', version: 1, body: HOSTILE });
    const waiting = r.html({ id: 'waiting', version: 1, body: '*waits*' });
    expect(await r.html({ id: 'third', version: 1, body: '*third*' })).toBeNull();
    expect(await running).toBeNull();
    expect(await waiting).toBe('<p><em>waits</em></p>\n');
    expect(await r.html({ id: 'third', version: 1, body: '*third*' })).toBe('<p><em>third</em></p>\n');
  });

  it('answers null to what is running or waiting when closed', async () => {
    const r = renderer({ budgetMs: 10_000 });
    const running = r.html({ id: 'hostile', version: 1, body: HOSTILE });
    const waiting = r.html({ id: 'waiting', version: 1, body: '*waits*' });
    await r.close();
    expect(await running).toBeNull();
    expect(await waiting).toBeNull();
  });
});
