// @vitest-environment jsdom
import { cleanup, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { REFRESH_TOKEN_KEY } from '../../lib/session';
import { json, problem } from '../../test/fake-api';
import { openEditor } from './editor-test-kit';

afterEach(() => {
  cleanup();
  localStorage.clear();
});

const TOKEN = 'p8i8QA7hrHI-5ZkQlc7WZsE5Wac35DJDtFLLOYZYMzs';
const URL_OF_LINK = `http://api.test/api/v1/content/preview/${TOKEN}`;

function link(id: string, status: 'active' | 'expired' | 'revoked') {
  return {
    id,
    createdAt: '2026-12-01T10:00:00.000Z',
    expiresAt: '2026-12-08T10:00:00.000Z',
    revokedAt: status === 'revoked' ? '2026-12-02T10:00:00.000Z' : null,
    status,
  };
}

/** The editor of post 01A with its preview links (a list that follows creates and revokes) and Share preview opened. */
async function openSharing(routes: Parameters<typeof openEditor>[1] = {}, shown = 'Expired') {
  let links = [link('01OLD', 'expired')];
  const sent: unknown[] = [];
  const api = await openEditor(
    {},
    {
      'GET /posts/01A/preview-links': () => json(200, { items: links, nextCursor: null }),
      'POST /posts/01A/preview-links': async (request) => {
        const body = (await request.json()) as { expiresAt: string };
        sent.push(body);
        links = [{ ...link('01NEW', 'active'), expiresAt: body.expiresAt }, ...links];
        return json(201, {
          id: '01NEW',
          url: URL_OF_LINK,
          apiUrl: URL_OF_LINK,
          token: TOKEN,
          expiresAt: body.expiresAt,
          createdAt: '2026-12-01T10:00:00.000Z',
        });
      },
      'DELETE /posts/01A/preview-links/01NEW': () => {
        links = links.map((l) => (l.id === '01NEW' ? { ...l, status: 'revoked', revokedAt: '2026-12-01T11:00:00.000Z' } : l));
        return new Response(null, { status: 204 });
      },
      ...routes,
    },
  );
  const user = userEvent.setup();
  const toggle = screen.getByRole('button', { name: 'Share preview' });
  expect(api.calls('GET', '/posts/01A/preview-links')).toHaveLength(0);
  await user.click(toggle);
  expect(toggle.getAttribute('aria-expanded')).toBe('true');
  await screen.findAllByText(shown);
  return { api, user, sent };
}

describe('Share preview in the editor', () => {
  it("shows the server's url of a new link, the site's frontend when it has one, and opens that one", async () => {
    const frontend = `https://blog.example.com/preview/${TOKEN}`;
    const { user } = await openSharing({
      'POST /posts/01A/preview-links': () =>
        json(201, {
          id: '01NEW',
          url: frontend,
          apiUrl: URL_OF_LINK,
          token: TOKEN,
          expiresAt: '2026-12-08T10:00:00.000Z',
          createdAt: '2026-12-01T10:00:00.000Z',
        }),
    });
    await user.click(screen.getByRole('button', { name: 'Create preview link' }));
    const panel = await screen.findByRole('region', { name: 'New preview link' });
    expect((within(panel).getByLabelText('Preview URL') as HTMLInputElement).value).toBe(frontend);
    expect(
      within(panel)
        .getByRole('link', { name: /^Open the preview/ })
        .getAttribute('href'),
    ).toBe(frontend);
  });

  it('creates a link expiring in the chosen days, shows its URL once with Copy, lists it as active, and forgets the URL when dismissed', async () => {
    const { user, sent } = await openSharing();
    expect((screen.getByLabelText('Expires after') as HTMLSelectElement).value).toBe('7');
    await user.selectOptions(screen.getByLabelText('Expires after'), '30');
    const before = Date.now();
    await user.click(screen.getByRole('button', { name: 'Create preview link' }));

    const panel = await screen.findByRole('region', { name: 'New preview link' });
    expect((within(panel).getByLabelText('Preview URL') as HTMLInputElement).value).toBe(URL_OF_LINK);
    expect(within(panel).getByText(/it is not shown again/)).toBeTruthy();
    const expiresAt = Date.parse((sent[0] as { expiresAt: string }).expiresAt);
    expect(expiresAt - before).toBeGreaterThanOrEqual(30 * 86_400_000 - 1000);
    expect(expiresAt - before).toBeLessThan(30 * 86_400_000 + 60_000);

    await user.click(within(panel).getByRole('button', { name: 'Copy' }));
    expect(await navigator.clipboard.readText()).toBe(URL_OF_LINK);
    expect(within(panel).getByText('Copied to the clipboard.')).toBeTruthy();
    expect(await screen.findByText('Active')).toBeTruthy();

    await user.click(within(panel).getByRole('button', { name: 'Dismiss' }));
    expect(screen.queryByRole('region', { name: 'New preview link' })).toBeNull();
    expect(document.body.innerHTML).not.toContain(TOKEN);
    // Nothing but the session's refresh token is kept in storage.
    expect(Object.keys(localStorage)).toEqual([REFRESH_TOKEN_KEY]);
  });

  it('revokes an active link after asking, and lists it as revoked', async () => {
    const { api, user } = await openSharing();
    await user.click(screen.getByRole('button', { name: 'Create preview link' }));
    await screen.findByText('Active');
    await user.click(screen.getByRole('button', { name: /^Revoke the link created/ }));
    expect(api.calls('DELETE', '/posts/01A/preview-links/01NEW')).toHaveLength(0);
    await user.click(screen.getByRole('button', { name: 'Yes, revoke it' }));
    expect(await screen.findByText('Revoked')).toBeTruthy();
    expect(api.calls('DELETE', '/posts/01A/preview-links/01NEW')).toHaveLength(1);
    expect(screen.getByText(/its URL answers 404 from now on/)).toBeTruthy();
  });

  it('lists 20 links a page and loads the older ones by cursor with Load older links', async () => {
    const newest = Array.from({ length: 20 }, (_, i) => ({
      ...link(`01P${String(i).padStart(2, '0')}`, 'active'),
      createdAt: '2026-12-03T10:00:00.000Z',
    }));
    const { api, user } = await openSharing(
      {
        'GET /posts/01A/preview-links': (request) =>
          new URL(request.url).searchParams.get('cursor') === 'older'
            ? json(200, { items: [link('01OLDEST', 'revoked')], nextCursor: null })
            : json(200, { items: newest, nextCursor: 'older' }),
      },
      'Active',
    );
    expect(screen.queryByText('Revoked')).toBeNull();
    expect(api.calls('GET', '/posts/01A/preview-links')[0]?.url.searchParams.get('limit')).toBe('20');
    await user.click(screen.getByRole('button', { name: 'Load older links' }));
    expect(await screen.findByText('Revoked')).toBeTruthy();
    expect(screen.getAllByRole('button', { name: /^Revoke the link created/ })).toHaveLength(20);
    expect(api.calls('GET', '/posts/01A/preview-links').map((c) => c.url.searchParams.get('cursor'))).toEqual([null, 'older']);
    expect(screen.queryByRole('button', { name: 'Load older links' })).toBeNull();
  });

  it('a create refused at the limit says to revoke one first, where the author is looking', async () => {
    const detail = 'This post has 20 active preview links, the most it may have; revoke one before creating another.';
    const { user } = await openSharing({
      'POST /posts/01A/preview-links': () =>
        problem(422, 'preview-link-limit-reached', 'Preview link limit reached', detail, { limit: 20 }),
    });
    await user.click(screen.getByRole('button', { name: 'Create preview link' }));
    const alert = await screen.findByRole('alert');
    expect(within(alert).getByText(detail)).toBeTruthy();
    expect(screen.queryByRole('region', { name: 'New preview link' })).toBeNull();
  });

  it('a refused create shows the problem where the author is looking', async () => {
    const { user } = await openSharing({
      'POST /posts/01A/preview-links': () => problem(404, 'not-found', 'Not Found', 'No post has the id 01A.'),
    });
    await user.click(screen.getByRole('button', { name: 'Create preview link' }));
    const alert = await screen.findByRole('alert');
    expect(within(alert).getByText('No post has the id 01A.')).toBeTruthy();
  });
});
