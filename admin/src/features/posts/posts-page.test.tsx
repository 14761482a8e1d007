// @vitest-environment jsdom
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { fakeApi, json, postSummary, problem, renderApp, sessionOver, tokenPair } from '../../test/fake-api';
import { SCHEDULE_TIME } from '../../lib/schedule-time';

afterEach(cleanup);

const page = (items: object[], nextCursor: string | null, total = items.length) =>
  json(200, { items, nextCursor, total, totalExact: true });

const titles = () =>
  within(screen.getByRole('table'))
    .getAllByRole('row')
    .slice(1)
    .map((row) => within(row).getAllByRole('cell')[1]?.textContent);

describe('the posts list', () => {
  it('200: lists the drafts first, one page of 20, in a table under the "Posts" heading', async () => {
    const api = fakeApi({ 'GET /posts': () => page([postSummary('01A', 'First draft'), postSummary('01B', 'Second draft')], null) });
    renderApp('/posts', sessionOver(api.fetch, 'access-1'));
    expect(await screen.findByRole('cell', { name: 'First draft' })).toBeTruthy();
    expect(titles()).toEqual(['First draft', 'Second draft']);
    expect(screen.getByRole('heading', { level: 1, name: 'Posts' })).toBeTruthy();
    expect(screen.getByText('2 drafts.')).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Drafts' }).getAttribute('aria-current')).toBe('page');
    const [request] = api.calls('GET', '/posts');
    expect(request?.url.searchParams.getAll('status')).toEqual(['draft']);
    expect(request?.url.searchParams.get('scheduled')).toBe('false');
    expect(request?.url.searchParams.get('limit')).toBe('20');
    expect(request?.authorization).toBe('Bearer access-1');
  });

  it('the status tabs ask the API for that status (published, archived)', async () => {
    const api = fakeApi({
      'GET /posts': (_request, url) => {
        const status = url.searchParams.get('status')!;
        return page([postSummary(`01${status}`, `A ${status} post`, status)], null);
      },
    });
    renderApp('/posts', sessionOver(api.fetch, 'access-1'));
    await screen.findByRole('cell', { name: 'A draft post' });
    const user = userEvent.setup();
    await user.click(screen.getByRole('link', { name: 'Published' }));
    expect(await screen.findByRole('cell', { name: 'A published post' })).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Published' }).getAttribute('aria-current')).toBe('page');
    await user.click(screen.getByRole('link', { name: 'Archived' }));
    expect(await screen.findByRole('cell', { name: 'A archived post' })).toBeTruthy();
    expect(api.calls('GET', '/posts').map((r) => r.url.searchParams.get('status'))).toEqual(['draft', 'published', 'archived']);
  });

  it('Drafts asks for the drafts not scheduled; Scheduled for the scheduled drafts, soonest first, with their publishing time', async () => {
    const publishAt = '2026-03-02T09:30:00.000Z';
    const api = fakeApi({
      'GET /posts': (_request, url) =>
        url.searchParams.get('scheduled') === 'true'
          ? page([{ ...postSummary('01S', 'Goes out Monday'), publishAt }], null)
          : page([postSummary('01D', 'Plain draft')], null),
    });
    renderApp('/posts', sessionOver(api.fetch, 'access-1'));
    await screen.findByRole('cell', { name: 'Plain draft' });
    const tabs = within(screen.getByRole('navigation', { name: 'Post status' })).getAllByRole('link');
    expect(tabs.map((tab) => tab.textContent)).toEqual(['Drafts', 'Scheduled', 'Published', 'Archived']);
    expect(screen.getByRole('columnheader', { name: 'Updated' })).toBeTruthy();
    const user = userEvent.setup();
    await user.click(screen.getByRole('link', { name: 'Scheduled' }));
    expect(await screen.findByRole('cell', { name: 'Goes out Monday' })).toBeTruthy();
    expect(screen.getByText('1 scheduled post.')).toBeTruthy();
    expect(document.title).toBe('Posts: scheduled · MarginCMS');
    expect(screen.getByRole('columnheader', { name: 'Publishes' })).toBeTruthy();
    const local = new Intl.DateTimeFormat('en', SCHEDULE_TIME).format(new Date(publishAt));
    const time = screen.getByText(local);
    expect(time.tagName).toBe('TIME');
    expect(time.getAttribute('datetime')).toBe(publishAt);
    expect((within(screen.getByRole('search')).getByLabelText('Sort') as HTMLSelectElement).value).toBe('publishAt');
    expect(
      api
        .calls('GET', '/posts')
        .map((r) => [r.url.searchParams.getAll('status').join(), r.url.searchParams.get('scheduled'), r.url.searchParams.get('sort')]),
    ).toEqual([
      ['draft', 'false', '-updatedAt'],
      ['draft', 'true', 'publishAt'],
    ]);
  });

  it('a tab opens in its own order unless one was chosen; the publishing orders are offered on Scheduled only', async () => {
    const api = fakeApi({ 'GET /posts': () => page([postSummary('01A', 'Any')], null) });
    renderApp('/posts?status=scheduled', sessionOver(api.fetch, 'access-1'));
    await screen.findByRole('cell', { name: 'Any' });
    const sortOptions = () =>
      within(within(screen.getByRole('search')).getByLabelText('Sort'))
        .getAllByRole('option')
        .map((o) => o.textContent);
    expect(sortOptions()).toContain('Publishing, soonest first');
    expect(screen.getByRole('link', { name: 'Drafts' }).getAttribute('href')).toBe('/posts?status=draft');
    await userEvent.setup().selectOptions(within(screen.getByRole('search')).getByLabelText('Sort'), 'Publishing, latest first');
    await waitFor(() => expect(api.calls('GET', '/posts')).toHaveLength(2));
    // A publishing order means nothing on another tab: that tab's own order instead.
    expect(screen.getByRole('link', { name: 'Drafts' }).getAttribute('href')).toBe('/posts?status=draft');
    await userEvent.setup().click(screen.getByRole('link', { name: 'Drafts' }));
    await waitFor(() => expect(api.calls('GET', '/posts')).toHaveLength(3));
    expect(sortOptions()).not.toContain('Publishing, soonest first');
    expect(screen.getByRole('link', { name: 'Scheduled' }).getAttribute('href')).toBe('/posts?status=scheduled');
    await userEvent.setup().selectOptions(within(screen.getByRole('search')).getByLabelText('Sort'), 'Title, A to Z');
    await waitFor(() => expect(api.calls('GET', '/posts')).toHaveLength(4));
    expect(screen.getByRole('link', { name: 'Scheduled' }).getAttribute('href')).toBe('/posts?status=scheduled&sort=title');
  });

  it('the search sends q and says what matched; none is "No drafts matching"', async () => {
    const api = fakeApi({
      'GET /posts': (_request, url) => (url.searchParams.get('q') === 'zebra' ? page([], null) : page([postSummary('01A', 'Hello')], null)),
    });
    renderApp('/posts', sessionOver(api.fetch, 'access-1'));
    await screen.findByRole('cell', { name: 'Hello' });
    const user = userEvent.setup();
    await user.type(within(screen.getByRole('search')).getByLabelText('Search posts'), 'zebra{Enter}');
    expect(await screen.findByText('No drafts matching “zebra”.')).toBeTruthy();
    expect(screen.queryByRole('table')).toBeNull();
    expect(api.calls('GET', '/posts').at(-1)?.url.searchParams.get('q')).toBe('zebra');
  });

  it('a search asks for the best matches first (sort=relevance), offers that order only while searching, and drops it with the search', async () => {
    const api = fakeApi({ 'GET /posts': () => page([postSummary('01A', 'Hello')], null) });
    renderApp('/posts', sessionOver(api.fetch, 'access-1'));
    await screen.findByRole('cell', { name: 'Hello' });
    const sortOptions = () =>
      within(screen.getByLabelText('Sort'))
        .getAllByRole('option')
        .map((o) => o.textContent);
    expect(sortOptions()).not.toContain('Best match');
    expect(api.calls('GET', '/posts').at(-1)?.url.searchParams.get('sort')).toBe('-updatedAt');
    const user = userEvent.setup();
    const box = within(screen.getByRole('search')).getByLabelText('Search posts');
    await user.type(box, 'postgres production{Enter}');
    await waitFor(() => expect(api.calls('GET', '/posts').at(-1)?.url.searchParams.get('sort')).toBe('relevance'));
    expect(api.calls('GET', '/posts').at(-1)?.url.searchParams.get('q')).toBe('postgres production');
    expect(sortOptions()).toContain('Best match');
    await user.clear(within(screen.getByRole('search')).getByLabelText('Search posts'));
    await user.type(within(screen.getByRole('search')).getByLabelText('Search posts'), '{Enter}');
    // Back to the list first shown (from the cache): last updated first, no "Best match" offered.
    await waitFor(() => expect((screen.getByLabelText('Sort') as HTMLSelectElement).value).toBe('-updatedAt'));
    expect(sortOptions()).not.toContain('Best match');
  });

  it('the tag filter (from /tags) asks for that tag, says so, and keeps it in the URL the tabs and a reload use', async () => {
    const api = fakeApi({
      'GET /tags': () =>
        json(200, {
          items: [
            { name: 'markdown', count: 2 },
            { name: 'news', count: 1 },
          ],
        }),
      'GET /posts': (_request, url) =>
        url.searchParams.get('tag') === 'news' ? page([postSummary('01N', 'Tagged news')], null) : page([postSummary('01A', 'Any')], null),
    });
    renderApp('/posts', sessionOver(api.fetch, 'access-1'));
    await screen.findByRole('cell', { name: 'Any' });
    const tag = within(screen.getByRole('search')).getByLabelText('Tag');
    await screen.findByRole('option', { name: 'news (1)' });
    await userEvent.setup().selectOptions(tag, 'news');
    expect(await screen.findByRole('cell', { name: 'Tagged news' })).toBeTruthy();
    expect(screen.getByText('1 draft tagged “news”.')).toBeTruthy();
    expect(api.calls('GET', '/posts').map((r) => r.url.searchParams.get('tag'))).toEqual([null, 'news']);
    expect(screen.getByRole('link', { name: 'Published' }).getAttribute('href')).toBe('/posts?status=published&tag=news');
  });

  it('asks for the tags only once the first page of posts has answered (the rows come first)', async () => {
    const api = fakeApi({
      'GET /tags': () => json(200, { items: [{ name: 'news', count: 1 }] }),
      'GET /posts': () => page([postSummary('01A', 'First')], null),
    });
    renderApp('/posts', sessionOver(api.fetch, 'access-1'));
    await screen.findByRole('option', { name: 'news (1)' });
    expect(api.requests.map((r) => `${r.method} ${r.url.pathname}`)).toEqual(['GET /api/v1/posts', 'GET /api/v1/tags']);
  });

  it('the sort menu asks for that order (PostSort), kept in the URL; a URL with status, tag and sort opens that list', async () => {
    const api = fakeApi({
      'GET /tags': () => json(200, { items: [{ name: 'news', count: 1 }] }),
      'GET /posts': () => page([postSummary('01A', 'Sorted')], null),
    });
    renderApp('/posts?status=published&tag=news&sort=title', sessionOver(api.fetch, 'access-1'));
    await screen.findByRole('cell', { name: 'Sorted' });
    const search = within(screen.getByRole('search'));
    expect((search.getByLabelText('Sort') as HTMLSelectElement).value).toBe('title');
    expect((search.getByLabelText('Tag') as HTMLSelectElement).value).toBe('news');
    await userEvent.setup().selectOptions(search.getByLabelText('Sort'), 'Created, oldest first');
    await waitFor(() => expect(api.calls('GET', '/posts')).toHaveLength(2));
    expect(
      api
        .calls('GET', '/posts')
        .map((r) => [r.url.searchParams.get('status'), r.url.searchParams.get('tag'), r.url.searchParams.get('sort')]),
    ).toEqual([
      ['published', 'news', 'title'],
      ['published', 'news', 'createdAt'],
    ]);
    expect(screen.getByRole('link', { name: 'Drafts' }).getAttribute('href')).toBe('/posts?status=draft&tag=news&sort=createdAt');
  });

  it('"Load more" asks for the next page with its cursor and appends it; the last page has no button', async () => {
    const api = fakeApi({
      'GET /posts': (_request, url) =>
        url.searchParams.get('cursor') === 'page-2'
          ? page([postSummary('01C', 'Third')], null, 3)
          : page([postSummary('01A', 'First'), postSummary('01B', 'Second')], 'page-2', 3),
    });
    renderApp('/posts', sessionOver(api.fetch, 'access-1'));
    await screen.findByRole('cell', { name: 'First' });
    await userEvent.setup().click(screen.getByRole('button', { name: 'Load more' }));
    expect(await screen.findByRole('cell', { name: 'Third' })).toBeTruthy();
    expect(titles()).toEqual(['First', 'Second', 'Third']);
    expect(screen.queryByRole('button', { name: 'Load more' })).toBeNull();
    expect(api.calls('GET', '/posts').map((r) => r.url.searchParams.get('cursor'))).toEqual([null, 'page-2']);
  });

  it('401: the access token is refreshed once (src/client) and the list asked again with the new one', async () => {
    const api = fakeApi({
      'GET /posts': (request) =>
        request.headers.get('authorization') === 'Bearer access-2'
          ? page([postSummary('01A', 'After refresh')], null)
          : problem(401, 'unauthorized', 'Unauthorized', 'The access token has expired.'),
      'POST /auth/refresh': () => json(200, tokenPair('access-2')),
    });
    renderApp('/posts', sessionOver(api.fetch, 'access-1'));
    expect(await screen.findByRole('cell', { name: 'After refresh' })).toBeTruthy();
    expect(api.calls('POST', '/auth/refresh')).toHaveLength(1);
    expect(api.calls('GET', '/posts').map((r) => r.authorization)).toEqual(['Bearer access-1', 'Bearer access-2']);
  });

  it('401 whose refresh is refused: the session is over and the sign-in page shows', async () => {
    const api = fakeApi({
      'GET /posts': () => problem(401, 'unauthorized', 'Unauthorized', 'The access token has expired.'),
      'POST /auth/refresh': () => problem(401, 'invalid-refresh-token', 'Invalid refresh token', 'The session has ended.'),
    });
    renderApp('/posts', sessionOver(api.fetch, 'access-1'));
    expect(await screen.findByRole('heading', { level: 1, name: 'Sign in to MarginCMS' })).toBeTruthy();
    expect(api.calls('POST', '/auth/refresh')).toHaveLength(1);
  });

  it("422: the list's problem is shown where the list would be", async () => {
    const api = fakeApi({
      'GET /posts': () => problem(422, 'validation-failed', 'Validation failed', 'q must not contain control characters.', { errors: [] }),
    });
    renderApp('/posts?status=draft&q=bad', sessionOver(api.fetch, 'access-1'));
    const alert = await screen.findByRole('alert');
    expect(within(alert).getByText('q must not contain control characters.')).toBeTruthy();
  });
});
