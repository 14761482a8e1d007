import { zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { importedPostOf, writerOf, type Writer } from './conventions.js';
import { dateOf } from './front-matter-values.js';
import { manifestLimits, manifestText, MAX_MANIFEST_BYTES, MAX_MANIFEST_DEPTH, MAX_MANIFEST_TOKENS, type Manifest } from './manifest.js';
import { readManifest } from './manifest-reader.js';
import { ArchiveRefused, checkZip, type ArchiveLimits } from './zip.js';
import {
  MAX_FRONT_MATTER_BYTES,
  MAX_FRONT_MATTER_DEPTH,
  MAX_FRONT_MATTER_KEYS,
  MAX_FRONT_MATTER_TOKENS,
  splitFrontMatter,
} from './front-matter.js';

const encoder = new TextEncoder();
const LIMITS: ArchiveLimits = { maxEntries: 100, maxInflatedBytes: 1 << 20, maxFileBytes: 1 << 16 };
const zipOf = (files: Record<string, string>) =>
  zipSync(Object.fromEntries(Object.entries(files).map(([name, text]) => [name, encoder.encode(text)])));

/** The refusal `checkZip` throws for these bytes (the HTTP adapter answers it with 422 archive-refused). */
async function refusal(bytes: Uint8Array, limits = LIMITS): Promise<{ reason: unknown; entry: unknown; detail: string }> {
  try {
    await checkZip(bytes, limits);
  } catch (error) {
    expect(error).toBeInstanceOf(ArchiveRefused);
    const refused = error as ArchiveRefused;
    return { reason: refused.reason, entry: refused.entry, detail: refused.message };
  }
  throw new Error('the archive was accepted');
}

/** Sets a 16- or 32-bit field of every header (local at `local`, central at `central`) of the zip. */
function patchHeaders(
  zip: Uint8Array,
  fields: { local?: number; central?: number; bits: 16 | 32; value: (old: number) => number },
): Uint8Array {
  const copy = zip.slice();
  const view = new DataView(copy.buffer);
  for (let at = 0; at + 4 <= copy.byteLength; at++) {
    const signature = view.getUint32(at, true);
    const offset = signature === 0x04034b50 ? fields.local : signature === 0x02014b50 ? fields.central : undefined;
    if (offset === undefined) continue;
    if (fields.bits === 16) view.setUint16(at + offset, fields.value(view.getUint16(at + offset, true)), true);
    else view.setUint32(at + offset, fields.value(view.getUint32(at + offset, true)) >>> 0, true);
  }
  return copy;
}

describe('checkZip', () => {
  it('lists the files in archive order, folders left out, and inflates each on demand', async () => {
    const zip = zipSync({ 'b.md': encoder.encode('bee'), 'dir/': new Uint8Array(0), 'dir/a.md': encoder.encode('ay') });
    const archive = await checkZip(zip, LIMITS);
    expect(archive.files.map((f) => f.path)).toEqual(['b.md', 'dir/a.md']);
    expect(new TextDecoder().decode(await archive.read(archive.files[1]!))).toBe('ay');
    archive.close();
  });

  it('marks a file declaring more than the per-file limit as too large, and never inflates it', async () => {
    const archive = await checkZip(zipOf({ 'big.md': 'x'.repeat(200), 'small.md': 'y' }), { ...LIMITS, maxFileBytes: 100 });
    expect(archive.files.map((f) => [f.path, f.tooLarge])).toEqual([
      ['big.md', true],
      ['small.md', false],
    ]);
    await expect(archive.read(archive.files[0]!)).rejects.toThrow(/not a readable file/);
    archive.close();
  });

  it('refuses an entry of ownLimits declaring more than its limit, naming it, and reads one within it once, while checking', async () => {
    const own = new Map([['manifest.json', 100]]);
    expect(await refusal(zipOf({ 'a.md': 'x', 'manifest.json': 'y'.repeat(101) }), { ...LIMITS, ownLimits: own })).toMatchObject({
      reason: 'too_large',
      entry: 'manifest.json',
    });
    // Within its own limit but over the per-file one: read, and from the bytes the check kept.
    const archive = await checkZip(zipOf({ 'manifest.json': 'z'.repeat(100) }), { ...LIMITS, maxFileBytes: 10, ownLimits: own });
    const [manifest] = archive.files;
    expect(manifest).toMatchObject({ path: 'manifest.json', tooLarge: false });
    archive.close(); // a second inflation would fail now
    expect(new TextDecoder().decode(await archive.read(manifest!))).toBe('z'.repeat(100));
  });

  it('refuses an entry of ownLimits that inflates past the size it declares, stopping there', async () => {
    const zip = patchHeaders(zipSync({ 'manifest.json': new Uint8Array(1 << 20) }), { local: 22, central: 24, bits: 32, value: () => 10 });
    expect(await refusal(zip, { ...LIMITS, ownLimits: new Map([['manifest.json', 100]]) })).toMatchObject({
      reason: 'size_mismatch',
      entry: 'manifest.json',
    });
  });

  it.each([
    ['../up.md', 'climbs out'],
    ['a/../../up.md', 'climbs out'],
    ['/abs.md', 'absolute'],
    ['C:/win.md', 'absolute'],
    ['back\\slash.md', 'backslash'],
    ['ctrl-é\u0001.md', 'control character'],
  ])('refuses the unsafe path %j', async (name, why) => {
    const refused = await refusal(zipOf({ 'ok.md': 'fine', [name]: 'x' }));
    expect(refused).toMatchObject({ reason: 'unsafe_path', entry: name });
    expect(refused.detail).toContain(why);
  });

  it('refuses an encrypted entry (general purpose bit 0)', async () => {
    const zip = patchHeaders(zipOf({ 'secret.md': 'x' }), { local: 6, central: 8, bits: 16, value: (flags) => flags | 1 });
    expect(await refusal(zip)).toMatchObject({ reason: 'encrypted', entry: 'secret.md' });
  });

  it('refuses a compression method other than stored or deflated', async () => {
    const zip = patchHeaders(zipOf({ 'bzip.md': 'x'.repeat(100) }), { local: 8, central: 10, bits: 16, value: () => 12 });
    expect(await refusal(zip)).toMatchObject({ reason: 'unsupported_compression', entry: 'bzip.md' });
  });

  it('refuses an entry whose CRC-32 does not match what it inflates to', async () => {
    const zip = patchHeaders(zipOf({ 'bent.md': 'some text' }), { local: 14, central: 16, bits: 32, value: (crc) => crc ^ 1 });
    expect(await refusal(zip)).toMatchObject({ reason: 'damaged', entry: 'bent.md' });
  });

  it('refuses an entry that inflates to more than it declares (a zip bomb), before reading any file', async () => {
    const zip = patchHeaders(zipSync({ 'bomb.md': new Uint8Array(1 << 20) }), { local: 22, central: 24, bits: 32, value: () => 10 });
    expect(await refusal(zip)).toMatchObject({ reason: 'size_mismatch', entry: 'bomb.md' });
  });

  it('refuses more entries, or more declared bytes, than the limits allow, and bytes that are not a zip', async () => {
    expect(await refusal(zipOf({ a: '', b: '', c: '' }), { ...LIMITS, maxEntries: 2 })).toMatchObject({
      reason: 'too_many_entries',
      entry: null,
    });
    expect(await refusal(zipOf({ a: 'x'.repeat(60), b: 'y'.repeat(60) }), { ...LIMITS, maxInflatedBytes: 100 })).toMatchObject({
      reason: 'too_large',
    });
    expect(await refusal(encoder.encode('PK not really'))).toMatchObject({ reason: 'not_a_zip', entry: null });
  });
});

describe('splitFrontMatter', () => {
  it('keeps the body after the closing line byte for byte, --- inside it included', () => {
    expect(splitFrontMatter('---\ntitle: A\n---\n\n---\nbody\n')).toEqual({ data: { title: 'A' }, body: '\n---\nbody\n' });
    expect(splitFrontMatter('\uFEFF---\r\ntitle: A\r\n---\r\nx')).toEqual({ data: { title: 'A' }, body: 'x' });
    expect(splitFrontMatter('+++\ntitle = "T"\n+++\nx')).toEqual({ data: { title: 'T' }, body: 'x' });
    expect(splitFrontMatter('---\n---\n')).toEqual({ data: {}, body: '' });
  });

  it('reports a file without front matter, an unclosed one, one that does not parse, and one that is not a mapping', () => {
    expect(splitFrontMatter('# Title')).toEqual({ error: expect.stringContaining('does not start with front matter') });
    expect(splitFrontMatter('---\ntitle: A\n')).toEqual({ error: expect.stringContaining('not closed') });
    expect(splitFrontMatter('---\ntitle: A\ntitle: B\n---\n')).toEqual({ error: expect.stringContaining('does not parse') });
    expect(splitFrontMatter('+++\ntitle = \n+++\n')).toEqual({ error: expect.stringContaining('TOML front matter does not parse') });
    expect(splitFrontMatter('---\n- a\n---\n')).toEqual({ error: expect.stringContaining('not a mapping') });
  });
});

describe('manifestLimits', () => {
  // As the export writes them: pretty-printed, so each entry costs what a second one adds.
  const manifestOf = (files: Manifest['files']): Manifest => ({
    format: 'margincms-export',
    version: 1,
    exportedAt: '2026-01-01T00:00:00.000Z',
    layout: 'hugo',
    filters: { status: ['draft', 'published', 'archived'], tag: 't'.repeat(40) },
    counts: { posts: 1_000_000, draft: 1_000_000, published: 1_000_000, archived: 1_000_000 },
    files,
  });
  const bytesOf = (files: Manifest['files']) => Buffer.byteLength(manifestText(manifestOf(files)));
  /** `{`, `[`, `,` and `:` outside strings, as the reader counts them (no string here holds one). */
  const tokensOf = (files: Manifest['files']) =>
    manifestText(manifestOf(files))
      .replace(/"[^"]*"/g, '')
      .replace(/[^{[,:]/g, '').length;
  const id = '01JDQ7W3E5R7T9Y1V3N5Q7P9AS';
  const slug = 's'.repeat(100);
  // The longest entries: a bundled post of the longest slug in the Hugo layout, and an image beside it named by its whole hash.
  const post = { path: `content/posts/${slug}/index.md`, id, bytes: 1_048_576, sha256: 'f'.repeat(64) };
  const image = {
    path: `content/posts/${slug}/${'f'.repeat(64)}.jpeg`,
    id,
    bytes: 1_073_741_824,
    sha256: 'f'.repeat(64),
    kind: 'image' as const,
  };

  it('holds the manifest of an export listing as many of the longest posts and images as an archive may hold entries', () => {
    for (const count of [1, 2, 1000, 50_000]) {
      const files = Array.from({ length: count }, (_, i) => (i % 2 === 0 ? image : post));
      expect(bytesOf(files)).toBeLessThanOrEqual(manifestLimits(count).bytes);
      expect(tokensOf(files)).toBeLessThanOrEqual(manifestLimits(count).tokens);
    }
    expect(bytesOf([post, post]) - bytesOf([post])).toBe(303);
    expect(bytesOf([image, image]) - bytesOf([image])).toBe(390);
  });

  it('never passes MAX_MANIFEST_BYTES, and MAX_MANIFEST_TOKENS holds a manifest of that many bytes of the shortest entries', () => {
    expect(manifestLimits(1_000_000).bytes).toBe(MAX_MANIFEST_BYTES);
    expect(manifestLimits(1_000_000).tokens).toBe(MAX_MANIFEST_TOKENS);
    const shortest = { path: 'a.md', id, bytes: 1, sha256: 'f'.repeat(64) };
    const perEntry = bytesOf([shortest, shortest]) - bytesOf([shortest]);
    const entries = Math.ceil(MAX_MANIFEST_BYTES / perEntry);
    expect(tokensOf([shortest]) + (entries - 1) * (tokensOf([shortest, shortest]) - tokensOf([shortest]))).toBeLessThan(
      MAX_MANIFEST_TOKENS,
    );
  });
});

describe('readManifest', () => {
  const bytes = (text: string) => encoder.encode(text);
  const files = (count: number) =>
    `{"format":"margincms-export","version":1,"files":[${Array.from({ length: count }, (_, i) => `{"path":"p${i}.md","bytes":${i},"sha256":"x"}`).join(',')}]}`;

  it('parses a manifest of as many tokens as allowed, and refuses one more without parsing it', async () => {
    // 7 tokens before the entries ({ : , : , : [), 6 an entry ({ : , : , :), and a comma between two.
    const text = files(10);
    expect(text.replace(/"[^"]*"/g, '').replace(/[^{[,:]/g, '')).toHaveLength(7 + 10 * 6 + 9);
    const within = await readManifest(bytes(text), ['p3.md'], { maxTokens: 76, maxDepth: 8 });
    expect(within).toMatchObject({ format: 'margincms-export', files: { paths: ['p3.md'], bytes: [3] } });
    expect(await readManifest(bytes(text), ['p3.md'], { maxTokens: 75, maxDepth: 8 })).toEqual({ over: 'tokens' });
  });

  it('counts no token inside a string, escaped quotes included, and refuses nesting past the depth before parsing', async () => {
    // The path is written "a\\\",{[:,.md" (an escaped backslash, then an escaped quote); 18 tokens outside it, nested 4 deep.
    const text = String.raw`{"format":"margincms-export","version":1,"files":[{"path":"a\\\",{[:,.md","bytes":1,"sha256":"x"}],"x":[[[]]]}`;
    const path = String.raw`a\",{[:,.md`;
    expect(await readManifest(bytes(text), [path], { maxTokens: 18, maxDepth: 4 })).toMatchObject({
      files: { paths: [path] },
    });
    expect(await readManifest(bytes(text), [path], { maxTokens: 17, maxDepth: 4 })).toEqual({ over: 'tokens' });
    expect(await readManifest(bytes(text), [], { maxTokens: 18, maxDepth: 3 })).toEqual({ over: 'depth' });
    expect(await readManifest(bytes('['.repeat(1_000_000)), [], { maxTokens: 1e9, maxDepth: 8 })).toEqual({ over: 'depth' });
  });

  it(
    "parses a manifest of MAX_MANIFEST_TOKENS of the costliest tokens (distinct keys) within the worker's heap",
    { timeout: 60_000 },
    async () => {
      const keys = Array.from({ length: MAX_MANIFEST_TOKENS / 2 - 8 }, (_, i) => `"k${i}":0`).join(',');
      const text = `{"format":"margincms-export","version":1,"files":[{${keys}}]}`;
      expect(Buffer.byteLength(text)).toBeLessThan(MAX_MANIFEST_BYTES);
      expect(await readManifest(bytes(text), [], { maxTokens: MAX_MANIFEST_TOKENS, maxDepth: MAX_MANIFEST_DEPTH })).toMatchObject({
        format: 'margincms-export',
        files: { paths: [] },
      });
    },
  );
});

describe('splitFrontMatter: limits, so that no file holds the server', () => {
  const yaml = (matter: string) => splitFrontMatter(`---\n${matter}\n---\nbody`);
  const keys = (count: number, separator = '\n') => Array.from({ length: count }, (_, i) => `k${i}: ${i}`).join(separator);

  it('reads front matter at the limits: 64 KiB, 250 keys, nested 32 deep', () => {
    expect(MAX_FRONT_MATTER_BYTES).toBe(64 * 1024);
    // `title: "…"` and the line's end take 10 bytes.
    const big = yaml(`title: "${'x'.repeat(MAX_FRONT_MATTER_BYTES - 10)}"`);
    expect('data' in big && (big.data.title as string).length).toBe(MAX_FRONT_MATTER_BYTES - 10);
    expect(yaml(keys(MAX_FRONT_MATTER_KEYS))).toMatchObject({
      data: { k0: 0, [`k${MAX_FRONT_MATTER_KEYS - 1}`]: MAX_FRONT_MATTER_KEYS - 1 },
    });
    const deep = `a: ${'['.repeat(MAX_FRONT_MATTER_DEPTH - 1)}${']'.repeat(MAX_FRONT_MATTER_DEPTH - 1)}`;
    expect(yaml(deep)).toHaveProperty('data');
  });

  it('skips front matter over 64 KiB without parsing it', () => {
    expect(yaml(`title: "${'x'.repeat(MAX_FRONT_MATTER_BYTES)}"`)).toEqual({
      error: `the YAML front matter is ${MAX_FRONT_MATTER_BYTES + 10} bytes, larger than the ${MAX_FRONT_MATTER_BYTES} bytes a front matter may be`,
    });
    expect(splitFrontMatter(`+++\ntitle = "${'x'.repeat(MAX_FRONT_MATTER_BYTES)}"\n+++\n`)).toEqual({
      error: expect.stringContaining('TOML front matter is'),
    });
  });

  it('skips more than 250 keys (YAML and TOML), and more than 1000 YAML tokens before parsing', () => {
    expect(yaml(keys(MAX_FRONT_MATTER_KEYS + 1))).toEqual({ error: `the YAML front matter has more than ${MAX_FRONT_MATTER_KEYS} keys` });
    const flowKeys = Array.from({ length: MAX_FRONT_MATTER_KEYS + 1 }, (_, i) => `k${i}`).join(', ');
    expect(yaml(`a: {${flowKeys}}`)).toEqual({ error: `the YAML front matter has more than ${MAX_FRONT_MATTER_KEYS} keys` });
    const toml = Array.from({ length: MAX_FRONT_MATTER_KEYS + 1 }, (_, i) => `k${i} = ${i}`).join('\n');
    expect(splitFrontMatter(`+++\n${toml}\n+++\n`)).toEqual({ error: `the TOML front matter has more than ${MAX_FRONT_MATTER_KEYS} keys` });
    expect(yaml(`a: [${Array(MAX_FRONT_MATTER_TOKENS).fill('x').join(',')}]`)).toEqual({
      error: expect.stringContaining(`has more than ${MAX_FRONT_MATTER_TOKENS} keys, values and indicators`),
    });
  });

  it.each([
    ['[[[[…', `a: ${'['.repeat(40_000)}`],
    ['[{[{…', `a: ${'[{'.repeat(20_000)}`],
    ['{a: {a: …', `a: ${'{a: '.repeat(10_000)}`],
    ['nested blocks', Array.from({ length: MAX_FRONT_MATTER_DEPTH + 1 }, (_, i) => `${' '.repeat(i)}k${i}:`).join('\n')],
    ['nested block sequences', Array.from({ length: MAX_FRONT_MATTER_DEPTH + 1 }, (_, i) => `${' '.repeat(i)}-`).join('\n')],
  ])('skips %s nested more than 32 deep', (_, matter) => {
    expect(yaml(matter)).toEqual({ error: `the YAML front matter is nested more than ${MAX_FRONT_MATTER_DEPTH} deep` });
    expect(splitFrontMatter(`+++\na = ${'['.repeat(40_000)}\n+++\n`)).toEqual({
      error: expect.stringContaining('TOML front matter does not parse'),
    });
  });

  it('finds a duplicate key of any mapping, nested or flow, by the name its property gets', () => {
    expect(yaml('title: A\ntitle: B')).toEqual({
      error: 'the YAML front matter does not parse: the key "title" appears twice in one mapping (line 2)',
    });
    expect(yaml('margin:\n  id: x\n  status: draft\n  id: y')).toEqual({ error: expect.stringContaining('"id" appears twice') });
    expect(yaml('a: {b: 1, c: 2, b: 3}')).toEqual({ error: expect.stringContaining('"b" appears twice') });
    expect(yaml('1: a\n"1": b')).toEqual({ error: expect.stringContaining('"1" appears twice') });
    // The same key in two mappings is no duplicate.
    expect(yaml('a: {k: 1}\nb: {k: 2}')).toEqual({ data: { a: { k: 1 }, b: { k: 2 } }, body: 'body' });
    expect(yaml(`${keys(MAX_FRONT_MATTER_KEYS - 1)}\nk0: again`)).toEqual({
      error: expect.stringContaining('"k0" appears twice in one mapping (line 250)'),
    });
  });
});

describe('front matter an attacker writes: aliases, deep TOML tables, values to quote', () => {
  it('skips a YAML alias bomb (nine levels of nine aliases) before it expands', () => {
    let matter = 'a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n';
    for (let i = 1; i < 9; i++)
      matter += `a${i}: &a${i} [${Array(9)
        .fill(`*a${i - 1}`)
        .join(', ')}]\n`;
    expect(splitFrontMatter(`---\n${matter}---\nbody`)).toEqual({ error: expect.stringContaining('Excessive alias count') });
  });

  it('skips TOML tables and dotted keys nested past the depth limit, and inline values past it without recursing', () => {
    const deep = Array(20_000).fill('a').join('.');
    for (const matter of [
      `[${deep}]\nx = 1`,
      `${deep} = 1`,
      `a = ${'['.repeat(30_000)}`,
      `a = ${'{b = '.repeat(10_000)}1${'}'.repeat(10_000)}`,
    ]) {
      const split = splitFrontMatter(`+++\n${matter}\n+++\nbody`);
      expect(split).toEqual({ error: expect.stringMatching(/nested more than 32 deep|excessively nested/) });
    }
  });

  it('names a bad value in a few words, never a list or mapping serialised: aliases of a 60 KB scalar make one of megabytes', () => {
    const matter = `title: T\ns: &s "${'x'.repeat(60_000)}"\na: &a [*s, *s, *s, *s]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\ndate: *b`;
    const split = splitFrontMatter(`---\n${matter}\n---\nbody`);
    if ('error' in split) throw new Error(split.error);
    const outcome = importedPostOf('posts/a.md', split.data, split.body, 'markdown');
    expect(outcome).toEqual({
      skip: { reason: 'invalid_front_matter', detail: "The front matter's date is not a date: a list.", slug: null },
    });
    const long = importedPostOf('posts/a.md', { title: 'T', date: 'y'.repeat(60_000) }, '', 'markdown');
    expect(long).toEqual({
      skip: { reason: 'invalid_front_matter', detail: `The front matter's date is not a date: "${'y'.repeat(100)}"….`, slug: null },
    });
  });
});

describe('dateOf', () => {
  it.each([
    ['2024-02-10T09:30:00+01:00', '2024-02-10T08:30:00.000Z'],
    ['2024-02-10T09:30:00.123Z', '2024-02-10T09:30:00.123Z'],
    ['2023-05-06 14:30:00 +0200', '2023-05-06T12:30:00.000Z'],
    ['2023-05-06 14:30', '2023-05-06T14:30:00.000Z'],
    ['2024-04-05', '2024-04-05T00:00:00.000Z'],
    ['Jul 08 2022', '2022-07-08T00:00:00.000Z'],
    ['July 8, 2022', '2022-07-08T00:00:00.000Z'],
  ])('reads %j as %s', (text, iso) => {
    expect(dateOf('date', text)?.toISOString()).toBe(iso);
  });

  it.each(['2024-02-30', '2024-13-01', 'yesterday', '2024-01-01T25:00:00Z', 'Foo 08 2022'])('refuses %j', (text) => {
    expect(() => dateOf('date', text)).toThrow(/date is not a date/);
  });

  it('takes a TOML date as it is, and an absent one as null', () => {
    expect(dateOf('date', new Date('2024-01-02T03:04:05.006Z'))?.toISOString()).toBe('2024-01-02T03:04:05.006Z');
    expect(dateOf('date', undefined)).toBeNull();
    expect(dateOf('date', null)).toBeNull();
  });
});

describe('importedPostOf', () => {
  it('reads an id only from a MarginCMS export (a MarginCMS file elsewhere keeps its status), and refuses one that is not a ULID there', () => {
    const data = { id: '01JDQ8Z4M6X2V7K9T3N5R8W1YB', title: 'T', status: 'archived' };
    expect(importedPostOf('t.md', data, '', 'markdown')).toMatchObject({ post: { id: null, status: 'archived' } });
    expect(importedPostOf('t.md', data, '', 'margincms')).toMatchObject({ post: { id: data.id, status: 'archived' } });
    expect(importedPostOf('t.md', { ...data, id: 'nope' }, '', 'margincms')).toMatchObject({ skip: { reason: 'invalid_front_matter' } });
  });

  it("reads the SEO fields from each generator's keys (seo_title or meta_title, seo_description or meta_description, canonical_url, canonicalURL or canonical)", () => {
    const none = { title: null, description: null, canonicalUrl: null };
    const seoOf = (path: string, data: Record<string, unknown>) => {
      const outcome = importedPostOf(path, { title: 'T', ...data }, '', 'markdown');
      return 'post' in outcome ? outcome.post.seo : outcome.skip;
    };
    expect(seoOf('_posts/2024-01-02-a.md', { seo_title: 'S', seo_description: 'D', canonical_url: 'https://a.example/x' })).toStrictEqual({
      title: 'S',
      description: 'D',
      canonicalUrl: 'https://a.example/x',
    });
    expect(seoOf('content/posts/a.md', { meta_title: 'M', meta_description: 'MD', canonicalURL: 'http://b.example/' })).toStrictEqual({
      title: 'M',
      description: 'MD',
      canonicalUrl: 'http://b.example/',
    });
    expect(seoOf('src/content/blog/a.md', { canonical: 'https://c.example/', description: 'the excerpt' })).toStrictEqual({
      ...none,
      canonicalUrl: 'https://c.example/',
    });
    expect(seoOf('a.md', {})).toStrictEqual(none);
  });

  it('leaves out an SEO value of another generator that the post rules refuse, not the post; an export file’s is read as written (the post rules then judge the post)', () => {
    const outcome = importedPostOf(
      'content/posts/a.md',
      { title: 'T', canonicalURL: '/relative/', seo_title: 'x'.repeat(201), meta_title: 'Short' },
      '',
      'markdown',
    );
    expect(outcome).toMatchObject({ post: { seo: { title: 'Short', description: null, canonicalUrl: null } } });
    const exported = importedPostOf(
      'a.md',
      { id: '01JDQ8Z4M6X2V7K9T3N5R8W1YB', title: 'T', status: 'draft', canonical_url: '/relative/' },
      '',
      'margincms',
    );
    expect(exported).toMatchObject({ post: { seo: { canonicalUrl: '/relative/' } } });
    expect(
      importedPostOf('a.md', { id: '01JDQ8Z4M6X2V7K9T3N5R8W1YB', title: 'T', status: 'draft', seo_title: { a: 1 } }, '', 'margincms'),
    ).toMatchObject({
      skip: { reason: 'invalid_front_matter' },
    });
  });

  it('derives a slug from a file name that is not one, and strips a Jekyll date', () => {
    expect(importedPostOf('posts/Hello World.md', { title: 'x' }, '', 'markdown')).toMatchObject({ post: { slug: 'hello-world' } });
    expect(importedPostOf('_posts/2024-01-02-new-year.markdown', { title: 'x' }, '', 'markdown')).toMatchObject({
      post: { slug: 'new-year', createdAt: new Date('2024-01-02T00:00:00Z') },
    });
  });
  const reasonOf = (path: string, data: Record<string, unknown>, writer: Writer) => {
    const outcome = importedPostOf(path, { title: 'A title', ...data }, '', writer);
    return 'skip' in outcome ? outcome.skip.reason : 'post';
  };

  it('takes a Jekyll site (a file under _posts/ or _drafts/, or a _config.yml) from its paths; a MarginCMS export stays one', () => {
    expect(writerOf('markdown', ['_config.yml', 'about.md'])).toBe('jekyll');
    expect(writerOf('markdown', ['site/_posts/2024-01-01-a.md', 'site/about.md'])).toBe('jekyll');
    expect(writerOf('markdown', ['_drafts/idea.md'])).toBe('jekyll');
    expect(writerOf('markdown', ['content/posts/a.md', 'about.md', 'posts/_config.yaml.bak'])).toBe('markdown');
    expect(writerOf('margincms', ['_posts/2024-01-01-a.md'])).toBe('margincms');
  });

  it("skips a Jekyll site's pages: every markdown file outside _posts/ and _drafts/, and layout: page", () => {
    for (const path of ['about.md', 'index.markdown', '_pages/contact.md', 'docs/guide.md']) {
      expect(reasonOf(path, {}, 'jekyll'), path).toBe('page');
    }
    expect(reasonOf('_posts/2024-01-01-about.md', { layout: 'page' }, 'jekyll')).toBe('page');
    expect(importedPostOf('about.md', { layout: 'page' }, '', 'jekyll')).toEqual({
      skip: { reason: 'page', detail: 'A page, not a post: outside _posts/ and _drafts/ of a Jekyll site.' },
    });
    expect(reasonOf('_posts/2024-01-01-a.md', { layout: 'post' }, 'jekyll')).toBe('post');
    expect(reasonOf('blog/_posts/2024-01-01-a.md', {}, 'jekyll')).toBe('post');
    expect(reasonOf('_drafts/a.md', {}, 'jekyll')).toBe('post');
    // Loose markdown files, of no generator: each is a post.
    expect(reasonOf('about.md', {}, 'markdown')).toBe('post');
  });

  it("skips a Hugo site's pages: a file or bundle directly under content/, the page section, type or layout page", () => {
    for (const path of [
      'content/about.md',
      'content/index.md',
      'content/about/index.md',
      'content/page/about.md',
      'content/pages/team.md',
    ]) {
      expect(reasonOf(path, {}, 'markdown'), path).toBe('page');
    }
    expect(reasonOf('content/posts/a.md', { type: 'page' }, 'markdown')).toBe('page');
    expect(reasonOf('content/posts/a.md', { layout: 'page' }, 'markdown')).toBe('page');
    for (const path of ['content/posts/a.md', 'content/post/a.md', 'content/blog/a/index.md', 'content/notes/2024/a.md']) {
      expect(reasonOf(path, { type: 'post', layout: 'single' }, 'markdown'), path).toBe('post');
    }
  });

  it("skips an Astro site's pages (src/pages/), not its content collections (src/content/)", () => {
    expect(reasonOf('src/pages/about.md', {}, 'markdown')).toBe('page');
    expect(reasonOf('src/pages/blog/index.md', {}, 'markdown')).toBe('page');
    expect(reasonOf('src/content/blog/first-post.md', { layout: '../../layouts/BlogPost.astro' }, 'markdown')).toBe('post');
    expect(reasonOf('src/content/pages/about.md', {}, 'markdown')).toBe('post');
  });

  it('reads every file of a MarginCMS export as a post, whatever its path or layout', () => {
    const data = { id: '01JDQ8Z4M6X2V7K9T3N5R8W1YB', status: 'published', layout: 'page', type: 'page' };
    for (const path of ['about.md', 'content/about.md', 'content/posts/about.md', 'src/pages/about.md']) {
      expect(reasonOf(path, data, 'margincms'), path).toBe('post');
    }
  });

  it("reads a Jekyll post's categories (words or a list) and category as tags, after its tags, once each as the tag rule writes them, up to the limit", () => {
    const tagsOf = (data: Record<string, unknown>, path = '_posts/2024-01-01-a.md') => {
      const outcome = importedPostOf(path, { title: 'T', ...data }, '', 'jekyll');
      if (!('post' in outcome)) throw new Error(outcome.skip.detail);
      return outcome.post.tags;
    };
    expect(tagsOf({ tags: 'ruby', categories: 'jekyll  update' })).toEqual(['ruby', 'jekyll', 'update']);
    expect(tagsOf({ tags: ['Ruby'], categories: ['ruby', 'Site  News'], category: 'Drafts' })).toEqual(['Ruby', 'Site  News', 'Drafts']);
    expect(tagsOf({ category: 'Site News' })).toEqual(['Site News']);
    expect(tagsOf({ categories: ['a', 'A', ' a '] }, '_drafts/b.md')).toEqual(['a']);
    const nineteen = Array.from({ length: 19 }, (_, i) => `t${i}`);
    expect(tagsOf({ tags: nineteen, categories: ['T0', 'c1', 'c2'] })).toEqual([...nineteen, 'c1']);
    // Its own tags are never cut: over the limit, the post is refused as the API would.
    const many = Array.from({ length: 21 }, (_, i) => `t${i}`);
    expect(tagsOf({ tags: many, categories: 'c' })).toEqual(many);
    expect(importedPostOf('_posts/2024-01-01-a.md', { title: 'T', categories: { a: 1 } }, '', 'jekyll')).toMatchObject({
      skip: { reason: 'invalid_front_matter', detail: "The front matter's categories is not a list." },
    });
    // Hugo's categories are a taxonomy of their own, not read.
    expect(importedPostOf('content/posts/a.md', { title: 'T', categories: ['notes'] }, '', 'markdown')).toMatchObject({
      post: { tags: [] },
    });
  });
});
