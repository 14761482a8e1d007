import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RENDER_LIMITS, RenderRefused, renderMarkdown, type RenderMedia } from './markdown-html.js';

/** Tags that run code, embed another document or restyle the page. */
const DANGEROUS_TAG = /<\s*\/?\s*(script|iframe|frame|svg|math|object|embed|style|form|input|textarea|link|meta|base)\b/i;

/** Every tag in the output: the sanitiser escapes `<` and `>` in text and attribute values. */
function tagsOf(html: string): string[] {
  return html.match(/<[^>]*>/g) ?? [];
}

/** The attribute names of a tag, read after blanking its (always double-quoted) values. */
function attributeNamesOf(tag: string): string[] {
  const withoutValues = tag.replace(/"[^"]*"/g, '""');
  return [...withoutValues.matchAll(/\s([^\s"'=<>/]+)(?==|\s|\/?>)/g)].map((match) => match[1]!.toLowerCase());
}

/** Decodes the entities a browser decodes in an attribute value. */
function decoded(value: string): string {
  return value
    .replace(/&#x([0-9a-f]+);?/gi, (_, hex: string) => String.fromCodePoint(parseInt(hex, 16)))
    .replace(/&#(\d+);?/g, (_, dec: string) => String.fromCodePoint(Number(dec)))
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

/** The `href` and `src` values of every tag, and each URL of a `srcset`, with the entities a browser decodes decoded. */
function urlsOf(html: string): string[] {
  return tagsOf(html).flatMap((tag) => [
    ...[...tag.matchAll(/\s(?:href|src)="([^"]*)"/gi)].map((match) => decoded(match[1]!)),
    ...[...tag.matchAll(/\ssrcset="([^"]*)"/gi)].flatMap((match) =>
      decoded(match[1]!)
        .split(',')
        .map((candidate) => candidate.trim().split(/\s+/)[0]!),
    ),
  ]);
}

/** Fails when the HTML holds anything a browser would execute or a script-bearing URL. */
function expectInert(html: string): void {
  expect(html).not.toMatch(DANGEROUS_TAG);
  for (const tag of tagsOf(html)) {
    const names = attributeNamesOf(tag);
    expect(
      names.filter((name) => /^on[a-z]+$/.test(name) || name === 'style' || name === 'srcdoc'),
      tag,
    ).toEqual([]);
  }
  for (const url of urlsOf(html)) {
    // A scheme, once the tabs, newlines and controls a browser ignores are gone. (`data:` later
    // in a relative path, as in `onerror=data:x`, is only a path.)
    expect(url.replace(/[\s\p{Cc}]/gu, ''), url).not.toMatch(/^(javascript|vbscript|data):/i);
    // Parsed as a browser parses it (tabs, newlines and leading controls removed), relative to a page.
    expect(['http:', 'https:', 'mailto:'], url).toContain(new URL(url, 'https://blog.example.com/blog/post').protocol);
  }
}

describe('renderMarkdown', () => {
  it('renders headings, emphasis, strikethrough and lists', () => {
    expect(renderMarkdown('# Title\n\n## Sub\n\nSome *em*, **strong** and ~~gone~~.\n\n- a\n- b\n\n1. one\n')).toBe(
      '<h1>Title</h1>\n<h2>Sub</h2>\n<p>Some <em>em</em>, <strong>strong</strong> and <s>gone</s>.</p>\n' +
        '<ul>\n<li>a</li>\n<li>b</li>\n</ul>\n<ol>\n<li>one</li>\n</ol>\n',
    );
  });

  it('keeps the language class of a code fence and escapes the code', () => {
    expect(renderMarkdown('```ts\nif (a < b && c) {}\n```\n')).toBe(
      '<pre><code class="language-ts">if (a &lt; b &amp;&amp; c) {}\n</code></pre>\n',
    );
  });

  it('keeps language-* classes on pre and code and drops every other class', () => {
    expect(renderMarkdown('<pre class="language-js evil"><code class="x language-js">y</code></pre>')).toBe(
      '<pre class="language-js"><code class="language-js">y</code></pre>',
    );
  });

  it('renders a table, turning the column alignment into align attributes', () => {
    const html = renderMarkdown('| a | b | c |\n|:--|--:|---|\n| 1 | 2 | 3 |\n');
    expect(html).toContain('<th align="left">a</th>\n<th align="right">b</th>\n<th>c</th>');
    expect(html).toContain('<td align="left">1</td>\n<td align="right">2</td>\n<td>3</td>');
    expect(html).not.toContain('style');
  });

  it('marks links off the site nofollow noopener and leaves relative and mailto links alone', () => {
    expect(renderMarkdown('[a](https://example.com/x?a=1&b=2 "T") [b](/blog/other) [c](mailto:me@example.com)')).toBe(
      '<p><a href="https://example.com/x?a=1&amp;b=2" title="T" rel="nofollow noopener">a</a> ' +
        '<a href="/blog/other">b</a> <a href="mailto:me@example.com">c</a></p>\n',
    );
  });

  it.each([
    ['a backslash after the slash', '/\\evil.example/x'],
    ['two backslashes', '\\\\evil.example/x'],
    ['a tab entity between the slashes', '/&#9;/evil.example/x'],
    ['a newline entity between the slashes', '/&#10;/evil.example/x'],
    ['a protocol-relative URL', '//evil.example/x'],
    ['an uppercase scheme with spaces around', ' HTTPS://evil.example/x '],
  ])('marks a link that a browser resolves off the site through %s nofollow noopener', (_, href) => {
    const html = renderMarkdown(`<a href="${href}">x</a>`, 'https://blog.example.com');
    expect(html).toContain(' rel="nofollow noopener"');
    const url = /href="([^"]*)"/
      .exec(html)![1]!
      .replace(/&#x?[0-9a-f]+;/gi, (entity) => String.fromCodePoint(Number(entity.slice(2, -1).replace(/^x/i, '0x'))));
    expect(new URL(url, 'https://blog.example.com/blog/post').host).toBe('evil.example');
  });

  it('leaves links to the site itself alone, absolute or relative, and marks another origin', () => {
    const site = 'https://blog.example.com';
    expect(renderMarkdown('[a](https://blog.example.com/blog/x) [b](/blog/y) [c](../z) [d](?q=1)', site)).toBe(
      '<p><a href="https://blog.example.com/blog/x">a</a> <a href="/blog/y">b</a> <a href="../z">c</a> <a href="?q=1">d</a></p>\n',
    );
    expect(renderMarkdown('[a](http://blog.example.com/x) [b](https://blog.example.com:8443/x)', site)).toBe(
      '<p><a href="http://blog.example.com/x" rel="nofollow noopener">a</a> <a href="https://blog.example.com:8443/x" rel="nofollow noopener">b</a></p>\n',
    );
  });

  it('links bare URLs and replaces a rel the author wrote', () => {
    expect(renderMarkdown('see www.example.org')).toBe(
      '<p>see <a href="http://www.example.org" rel="nofollow noopener">www.example.org</a></p>\n',
    );
    expect(renderMarkdown('<a href="/x" rel="opener">x</a>')).toBe('<p><a href="/x">x</a></p>\n');
  });

  it('renders an image with its alt text and title, loading lazily and decoding off the main thread', () => {
    expect(renderMarkdown('![A cat](https://img.example.com/cat.png "Cat")')).toBe(
      '<p><img src="https://img.example.com/cat.png" alt="A cat" title="Cat" loading="lazy" decoding="async" /></p>\n',
    );
  });

  it("keeps an image's width and height and a valid loading or decoding the author chose, and drops a srcset, sizes or others", () => {
    expect(
      renderMarkdown(
        '<img src="/cat.png" alt="" width="30" height="20" loading="eager" decoding="sync" srcset="/a.png 1x" sizes="10vw" ismap usemap="#m">',
      ),
    ).toBe('<img src="/cat.png" alt="" width="30" height="20" loading="eager" decoding="sync" />');
    expect(renderMarkdown('<img src="/cat.png" loading="now" decoding="later">')).toBe(
      '<img src="/cat.png" loading="lazy" decoding="async" />',
    );
  });

  it('keeps harmless raw HTML such as details, summary, ins and sup', () => {
    expect(renderMarkdown('<details><summary>More</summary>\n\n<ins>new</ins> x<sup>2</sup>\n\n</details>\n')).toBe(
      '<details><summary>More</summary>\n<p><ins>new</ins> x<sup>2</sup></p>\n</details>\n',
    );
  });

  describe('with a hostile body', () => {
    const hostile: [string, string][] = [
      ['a script element', '<script>alert(1)</script>'],
      ['an uppercase script element', '<SCRIPT>alert(1)</SCRIPT>'],
      ['a script split by another', '<scr<script>ipt>alert(1)</script>'],
      ['an unclosed script at the end', 'text\n\n<script'],
      ['an unclosed script tag inline', 'text <script src=https://evil.example/x.js'],
      ['an event handler on an image', '<img src=x onerror=alert(1)>'],
      ['a javascript: markdown link', '[x](javascript:alert(1))'],
      ['an uppercase JAVASCRIPT: markdown link', '[x](JAVASCRIPT:alert(1))'],
      ['a tab entity inside the scheme', '[x](java&#x09;script:alert(1))'],
      ['a javascript: href', '<a href="javascript:alert(1)">x</a>'],
      ['an entity-encoded, mixed-case javascript: href', '<a href=" &#106;aVaScRiPt:alert(1)">x</a>'],
      ['an iframe', '<iframe src="https://evil.example/"></iframe>'],
      ['an svg with onload', '<svg onload=alert(1)>'],
      ['a style element', '<style>body{display:none}</style>'],
      ['a style attribute', '<div style="background:url(javascript:alert(1))">x</div>'],
      ['a data: href', '<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">x</a>'],
      ['a data: image source', '<img src="data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+">'],
      ['a data: markdown image', '![x](data:image/png;base64,AAAA)'],
      ['an object', '<object data="https://evil.example/x.swf"></object>'],
      ['an embed', '<embed src="https://evil.example/x.swf">'],
      ['a form with an input', '<form action="https://evil.example/"><input name="password"></form>'],
      ['a script inside math', '<math><mtext><script>alert(1)</script></mtext></math>'],
      ['a style inside math inside a table', '<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>'],
    ];

    it.each(hostile)('never produces executable markup from %s', (_, body) => {
      expectInert(renderMarkdown(body));
    });

    it('drops the content of script and style elements instead of showing it as text', () => {
      expect(renderMarkdown('<script>alert(1)</script>\n\n<style>body{}</style>\n\nafter').trim()).toBe('<p>after</p>');
    });

    it('keeps the text of a disallowed element that is not code', () => {
      expect(renderMarkdown('<form action="https://evil.example/">Kept</form>')).toBe('Kept');
    });

    it('never produces executable markup from any mix of hostile fragments', () => {
      const fragment = fc.constantFrom(
        '<script>',
        '</script>',
        '</',
        '<',
        'onerror=',
        'onload=alert(1)',
        'javascript:',
        'JaVaScRiPt:',
        'data:text/html,',
        '"',
        "'",
        '<img src=x ',
        '<a href=',
        '<svg ',
        '<iframe ',
        '<style>',
        '>',
        '[a](',
        '![a](',
        ')',
        '&#',
        '&#x09;',
        'x',
        ' ',
        '\n',
        '`',
      );
      fc.assert(
        fc.property(fc.array(fragment, { maxLength: 40 }), (fragments) => {
          expectInert(renderMarkdown(fragments.join('')));
        }),
        { numRuns: 300 },
      );
    });
  });
});

describe('renderMarkdown within RENDER_LIMITS', () => {
  it('renders a body of exactly the longest length, and refuses one character more without parsing it', () => {
    const fits = 'word '.repeat(RENDER_LIMITS.bodyChars / 4).slice(0, RENDER_LIMITS.bodyChars);
    expect(fits).toHaveLength(RENDER_LIMITS.bodyChars);
    expect(renderMarkdown(fits)).toBe(`<p>${fits.trimEnd()}</p>\n`);
    expect(() => renderMarkdown(`${fits}x`)).toThrow(new RenderRefused(`the body is longer than ${RENDER_LIMITS.bodyChars} characters`));
  });

  it('refuses a reference link whose long URL is used again and again, before rendering it', () => {
    // 50 uses of a 100,000-character URL: 5 M of text in its tokens, from a body of 100 KB.
    const body = `[a]: https://example.com/${'p'.repeat(100_000)}\n\n${'[a] '.repeat(50)}`;
    expect(() => renderMarkdown(body)).toThrow(new RenderRefused('the body repeats too much text (reference links)'));
  });

  it('renders a reference link used thousands of times when its text stays within the limit', () => {
    const html = renderMarkdown(`[a]: /b\n\n${'[a] '.repeat(10_000)}`);
    expect(html.match(/<a href="\/b">a<\/a>/g)).toHaveLength(10_000);
  });
});

describe('renderMarkdown with images of the media library', () => {
  const ID = 'd3rmw6a2ztq5hkx4np7ucb2fya';
  const API = 'https://api.example.com/api/v1/content/media';
  /** A 2000 × 1000 JPEG with its variants (by width, then type, as stored). */
  const photo: RenderMedia = {
    id: ID,
    files: [
      { name: 'original.jpg', contentType: 'image/jpeg', width: 2000, height: 1000 },
      ...[320, 640, 1024, 1600].flatMap((width) => [
        { name: `${width}.jpg`, contentType: 'image/jpeg' as const, width, height: width / 2 },
        { name: `${width}.webp`, contentType: 'image/webp' as const, width, height: width / 2 },
      ]),
    ],
  };
  const SIZES = 'sizes="(max-width: 800px) 100vw, 800px"';
  const IMG_ATTRIBUTES = ['src', 'alt', 'title', 'width', 'height', 'srcset', 'sizes', 'loading', 'decoding'];
  const srcsetBeside = (base: string) =>
    `srcset="${[320, 640, 1024, 1600].map((w) => `${base}/${w}.webp ${w}w`).join(', ')}, ${base}/original.jpg 2000w"`;

  it('gives an image of a known media the size of the file it names, a srcset of the WebP variants and the original, and sizes', () => {
    expect(renderMarkdown(`![A photo](${API}/${ID}/original.jpg "Title")`, 'https://blog.example.com', [photo])).toBe(
      `<p><img src="${API}/${ID}/original.jpg" alt="A photo" title="Title" width="2000" height="1000" ` +
        `${srcsetBeside(`${API}/${ID}`)} ${SIZES} loading="lazy" decoding="async" /></p>\n`,
    );
    expect(renderMarkdown(`<img src="${API}/${ID}/640.jpg" alt="x">`, undefined, [photo])).toContain(' width="640" height="320" ');
  });

  it('matches our media URLs whatever their origin, and relative ones, and builds the srcset beside the src', () => {
    for (const base of [
      'http://localhost:3000/api/v1/content/media',
      '//cdn.example.com/api/v1/content/media',
      '/api/v1/content/media',
      '/prefix/api/v1/content/media',
    ]) {
      const html = renderMarkdown(`![p](${base}/${ID}/1024.webp)`, undefined, [photo]);
      expect(html, base).toContain(` width="1024" height="512" ${srcsetBeside(`${base}/${ID}`)} ${SIZES} `);
    }
  });

  it('renders as a plain image one whose media is not known (deleted), whose file the media lacks, or whose URL only looks like ours', () => {
    const other = 'bbbbbbbbbbbbbbbbbbbbbbbbbb';
    for (const src of [
      `${API}/${other}/original.jpg`,
      `${API}/${ID}/2400.jpg`,
      `${API}/${ID}/original.jpg?v=2`,
      `${API}/${ID.toUpperCase()}/original.jpg`,
      `javascript:alert(1)//api/v1/content/media/${ID}/original.jpg`,
      `https://img.example.com/media/${ID}/original.jpg`,
    ]) {
      const html = renderMarkdown(`<img src="${src}" width="5">`, undefined, [photo]);
      expect(html, src).not.toMatch(/srcset|sizes|height/);
      expect(html, src).toMatch(/ loading="lazy" decoding="async" \/>/);
    }
  });

  it('replaces the srcset, sizes, width and height an author wrote on an image of ours', () => {
    const html = renderMarkdown(
      `<img src="${API}/${ID}/original.jpg" width="1" height="1" srcset="https://evil.example/x.jpg 9000w" sizes="1px">`,
      undefined,
      [photo],
    );
    expect(html).toBe(
      `<img src="${API}/${ID}/original.jpg" width="2000" height="1000" ${srcsetBeside(`${API}/${ID}`)} ${SIZES} loading="lazy" decoding="async" />`,
    );
  });

  it('lists the original alone in the srcset of a media too narrow for variants, and no WebP of another type twice', () => {
    const small: RenderMedia = { id: ID, files: [{ name: 'original.webp', contentType: 'image/webp', width: 300, height: 200 }] };
    expect(renderMarkdown(`![s](/api/v1/content/media/${ID}/original.webp)`, undefined, [small])).toBe(
      `<p><img src="/api/v1/content/media/${ID}/original.webp" alt="s" width="300" height="200" srcset="/api/v1/content/media/${ID}/original.webp 300w" ${SIZES} loading="lazy" decoding="async" /></p>\n`,
    );
  });

  it('never produces executable markup from hostile fragments around an image of ours', () => {
    const fragment = fc.constantFrom(
      `<img src="${API}/${ID}/original.jpg" `,
      `![a](/api/v1/content/media/${ID}/640.webp)`,
      'onerror=alert(1) ',
      'srcset="javascript:alert(1) 1w" ',
      '"',
      '>',
      ' ',
      'x',
    );
    fc.assert(
      fc.property(fc.array(fragment, { maxLength: 12 }), (fragments) => {
        const html = renderMarkdown(fragments.join(''), undefined, [photo]);
        expectInert(html);
        for (const tag of tagsOf(html).filter((one) => one.startsWith('<img'))) {
          expect(IMG_ATTRIBUTES, tag).toEqual(expect.arrayContaining(attributeNamesOf(tag)));
        }
      }),
      { numRuns: 200 },
    );
  });
});

describe('the inertness check itself', () => {
  it('rejects markup a browser would execute', () => {
    expect(() => expectInert('<img src="x" onerror="alert(1)" />')).toThrow();
    expect(() => expectInert('<a href="java&#x09;script:alert(1)">x</a>')).toThrow();
    expect(() => expectInert('<SCRIPT>alert(1)</SCRIPT>')).toThrow();
    expect(() => expectInert('<img src="data:image/png;base64,AA" />')).toThrow();
    expect(() => expectInert('<img src="/x.png" srcset="/x.png 1w, javascript:alert(1) 2w" />')).toThrow();
  });

  it('accepts escaped text that only looks like markup', () => {
    expect(() => expectInert('<p>&lt;img src=x onerror=alert(1)&gt; javascript:</p>')).not.toThrow();
  });
});
