// @vitest-environment jsdom
import { cleanup, screen, within, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { bodyText } from '../../test/codemirror';
import { fakeApi, json, renderApp, sessionOver } from '../../test/fake-api';

afterEach(cleanup);

/** The history route is loaded on demand: its first render waits for the chunk. */
const LOAD = { timeout: 5000 };

const ADA = { id: '01USER', name: 'Ada Lovelace' };

function post(overrides: Record<string, unknown> = {}) {
  return {
    id: '01A',
    title: 'Hello again',
    slug: 'hello',
    excerpt: '',
    body: 'Line one.\nLine two, edited.\n',
    tags: ['intro', 'news'],
    status: 'draft',
    version: 3,
    wordCount: 5,
    createdAt: '2026-01-02T10:00:00.000Z',
    updatedAt: '2026-01-04T10:00:00.000Z',
    publishedAt: null,
    publishAt: null,
    coverImage: null,
    seo: { title: null, description: null, canonicalUrl: null },
    ...overrides,
  };
}

function revision(version: number, overrides: Record<string, unknown> = {}) {
  return {
    postId: '01A',
    version,
    title: 'Hello',
    slug: 'hello',
    excerpt: '',
    tags: ['intro'],
    status: 'draft',
    wordCount: 4,
    createdAt: `2026-01-0${version + 1}T10:00:00.000Z`,
    actor: ADA,
    changed: [],
    ...overrides,
  };
}

const REVISIONS = [
  revision(3, {
    title: 'Hello again',
    tags: ['intro', 'news'],
    wordCount: 5,
    actor: { id: '01BOB', name: 'Bob' },
    changed: ['title', 'tags'],
  }),
  revision(2, { wordCount: 5, changed: ['body'] }),
  revision(1),
];

/** Version 1 compared with current (version 3): the title, the tags and the body's second line differ. */
const DIFF_1_CURRENT = {
  postId: '01A',
  from: { version: 3, current: true },
  to: { version: 1, current: false },
  changed: ['title', 'tags', 'body'],
  title: { changed: true, from: 'Hello again', to: 'Hello' },
  slug: { changed: false, from: 'hello', to: 'hello' },
  excerpt: { changed: false, from: '', to: '' },
  status: { changed: false, from: 'draft', to: 'draft' },
  tags: { changed: true, added: [], removed: ['news'] },
  body: {
    changed: true,
    additions: 1,
    deletions: 1,
    unified: '--- body v3 (current)\n+++ body v1\n@@ -1,2 +1,2 @@\n Line one.\n-Line two, edited.\n+Line two.\n',
    truncated: false,
  },
};

function history(extra: Record<string, (request: Request, url: URL) => Response | Promise<Response>> = {}) {
  return fakeApi({
    'GET /posts/01A': () => json(200, post(), { etag: '"3"' }),
    'GET /posts/01A/revisions': (_request, url) =>
      url.searchParams.get('cursor') === 'older'
        ? json(200, { items: REVISIONS.slice(2), nextCursor: null })
        : json(200, { items: REVISIONS.slice(0, 2), nextCursor: 'older' }),
    'GET /posts/01A/revisions/1/diff': () => json(200, DIFF_1_CURRENT),
    'GET /tags': () => json(200, { items: [] }),
    ...extra,
  });
}

const cells = (row: HTMLElement) =>
  within(row)
    .getAllByRole('cell')
    .map((cell) => cell.textContent);

describe('the history of a post', () => {
  it('lists the revisions newest first (version, when, by whom, what changed) and "Load older revisions" asks with the cursor', async () => {
    const api = history();
    renderApp('/posts/01A/history', sessionOver(api.fetch, 'access-1'));
    expect(await screen.findByRole('heading', { level: 1, name: 'History of “Hello again”' }, LOAD)).toBeTruthy();
    const table = await screen.findByRole('table');
    const rows = () => within(table).getAllByRole('row').slice(1);
    expect(cells(rows()[0]!)).toEqual(['3 (current)', 'Jan 4, 2026, 10:00 AM', 'Bob', 'Title, tags', '']);
    expect(cells(rows()[1]!).slice(2, 4)).toEqual(['Ada Lovelace', 'Body']);

    await userEvent.setup().click(screen.getByRole('button', { name: 'Load older revisions' }));
    await within(table).findByText('Created');
    expect(cells(rows()[1]!)[3]).toBe('Body (4 → 5 words)');
    expect(rows()).toHaveLength(3);
    expect(screen.queryByRole('button', { name: 'Load older revisions' })).toBeNull();
    expect(api.calls('GET', '/posts/01A/revisions').map((r) => r.url.searchParams.get('cursor'))).toEqual([null, 'older']);
  });

  it('"With current" shows the diff against current field by field, the body as a line diff', async () => {
    const api = history();
    renderApp('/posts/01A/history?version=1', sessionOver(api.fetch, 'access-1'));
    const comparison = await screen.findByRole('heading', { level: 3, name: 'What goes from current (version 3) to version 1' }, LOAD);
    const fields = comparison.parentElement!;
    expect(
      within(fields)
        .getAllByRole('term')
        .map((term) => term.textContent),
    ).toEqual(['Title', 'Tags', 'Body']);
    const valuesOf = (term: string) =>
      [...within(fields).getByText(term).nextElementSibling!.querySelectorAll('p')].map((p) => p.textContent);
    expect(valuesOf('Title')).toEqual(['Current (version 3): Hello again', 'Version 1: Hello']);
    expect(valuesOf('Tags')).toEqual(['Only in current (version 3): news']);
    const body = within(fields).getByRole('list', { name: 'Body from line 1 of version 1' });
    expect(body.querySelector('del')?.textContent).toBe('Only in current (version 3): Line two, edited.');
    expect(body.querySelector('ins')?.textContent).toBe('Only in version 1: Line two.');
    expect(within(fields).getByText('1 line only in version 1, 1 only in current (version 3).')).toBeTruthy();
    expect(api.calls('GET', '/posts/01A/revisions/1/diff')[0]?.url.searchParams.get('against')).toBe('current');
  });

  it('the compare form asks for the diff between two revisions (against=2) and puts it in the URL', async () => {
    const api = history({
      'GET /posts/01A/revisions/1/diff': () =>
        json(200, {
          ...DIFF_1_CURRENT,
          from: { version: 2, current: false },
          changed: ['body'],
          body: { ...DIFF_1_CURRENT.body, unified: '' },
        }),
    });
    renderApp('/posts/01A/history', sessionOver(api.fetch, 'access-1'));
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Load older revisions' }, LOAD));
    await screen.findByText('Created');
    await user.selectOptions(screen.getByLabelText('Version'), 'Version 1');
    await user.selectOptions(screen.getByLabelText('against'), 'Version 2');
    await user.click(screen.getByRole('button', { name: 'Compare' }));
    expect(await screen.findByRole('heading', { level: 3, name: 'What goes from version 2 to version 1' })).toBeTruthy();
    expect(api.calls('GET', '/posts/01A/revisions/1/diff')[0]?.url.searchParams.get('against')).toBe('2');
  });

  it('restore says it brings back the cover image and SEO fields, and the editor opens with them', async () => {
    const cover = { mediaId: 'abcdefghijklmnopqrstuvwxyz', alt: 'Harbour' };
    const seo = { title: 'Ports, explained', description: 'Where ships wait.', canonicalUrl: null };
    const api = history({
      'POST /posts/01A/revisions/1/restore': () => json(200, post({ version: 4, coverImage: cover, seo }), { etag: '"4"' }),
      'GET /media/abcdefghijklmnopqrstuvwxyz': () => json(404, { title: 'Not found', detail: 'No media.', status: 404 }),
    });
    renderApp('/posts/01A/history?version=1', sessionOver(api.fetch, 'access-1'));
    expect(
      await screen.findByText(
        'Restoring version 1 brings back its title, excerpt, body, tags, cover image and search and sharing (SEO) fields; the slug and status stay as they are.',
        undefined,
        LOAD,
      ),
    ).toBeTruthy();
    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'Restore version 1…' }));
    const confirm = screen.getByRole('alertdialog', { name: 'Restore version 1?' });
    expect(
      within(confirm).getByText(/^Its title, excerpt, body, tags, cover image and search and sharing \(SEO\) fields become version 4/),
    ).toBeTruthy();
    await user.click(within(confirm).getByRole('button', { name: 'Restore version 1' }));
    expect(await screen.findByDisplayValue('Ports, explained', undefined, LOAD)).toBeTruthy();
    expect(screen.getByDisplayValue('Where ships wait.')).toBeTruthy();
  });

  it('restore asks first, then POSTs with If-Match of the post it read; the editor opens on the restored version', async () => {
    const seen: (string | null)[] = [];
    const api = history({
      'POST /posts/01A/revisions/1/restore': (request) => {
        seen.push(request.headers.get('if-match'));
        return json(200, post({ title: 'Hello', tags: ['intro'], body: 'Line one.\nLine two.\n', version: 4 }), { etag: '"4"' });
      },
    });
    renderApp('/posts/01A/history?version=1', sessionOver(api.fetch, 'access-1'));
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Restore version 1…' }, LOAD));
    const confirm = screen.getByRole('alertdialog', { name: 'Restore version 1?' });
    expect(document.activeElement?.textContent).toBe('Cancel');
    expect(seen).toEqual([]);

    await user.click(within(confirm).getByRole('button', { name: 'Restore version 1' }));
    const title = await screen.findByLabelText<HTMLInputElement>('Title', undefined, LOAD);
    expect(title.value).toBe('Hello');
    expect(bodyText()).toBe('Line one.\nLine two.\n');
    expect(seen).toEqual(['"3"']);
    // The editor shows the restored post as it came back, then reads it afresh as every opening does.
    await waitFor(() => expect(api.calls('GET', '/posts/01A')).toHaveLength(2));
  });

  it('"Cancel" restores nothing and gives the focus back to the restore button', async () => {
    const api = history();
    renderApp('/posts/01A/history?version=1', sessionOver(api.fetch, 'access-1'));
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Restore version 1…' }, LOAD));
    await user.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('alertdialog')).toBeNull();
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Restore version 1…' }));
    expect(api.calls('POST', '/posts/01A/revisions/1/restore')).toHaveLength(0);
  });

  it('412 on restore: says the post moved on and restored nothing, refreshes the history; restoring again sends the new ETag', async () => {
    const seen: (string | null)[] = [];
    const current = post({ version: 4, title: 'Hello from Bob' });
    const api = history({
      'POST /posts/01A/revisions/1/restore': (request) => {
        seen.push(request.headers.get('if-match'));
        return seen.length === 1
          ? json(
              412,
              {
                type: 'https://margincms.dev/problems/precondition-failed',
                title: 'Precondition Failed',
                status: 412,
                detail: 'The post has changed.',
                current,
              },
              { etag: '"4"' },
            )
          : json(200, post({ title: 'Hello', version: 5 }), { etag: '"5"' });
      },
    });
    renderApp('/posts/01A/history?version=1', sessionOver(api.fetch, 'access-1'));
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Restore version 1…' }, LOAD));
    await user.click(screen.getByRole('button', { name: 'Restore version 1' }));

    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('Someone else saved this post meanwhile');
    expect(alert.textContent).toContain('It is now at version 4, and nothing was restored.');
    expect(screen.getByRole('heading', { level: 1, name: 'History of “Hello from Bob”' })).toBeTruthy();
    // The history and the diff are asked again.
    expect(api.calls('GET', '/posts/01A/revisions/1/diff').length).toBeGreaterThan(1);

    await user.click(screen.getByRole('button', { name: 'Restore version 1…' }));
    await user.click(screen.getByRole('button', { name: 'Restore version 1' }));
    expect((await screen.findByLabelText<HTMLInputElement>('Title', undefined, LOAD)).value).toBe('Hello');
    expect(seen).toEqual(['"3"', '"4"']);
  });
});

describe('the history of a post that is not there', () => {
  it('404: the problem is shown where the history would be, and no revision is asked for', async () => {
    const api = fakeApi({
      'GET /posts/01GONE': () =>
        json(404, { type: 'https://margincms.dev/problems/not-found', title: 'Not Found', status: 404, detail: 'No post 01GONE.' }),
    });
    renderApp('/posts/01GONE/history', sessionOver(api.fetch, 'access-1'));
    const alert = await screen.findByRole('alert', undefined, LOAD);
    expect(alert.textContent).toContain('No post 01GONE.');
    expect(screen.getByRole('heading', { level: 1, name: 'History' })).toBeTruthy();
    expect(api.calls('GET', '/posts/01GONE/revisions')).toHaveLength(0);
  });

  it('names exactly the fields the API lists as changed, whatever the summaries show', async () => {
    const api = history({
      'GET /posts/01A/revisions': () =>
        json(200, {
          items: [revision(3, { changed: ['slug', 'body'] }), revision(2, { changed: ['status'] }), revision(1)],
          nextCursor: null,
        }),
    });
    renderApp('/posts/01A/history', sessionOver(api.fetch, 'access-1'));
    expect(await screen.findByRole('cell', { name: 'Slug, body' }, LOAD)).toBeTruthy();
    expect(screen.getByRole('cell', { name: 'Status' })).toBeTruthy();
  });

  it('names the fields as the editor labels them: "Cover image", "Search and sharing (SEO)", never "CoverImage"', async () => {
    const api = history({
      'GET /posts/01A/revisions': () =>
        json(200, {
          items: [revision(3, { changed: ['coverImage', 'seo'] }), revision(2, { changed: ['title', 'coverImage'] }), revision(1)],
          nextCursor: null,
        }),
      'GET /posts/01A/revisions/2/diff': () =>
        json(200, {
          ...DIFF_1_CURRENT,
          to: { version: 2, current: false },
          changed: ['coverImage', 'seo'],
          coverImage: { changed: true, from: null, to: { mediaId: 'abcdefghijklmnopqrstuvwxyz', alt: 'Harbour' } },
          seo: {
            changed: true,
            from: { title: null, description: null, canonicalUrl: null },
            to: { title: 'Ports', description: null, canonicalUrl: null },
          },
        }),
    });
    renderApp('/posts/01A/history?version=2', sessionOver(api.fetch, 'access-1'));
    expect(await screen.findByRole('cell', { name: 'Cover image, search and sharing (SEO)' }, LOAD)).toBeTruthy();
    expect(screen.getByRole('cell', { name: 'Title, cover image' })).toBeTruthy();
    const comparison = await screen.findByRole('heading', { level: 3, name: 'What goes from current (version 3) to version 2' });
    expect(
      within(comparison.parentElement!)
        .getAllByRole('term')
        .map((term) => term.textContent),
    ).toEqual(['Cover image', 'Search and sharing (SEO)']);
    expect(document.body.textContent).not.toMatch(/CoverImage|coverImage/);
  });

  it('a last line that differs only by its line break is no changed line: the diff says so instead of removing and adding it', async () => {
    const api = history({
      'GET /posts/01A/revisions/1/diff': () =>
        json(200, {
          ...DIFF_1_CURRENT,
          changed: ['body'],
          title: { changed: false, from: 'Hello', to: 'Hello' },
          tags: { changed: false, added: [], removed: [] },
          body: {
            changed: true,
            additions: 1,
            deletions: 1,
            unified:
              '--- body v3 (current)\n+++ body v1\n@@ -1,2 +1,2 @@\n Line one.\n-Line two.\n\\ No newline at end of file\n+Line two.\n',
            truncated: false,
          },
        }),
    });
    renderApp('/posts/01A/history?version=1', sessionOver(api.fetch, 'access-1'));
    expect(await screen.findByText('Only the line break after the last line differs.', undefined, LOAD)).toBeTruthy();
    expect(document.querySelector('ins, del')).toBeNull();
  });

  it('a line break added after a changed last line: the line shows once as changed, the counts leave out the false pair', async () => {
    const api = history({
      'GET /posts/01A/revisions/1/diff': () =>
        json(200, {
          ...DIFF_1_CURRENT,
          changed: ['body'],
          body: {
            changed: true,
            additions: 2,
            deletions: 2,
            unified:
              '--- body v3 (current)\n+++ body v1\n@@ -1,3 +1,3 @@\n-Line one.\n+Line 1.\n Line two.\n-The end.\n\\ No newline at end of file\n+The end.\n',
            truncated: false,
          },
        }),
    });
    renderApp('/posts/01A/history?version=1', sessionOver(api.fetch, 'access-1'));
    const body = await screen.findByRole('list', { name: 'Body from line 1 of version 1' }, LOAD);
    expect([...body.querySelectorAll('li')].map((li) => [li.className, li.textContent])).toEqual([
      ['line-removed', 'Only in current (version 3): Line one.'],
      ['line-added', 'Only in version 1: Line 1.'],
      ['line-same', 'Line two.'],
      ['line-same', 'The end.'],
    ]);
    expect(screen.getByText('1 line only in version 1, 1 only in current (version 3).')).toBeTruthy();
  });

  it('a write that changed none of the listed fields reads "Schedule only, or nothing"', async () => {
    const api = history({
      'GET /posts/01A/revisions': () => json(200, { items: [revision(2), revision(1)], nextCursor: null }),
    });
    renderApp('/posts/01A/history', sessionOver(api.fetch, 'access-1'));
    expect(await screen.findByRole('cell', { name: 'Schedule only, or nothing' }, LOAD)).toBeTruthy();
  });
});

describe('the way to the history', () => {
  it('the editor of a saved post links to its history', async () => {
    const api = history();
    renderApp('/posts/01A', sessionOver(api.fetch, 'access-1'));
    await userEvent.setup().click(await screen.findByRole('link', { name: 'History' }, LOAD));
    expect(await screen.findByRole('heading', { level: 1, name: 'History of “Hello again”' }, LOAD)).toBeTruthy();
  });
});
