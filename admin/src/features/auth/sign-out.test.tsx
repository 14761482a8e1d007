// @vitest-environment jsdom
import { cleanup, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { REFRESH_TOKEN_KEY } from '../../lib/session';
import { fakeApi, json, postSummary, renderApp, sessionOver } from '../../test/fake-api';

afterEach(() => {
  cleanup();
  localStorage.clear();
});

const DRAFT = 'margincms:unsaved:01JDQ7W3E5R7T9Y1V3N5Q7P9AA';

function signedInOnPosts() {
  const api = fakeApi({
    'GET /posts': () =>
      json(200, { items: [postSummary('01JDQ7W3E5R7T9Y1V3N5Q7P9AA', 'Hello world')], nextCursor: null, total: 1, totalExact: true }),
    'POST /auth/logout': () => new Response(null, { status: 204 }),
  });
  renderApp('/posts', sessionOver(api.fetch, 'access-1'));
  return api;
}

describe('signing out', () => {
  it('without unsaved work: signs out at once and removes the kept refresh token', async () => {
    const api = signedInOnPosts();
    await screen.findByRole('cell', { name: 'Hello world' });
    expect(localStorage.getItem(REFRESH_TOKEN_KEY)).toBe('refresh-of-access-1');
    await userEvent.setup().click(screen.getByRole('button', { name: 'Sign out' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Sign in to MarginCMS' })).toBeTruthy();
    expect(api.calls('POST', '/auth/logout')).toHaveLength(1);
    expect(localStorage.length).toBe(0);
  });

  it('with unsaved work kept in this browser: asks first (focus on staying); staying keeps all, signing out drops every copy and the token', async () => {
    localStorage.setItem(DRAFT, JSON.stringify({ fields: { title: 'Mine', body: '', tags: [] }, baseVersion: 1, keptAt: '' }));
    localStorage.setItem('margincms:unsaved:new', JSON.stringify({ fields: { title: 'New', body: '', tags: [] }, baseVersion: null }));
    const api = signedInOnPosts();
    await screen.findByRole('cell', { name: 'Hello world' });
    const user = userEvent.setup();

    await user.click(screen.getByRole('button', { name: 'Sign out' }));
    const dialog = screen.getByRole('alertdialog', { name: 'Sign out and discard unsaved changes?' });
    expect(dialog.textContent).toContain('2 posts have changes that are not saved.');
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Stay signed in' }));
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('alertdialog')).toBeNull();
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Sign out' }));
    expect(api.calls('POST', '/auth/logout')).toHaveLength(0);
    expect(localStorage.getItem(DRAFT)).not.toBeNull();

    await user.click(screen.getByRole('button', { name: 'Sign out' }));
    await user.click(screen.getByRole('button', { name: 'Sign out and discard' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Sign in to MarginCMS' })).toBeTruthy();
    expect(api.calls('POST', '/auth/logout')).toHaveLength(1);
    expect(Object.keys(localStorage)).toEqual([]);
  });
});
