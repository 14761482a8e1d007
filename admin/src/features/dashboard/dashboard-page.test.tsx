// @vitest-environment jsdom
import { cleanup, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { fakeApi, json, problem, renderApp, sessionOver } from '../../test/fake-api';

afterEach(cleanup);

const days = Array.from({ length: 30 }, (_, i) => ({
  date: `2026-11-${String(i + 1).padStart(2, '0')}`,
  edits: i === 29 ? 5 : i === 0 ? 2 : 0,
}));
const stats = { posts: { draft: 14, scheduled: 3, published: 21, archived: 2, total: 37 }, wordsPublished: 18342, editsPerDay: days };
const event = (id: string, type: string, postTitle: string, postId = '01POST') => ({
  id,
  type,
  postId,
  postTitle,
  postVersion: 2,
  actor: { id: '01USER', name: 'Ada Lovelace' },
  occurredAt: '2026-12-01T10:00:00.000Z',
});
const tags = Array.from({ length: 12 }, (_, i) => ({ name: `tag-${i}`, count: 20 - i }));

const rowsOf = (name: string) =>
  within(screen.getByRole('region', { name }))
    .getAllByRole('row')
    .slice(1)
    .map((row) => [...row.children].map((cell) => cell.textContent));

describe('the dashboard', () => {
  it('200: posts by tab of the list (each a link to it, the scheduled drafts apart), words and edits, and posts by tag (ten, then all)', async () => {
    const api = fakeApi({
      'GET /stats': () => json(200, stats),
      'GET /tags': () => json(200, { items: tags }),
      'GET /activity': () => json(200, { items: [], nextCursor: null }),
    });
    renderApp('/dashboard', sessionOver(api.fetch, 'access-1'));
    expect(await screen.findByRole('heading', { level: 1, name: 'Dashboard' })).toBeTruthy();
    await screen.findByRole('cell', { name: '11' });
    expect(rowsOf('Posts by status')).toEqual([
      ['Drafts', '11'],
      ['Scheduled', '3'],
      ['Published', '21'],
      ['Archived', '2'],
      ['Total', '37'],
    ]);
    expect(screen.getByRole('link', { name: 'Published' }).getAttribute('href')).toBe('/posts?status=published');
    expect(screen.getByRole('link', { name: 'Scheduled' }).getAttribute('href')).toBe('/posts?status=scheduled');
    expect(screen.getByText('18,342 words published; 7 edits in the last 30 days.')).toBeTruthy();
    await screen.findByRole('rowheader', { name: 'tag-0' });
    expect(rowsOf('Posts by tag')).toHaveLength(10);
    expect(rowsOf('Posts by tag')[0]).toEqual(['tag-0', '20']);
    await userEvent.setup().click(screen.getByRole('button', { name: 'Show all 12 tags' }));
    expect(rowsOf('Posts by tag')).toHaveLength(12);
    expect(document.title).toBe('Dashboard · MarginCMS');
  });

  it('the activity lists each event with a link to its post (none for a deletion), pages with its cursor and filters by type in the URL', async () => {
    const api = fakeApi({
      'GET /stats': () => json(200, stats),
      'GET /tags': () => json(200, { items: [] }),
      'GET /activity': (_request, url) => {
        if (url.searchParams.get('type') === 'deleted')
          return json(200, { items: [event('01E9', 'deleted', 'Gone', '01GONE')], nextCursor: null });
        return url.searchParams.get('cursor') === 'next'
          ? json(200, { items: [event('01E2', 'created', 'Older post', '01OLD')], nextCursor: null })
          : json(200, { items: [event('01E1', 'published', 'Newer post', '01NEW')], nextCursor: 'next' });
      },
    });
    renderApp('/dashboard', sessionOver(api.fetch, 'access-1'));
    const region = () => within(screen.getByRole('region', { name: 'Recent activity' }));
    expect((await screen.findByRole('link', { name: '“Newer post”' })).getAttribute('href')).toBe('/posts/01NEW');
    expect(region().getAllByRole('listitem')[0]?.textContent).toContain('Ada Lovelace published “Newer post” (version 2)');
    const user = userEvent.setup();
    await user.click(region().getByRole('button', { name: 'Load more' }));
    expect((await screen.findByRole('link', { name: '“Older post”' })).getAttribute('href')).toBe('/posts/01OLD');
    expect(region().queryByRole('button', { name: 'Load more' })).toBeNull();

    await user.selectOptions(region().getByLabelText('Type'), 'Deleted');
    expect(await region().findByText(/Ada Lovelace deleted “Gone”/)).toBeTruthy();
    expect(region().queryByRole('link', { name: '“Gone”' })).toBeNull();
    expect(api.calls('GET', '/activity').map((r) => [r.url.searchParams.get('type'), r.url.searchParams.get('cursor')])).toEqual([
      [null, null],
      [null, 'next'],
      ['deleted', null],
    ]);
  });

  it("the shell's navigation leads to the dashboard; a failed /stats shows its problem where the counts would be", async () => {
    const api = fakeApi({
      'GET /posts': () => json(200, { items: [], nextCursor: null, total: 0, totalExact: true }),
      'GET /stats': () => problem(503, 'service-unavailable', 'Service unavailable', 'The database is not reachable.'),
      'GET /tags': () => json(200, { items: [] }),
      'GET /activity': () => json(200, { items: [], nextCursor: null }),
    });
    renderApp('/posts', sessionOver(api.fetch, 'access-1'));
    await userEvent.setup().click(within(screen.getByRole('navigation', { name: 'Main' })).getByRole('link', { name: 'Dashboard' }));
    const status = await screen.findByRole('region', { name: 'Posts by status' });
    expect(await within(status).findByText('The database is not reachable.')).toBeTruthy();
    expect(screen.getByText('No activity yet.')).toBeTruthy();
  });
});
