// @vitest-environment jsdom
import { act, cleanup, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { fakeApi, json, renderApp, sessionOver } from '../../test/fake-api';
import { LOAD, post, writes } from './editor-test-kit';

afterEach(() => {
  cleanup();
  localStorage.clear();
});

/** Post 01A at version 3, then as `later` once `change()` is called: as if saved in another tab. */
function changingPost(later: Record<string, unknown>) {
  let current = post();
  const patch = writes(() => json(412, {}));
  const api = fakeApi({
    'GET /posts/01A': () => json(200, current, { etag: `"${current.version}"` }),
    'PATCH /posts/01A': patch.handler,
    'GET /tags': () => json(200, { items: [] }),
    'POST /preview': () => json(200, { html: '' }),
  });
  return { api, patch, change: () => (current = post(later)) };
}

/** The window regains focus, as when the author comes back from another window. */
const focusWindow = () => act(() => void window.dispatchEvent(new Event('focus')));

describe('the editor keeps the post fresh', () => {
  it('a newer version read when the window regains focus replaces a form without changes', async () => {
    const { api, change } = changingPost({ title: 'Their title', version: 4 });
    renderApp('/posts/01A', sessionOver(api.fetch, 'access-1'));
    const title = await screen.findByLabelText<HTMLInputElement>('Title', undefined, LOAD);
    expect(title.value).toBe('Hello');

    change();
    focusWindow();
    await screen.findByDisplayValue('Their title');
    expect(screen.queryByRole('alert')).toBeNull();
    expect(api.calls('GET', '/posts/01A').length).toBeGreaterThanOrEqual(2);
  });

  it('over unsaved changes, a newer version brings up the conflict banner before any save: an alert, focused, and the status says Conflict', async () => {
    const { api, patch, change } = changingPost({ title: 'Their title', version: 4 });
    renderApp('/posts/01A', sessionOver(api.fetch, 'access-1'));
    const title = await screen.findByLabelText<HTMLInputElement>('Title', undefined, LOAD);
    const user = userEvent.setup();
    await user.clear(title);
    await user.type(title, 'My title');
    expect(screen.getByText('Unsaved changes.')).toBeTruthy();

    change();
    focusWindow();
    const banner = await screen.findByRole('alert', { name: 'Someone else saved this post meanwhile' });
    expect(within(banner).getByText(/version 4\. Your changes are not saved yet\./)).toBeTruthy();
    expect(within(banner).getByText('Their title')).toBeTruthy();
    expect(document.activeElement).toBe(banner);
    expect(screen.getByText('Conflict: see the notice above.')).toBeTruthy();
    expect(screen.queryByText('Unsaved changes.')).toBeNull();
    // The form still holds the author's work, and nothing was sent.
    expect(title.value).toBe('My title');
    expect(patch.seen).toEqual([]);
  });
});
