import { describe, expect, it } from 'vitest';
import { summaryOf, SUMMARY_MAX, withAbsoluteUrls } from './feed-html.js';
import { renderMarkdown, type RenderMedia } from './markdown-html.js';

const base = { page: 'https://blog.example.com/blog/pictures', contentApiUrl: 'https://api.example.com/cms/api/v1/content' };
const MEDIA_ID = 'mfrggzdfmztwq2lknnwg23tpob';
const photo: RenderMedia = {
  id: MEDIA_ID,
  files: [
    { name: 'original.jpg', contentType: 'image/jpeg', width: 2000, height: 1000 },
    { name: '640.webp', contentType: 'image/webp', width: 640, height: 320 },
  ],
};

describe('withAbsoluteUrls', () => {
  it('makes a media image given from the root, and every URL of its srcset, absolute on the Content API', () => {
    const html = renderMarkdown(`![Photo](/api/v1/content/media/${MEDIA_ID}/original.jpg)`, 'https://blog.example.com', [photo]);
    expect(html).toContain(`srcset="/api/v1/content/media/${MEDIA_ID}/640.webp 640w`);
    const media = `https://api.example.com/cms/api/v1/content/media/${MEDIA_ID}`;
    expect(withAbsoluteUrls(html, base)).toBe(
      `<p><img src="${media}/original.jpg" alt="Photo" width="2000" height="1000" srcset="${media}/640.webp 640w, ${media}/original.jpg 2000w" ` +
        'sizes="(max-width: 800px) 100vw, 800px" loading="lazy" decoding="async" /></p>\n',
    );
  });

  it("resolves other relative links and images against the post's page and keeps absolute ones", () => {
    const html = renderMarkdown(
      '[about](/about) [next](next-post#top) [top](#top) [mail](mailto:a@example.com) [x](https://x.example/a) ![i](img/a.png)',
    );
    const absolute = withAbsoluteUrls(html, base);
    expect(absolute).toContain('<a href="https://blog.example.com/about">about</a>');
    expect(absolute).toContain('<a href="https://blog.example.com/blog/next-post#top">next</a>');
    expect(absolute).toContain('<a href="https://blog.example.com/blog/pictures#top">top</a>');
    expect(absolute).toContain('<a href="mailto:a@example.com">mail</a>');
    expect(absolute).toContain('href="https://x.example/a"');
    expect(absolute).toContain('<img src="https://blog.example.com/blog/img/a.png"');
  });

  it('keeps a URL escaped in its attribute and leaves text that reads like an attribute alone', () => {
    const html = renderMarkdown('a href="/x" b <a href=\'/p?a=1&b=">\'>z</a>');
    expect(withAbsoluteUrls(html, base)).toBe('<p>a href="/x" b <a href="https://blog.example.com/p?a=1&amp;b=%22%3E">z</a></p>\n');
  });
});

describe('summaryOf', () => {
  it('is the plain text of the HTML, entities read, white space collapsed, each tag a word break', () => {
    expect(summaryOf('<h1>Tom &amp; Jerry</h1>\n<p>Cats&lt;3 <strong>mice</strong>&#33;</p><p>Next</p>')).toBe(
      'Tom & Jerry Cats<3 mice! Next',
    );
  });

  it('keeps a text of at most 280 characters whole', () => {
    const text = 'x'.repeat(SUMMARY_MAX - 2) + ' y';
    expect(summaryOf(`<p>${text}</p>`)).toBe(text);
  });

  it('cuts a longer text at the last word boundary within 280 characters, with an ellipsis', () => {
    const words = Array.from({ length: 100 }, (_, i) => `word${i}`).join(' ');
    const summary = summaryOf(`<p>${words}</p>`);
    expect(summary.endsWith('…')).toBe(true);
    const kept = summary.slice(0, -1);
    expect([...kept].length).toBeLessThanOrEqual(SUMMARY_MAX);
    expect(words.startsWith(`${kept} `)).toBe(true);
    expect(words.slice(kept.length + 1)).toMatch(/^word\d+ /);
  });

  it('reads as far into a long body as its text needs, past markup that holds no text', () => {
    const words = Array.from({ length: 2000 }, (_, i) => `word${i}`).join(' ');
    const summary = summaryOf(`<p><img src="https://img.example/${'x'.repeat(5000)}.png" /></p>\n<p><strong>${words}</strong></p>`);
    expect(summary).toBe(summaryOf(`<p>${words.slice(0, 400)}</p>`));
    expect(summary).toMatch(/^word0 word1 .* word\d+…$/);
  });

  it('cuts one long word at 280 characters (code points, not UTF-16 units)', () => {
    const summary = summaryOf(`<p>${'👋'.repeat(400)}</p>`);
    expect(summary).toBe(`${'👋'.repeat(SUMMARY_MAX)}…`);
  });
});
