// @vitest-environment jsdom
import { File as NodeFile } from 'node:buffer';
import { cleanup, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fakeApi, json, problem, renderApp, sessionOver } from '../../test/fake-api';

/** The site route is loaded on demand: its first render waits for the chunk. */
const LOAD = { timeout: 5000 };

/** What the page's `<a download>` clicks asked the browser to save (jsdom saves nothing). */
let downloads: { href: string; download: string }[] = [];
/** The Blobs given to URL.createObjectURL, by the URL handed out (jsdom has no object URLs). */
let blobs: Map<string, Blob>;

beforeEach(() => {
  downloads = [];
  blobs = new Map();
  vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
    downloads.push({ href: this.href, download: this.download });
  });
  URL.createObjectURL = (blob: Blob) => {
    const url = `blob:http://admin.test/${blobs.size + 1}`;
    blobs.set(url, blob as Blob);
    return url;
  };
  URL.revokeObjectURL = (url: string) => void blobs.delete(url);
});

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

const ZIP_BYTES = new Uint8Array([0x50, 0x4b, 0x05, 0x06, ...new Array<number>(18).fill(0)]);

const zipAnswer = () =>
  new Response(ZIP_BYTES, {
    status: 200,
    headers: { 'content-type': 'application/zip', 'content-disposition': 'attachment; filename="margin-export-2026-12-06.zip"' },
  });

const item = (path: string, action: string, extra: Record<string, unknown> = {}) => ({
  path,
  action,
  id: null,
  slug: null,
  changed: [],
  summary: '',
  reason: null,
  detail: null,
  ...extra,
});

function report(mode: 'dry-run' | 'apply') {
  return {
    mode,
    source: 'markdown',
    counts: { files: 3, create: 1, update: 1, unchanged: 0, skip: 1 },
    items: [
      item('posts/new.md', 'create', {
        slug: 'new',
        summary: mode === 'apply' ? 'Created as a draft.' : 'Will be created as a draft.',
        ...(mode === 'apply' ? { id: '01NEW' } : {}),
      }),
      item('posts/old.md', 'update', {
        id: '01OLD',
        slug: 'old',
        changed: ['title', 'status', 'body'],
        summary: 'Will become a draft (now published); its title and body change.',
        detail: 'The file is not what the manifest lists (…): read by its own front matter.',
      }),
      item('posts/untitled.md', 'skip', {
        slug: 'untitled',
        reason: 'invalid_post',
        detail: '/title: must NOT have fewer than 1 characters',
      }),
    ],
  };
}

/** Records what each import request sent: its mode, content type and body bytes. */
function imports(answer: (mode: string) => Response) {
  const seen: { mode: string | null; type: string | null; bytes: number[] }[] = [];
  const handler = async (request: Request, url: URL) => {
    seen.push({
      mode: url.searchParams.get('mode'),
      type: request.headers.get('content-type'),
      bytes: [...new Uint8Array(await request.arrayBuffer())],
    });
    return answer(url.searchParams.get('mode')!);
  };
  return { seen, handler };
}

const rowsOf = (table: HTMLElement) =>
  within(table)
    .getAllByRole('row')
    .slice(1)
    .map((row) =>
      within(row)
        .getAllByRole('cell')
        .map((cell) => cell.textContent),
    );

describe('the site page: export', () => {
  it('downloads the zip through the client with the chosen layout and filters, under the name the server gives', async () => {
    const api = fakeApi({ 'GET /export': () => zipAnswer() });
    renderApp('/site', sessionOver(api.fetch, 'access-1'));
    const user = userEvent.setup();
    await user.click(await screen.findByLabelText('Hugo', undefined, LOAD));
    await user.click(screen.getByLabelText('Archived'));
    await user.type(screen.getByLabelText('Tag'), 'go');
    await user.click(screen.getByRole('button', { name: 'Download the zip' }));

    expect(await screen.findByText(/Exported margin-export-2026-12-06.zip \(22 bytes\)/)).toBeTruthy();
    const [request] = api.calls('GET', '/export');
    expect(request?.url.searchParams.get('layout')).toBe('hugo');
    expect(request?.url.searchParams.getAll('status')).toEqual(['draft', 'published']);
    expect(request?.url.searchParams.get('tag')).toBe('go');
    expect(request?.authorization).toBe('Bearer access-1');
    expect(downloads).toEqual([{ href: 'blob:http://admin.test/1', download: 'margin-export-2026-12-06.zip' }]);
    expect([...new Uint8Array(await blobs.get('blob:http://admin.test/1')!.arrayBuffer())]).toEqual([...ZIP_BYTES]);
    expect(screen.getByRole('link', { name: 'Save it again' }).getAttribute('href')).toBe('blob:http://admin.test/1');
  });

  it('every status and no tag: asks for the flat layout without filters; none checked cannot be sent', async () => {
    const api = fakeApi({ 'GET /export': () => zipAnswer() });
    renderApp('/site', sessionOver(api.fetch, 'access-1'));
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Download the zip' }, LOAD));
    await screen.findByText(/Exported/);
    expect([...api.calls('GET', '/export')[0]!.url.searchParams]).toEqual([['layout', 'flat']]);

    for (const label of ['Drafts', 'Published', 'Archived']) await user.click(screen.getByLabelText(label));
    expect(screen.getByText('Choose at least one status.')).toBeTruthy();
    expect(screen.getByRole<HTMLButtonElement>('button', { name: 'Download the zip' }).disabled).toBe(true);
  });

  it("422: the tag's error stands beside the tag field, and nothing is downloaded", async () => {
    const api = fakeApi({
      'GET /export': () =>
        problem(422, 'validation-failed', 'Validation failed', 'The request has invalid values.', {
          errors: [{ pointer: '/query/tag', message: 'must NOT have more than 40 characters' }],
        }),
    });
    renderApp('/site', sessionOver(api.fetch, 'access-1'));
    const user = userEvent.setup();
    await user.type(await screen.findByLabelText('Tag', undefined, LOAD), 'x'.repeat(41));
    await user.click(screen.getByRole('button', { name: 'Download the zip' }));
    expect(await screen.findByText('must NOT have more than 40 characters')).toBeTruthy();
    expect(screen.getByLabelText('Tag').getAttribute('aria-invalid')).toBe('true');
    expect(downloads).toEqual([]);
  });
});

describe('the site page: import', () => {
  // Node's File, not jsdom's: the body goes through Node's fetch, which reads only its own Blobs (a browser has one kind).
  const archive = () => new NodeFile([new Uint8Array([80, 75, 3, 4, 1, 2, 3])], 'site.zip', { type: 'application/zip' }) as unknown as File;

  it('a dry run first shows the report file by file; "Apply" sends the same zip for real and shows what it did', async () => {
    const sent = imports((mode) => json(200, report(mode as 'dry-run' | 'apply')));
    const api = fakeApi({ 'POST /import': sent.handler });
    renderApp('/site', sessionOver(api.fetch, 'access-1'));
    const user = userEvent.setup();
    await user.upload(await screen.findByLabelText('Zip archive', undefined, LOAD), archive());
    expect(screen.getByText('site.zip, 7 bytes')).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Check it (dry run)' }));

    const dry = await screen.findByRole('region', { name: 'Dry run: nothing written yet' });
    expect(within(dry).getByText('3 files: 1 to create, 1 to update, 0 unchanged, 1 to skip.')).toBeTruthy();
    expect(rowsOf(within(dry).getByRole('table'))).toEqual([
      ['posts/new.md', 'Would create', 'new', 'Will be created as a draft.'],
      [
        'posts/old.md',
        'Would update',
        'old',
        'Will become a draft (now published); its title and body change. The file is not what the manifest lists (…): read by its own front matter.',
      ],
      ['posts/untitled.md', 'Would skip', 'untitled', 'Not a valid post: /title: must NOT have fewer than 1 characters'],
    ]);
    expect(sent.seen).toEqual([{ mode: 'dry-run', type: 'application/zip', bytes: [80, 75, 3, 4, 1, 2, 3] }]);

    await user.click(screen.getByRole('button', { name: 'Apply the import' }));
    const applied = await screen.findByRole('region', { name: 'Imported' });
    expect(within(applied).getByText('3 files: 1 created, 1 updated, 0 unchanged, 1 skipped.')).toBeTruthy();
    expect(rowsOf(within(applied).getByRole('table')).map((row) => row[1])).toEqual(['Created', 'Updated', 'Skipped']);
    expect(screen.queryByRole('button', { name: 'Apply the import' })).toBeNull();
    expect(sent.seen.map((s) => s.mode)).toEqual(['dry-run', 'apply']);
    expect(sent.seen[1]?.bytes).toEqual(sent.seen[0]?.bytes);
  });

  it('a dry run with nothing to write offers no Apply', async () => {
    const nothing = {
      ...report('dry-run'),
      counts: { files: 1, create: 0, update: 0, unchanged: 1, skip: 0 },
      items: [item('a.md', 'unchanged', { slug: 'a' })],
    };
    const api = fakeApi({ 'POST /import': () => json(200, nothing) });
    renderApp('/site', sessionOver(api.fetch, 'access-1'));
    const user = userEvent.setup();
    await user.upload(await screen.findByLabelText('Zip archive', undefined, LOAD), archive());
    await user.click(screen.getByRole('button', { name: 'Check it (dry run)' }));
    expect(await screen.findByText('Nothing to import: every file is unchanged or skipped.')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Apply the import' })).toBeNull();
  });

  it('422 archive-refused: its title and detail are shown, and there is nothing to apply', async () => {
    const api = fakeApi({
      'POST /import': () =>
        problem(422, 'archive-refused', 'Archive refused', 'The entry ../etc/passwd climbs out of the archive.', {
          reason: 'unsafe_path',
          entry: '../etc/passwd',
        }),
    });
    renderApp('/site', sessionOver(api.fetch, 'access-1'));
    const user = userEvent.setup();
    await user.upload(await screen.findByLabelText('Zip archive', undefined, LOAD), archive());
    await user.click(screen.getByRole('button', { name: 'Check it (dry run)' }));
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('Archive refused');
    expect(alert.textContent).toContain('The entry ../etc/passwd climbs out of the archive.');
    expect(screen.queryByRole('button', { name: 'Apply the import' })).toBeNull();
  });

  it("the shell's navigation leads to the site page", async () => {
    const api = fakeApi({ 'GET /posts': () => json(200, { items: [], nextCursor: null, total: 0, totalExact: true }) });
    renderApp('/posts', sessionOver(api.fetch, 'access-1'));
    await userEvent.setup().click(within(screen.getByRole('navigation', { name: 'Main' })).getByRole('link', { name: 'Site' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Site' }, LOAD)).toBeTruthy();
    expect(document.title).toBe('Site · MarginCMS');
  });
});
