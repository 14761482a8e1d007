import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { renderMarkdown } from './markdown-html.js';

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

/** The `href` and `src` values of every tag, with the entities a browser decodes decoded. */
function urlsOf(html: string): string[] {
  return tagsOf(html).flatMap((tag) =>
    [...tag.matchAll(/\s(?:href|src)="([^"]*)"/gi)].map((match) =>
      match[1]!
        .replace(/&#x([0-9a-f]+);?/gi, (_, hex: string) => String.fromCodePoint(parseInt(hex, 16)))
        .replace(/&#(\d+);?/g, (_, dec: string) => String.fromCodePoint(Number(dec)))
        .replace(/&quot;/g, '"')
        .replace(/&lt;/g, '<')
        .replace(/&gt;/g, '>')
        .replace(/&amp;/g, '&'),
    ),
  );
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

  it('renders an image with its alt text and title', () => {
    expect(renderMarkdown('![A cat](https://img.example.com/cat.png "Cat")')).toBe(
      '<p><img src="https://img.example.com/cat.png" alt="A cat" title="Cat" /></p>\n',
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

describe('the inertness check itself', () => {
  it('rejects markup a browser would execute', () => {
    expect(() => expectInert('<img src="x" onerror="alert(1)" />')).toThrow();
    expect(() => expectInert('<a href="java&#x09;script:alert(1)">x</a>')).toThrow();
    expect(() => expectInert('<SCRIPT>alert(1)</SCRIPT>')).toThrow();
    expect(() => expectInert('<img src="data:image/png;base64,AA" />')).toThrow();
  });

  it('accepts escaped text that only looks like markup', () => {
    expect(() => expectInert('<p>&lt;img src=x onerror=alert(1)&gt; javascript:</p>')).not.toThrow();
  });
});
