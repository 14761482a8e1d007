import { expect, it } from 'vitest';
import { parse } from 'yaml';
import { FixedClock } from '../support/http.js';
import { describeOnEveryStore } from '../support/stores.js';
import { expectInvalid, expectProblem, expectUnauthorized, setup, UNKNOWN_ID } from './helpers.js';

/** Splits an exported file into its parsed front matter and the body after the closing `---`. */
function splitExport(markdown: string): { front: Record<string, unknown>; body: string } {
  expect(markdown.startsWith('---\n')).toBe(true);
  const end = markdown.indexOf('\n---\n', 3);
  expect(end).toBeGreaterThan(0);
  return { front: parse(markdown.slice(4, end + 1)) as Record<string, unknown>, body: markdown.slice(end + 5) };
}

const TRICKY_TITLES = [
  'Cursor pagination: without tears',
  'She said "hi" and \'bye\'',
  '# not a comment',
  'hash # in the middle',
  'line one\nline two',
  'trailing newline\n',
  ' leading and trailing spaces ',
  '---',
  '... the end',
  'yes',
  'null',
  '2026-01-01',
  '0x1F',
  '- a list?',
  '[not, a, list]',
  '{not: a map}',
  '@mention & *alias',
  '%TAG directive',
  '|literal',
  '> folded',
  'tab\there',
  'ünïcödé 🎉',
  'crlf\r\nline',
  'x\n---\ny',
  '  \n  indented\n',
  'key: |\n  not a block',
  '\n',
  'bell\u0007',
];

describeOnEveryStore('exportPost', (make) => {
  it('answers text/markdown with the slug as the file name, front matter and the body unchanged', async () => {
    const clock = new FixedClock(new Date('2026-11-21T10:00:00.000Z'));
    const t = await setup(make, { clock });
    const body = '---\nnot front matter\n---\n\n# Heading\n\nText with `code`: yes\n\n```yaml\nkey: value\n```\n';
    const post = await t.create({
      title: 'Cursor pagination: without tears',
      excerpt: 'Offsets skip: keysets do not.',
      body,
      tags: ['api', 'postgres'],
    });
    const response = await t.send('GET', `/posts/${post.id}/export`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expect(response.headers.get('content-disposition')).toBe('attachment; filename="cursor-pagination-without-tears.md"');
    expect(response.headers.get('etag')).toBe('"1"');
    const exported = splitExport(await response.text());
    expect(exported.front).toEqual({
      title: 'Cursor pagination: without tears',
      description: 'Offsets skip: keysets do not.',
      date: '2026-11-21T10:00:00.000Z',
      tags: ['api', 'postgres'],
      slug: 'cursor-pagination-without-tears',
    });
    expect(exported.body).toBe(body);
  });

  it('dates the file by publishedAt once published, else by createdAt', async () => {
    const clock = new FixedClock(new Date('2026-01-01T00:00:00.000Z'));
    const t = await setup(make, { clock });
    const post = await t.create({ title: 'Dated' });
    const draft = splitExport(await (await t.send('GET', `/posts/${post.id}/export`)).text());
    expect(draft.front.date).toBe('2026-01-01T00:00:00.000Z');
    clock.advance(86_400_000);
    await t.patch(post.id, 1, { status: 'published' });
    clock.advance(86_400_000);
    await t.patch(post.id, 2, { status: 'draft' });
    const response = await t.send('GET', `/posts/${post.id}/export`);
    expect(response.headers.get('etag')).toBe('"3"');
    expect(splitExport(await response.text()).front.date).toBe('2026-01-02T00:00:00.000Z');
  });

  it('writes titles with colons, quotes, #, line breaks and other YAML syntax so that they parse back the same', async () => {
    const t = await setup(make);
    for (const title of TRICKY_TITLES) {
      const post = await t.create({ title, excerpt: `${title} (excerpt)`, tags: [title.trim().slice(0, 40) || 'blank'] });
      const response = await t.send('GET', `/posts/${post.id}/export`);
      expect(response.status).toBe(200);
      const { front, body } = splitExport(await response.text());
      expect(front.title, JSON.stringify(title)).toBe(title);
      expect(front.description).toBe(`${title} (excerpt)`);
      expect(front.tags).toEqual(post.tags);
      expect(front.slug).toBe(post.slug);
      expect(body).toBe('');
      expect(response.headers.get('content-disposition')).toBe(`attachment; filename="${post.slug}.md"`);
    }
  });

  it('answers 404 for an unknown post, 422 for a malformed id and 401 without a token', async () => {
    const t = await setup(make);
    await expectProblem(await t.send('GET', `/posts/${UNKNOWN_ID}/export`), 404, 'not-found');
    await expectInvalid(await t.send('GET', '/posts/nope/export'), '/path/id');
    await expectUnauthorized(await t.send('GET', `/posts/${UNKNOWN_ID}/export`, { anonymous: true }));
  });
});
