// @vitest-environment jsdom
import { cleanup, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fakeApi, json, problem, renderApp, sessionOver } from '../../test/fake-api';
import { LOAD, post, writes } from './editor-test-kit';

afterEach(() => {
  cleanup();
  localStorage.clear();
  vi.restoreAllMocks();
});

describe('the conflict banner after a 412', () => {
  it('"Copy mine" puts my version (front matter and body) on the clipboard, says so, and sends nothing', async () => {
    const theirs = post({ title: 'Their title', version: 5 });
    const patch = writes(() =>
      problem(412, 'precondition-failed', 'Precondition failed', 'The post has changed.', { current: theirs }, { etag: '"5"' }),
    );
    const api = fakeApi({
      'GET /posts/01A': () => json(200, post(), { etag: '"3"' }),
      'PATCH /posts/01A': patch.handler,
      'GET /tags': () => json(200, { items: [] }),
      'POST /preview': () => json(200, { html: '' }),
    });
    renderApp('/posts/01A', sessionOver(api.fetch, 'access-1'));
    const title = await screen.findByLabelText<HTMLInputElement>('Title', undefined, LOAD);
    const user = userEvent.setup();
    // After userEvent.setup(), which installs its own clipboard stub on navigator.
    const writeText = vi.spyOn(navigator.clipboard, 'writeText').mockResolvedValue(undefined);
    await user.clear(title);
    await user.type(title, 'My title');
    await user.click(screen.getByRole('button', { name: 'Save' }));

    const banner = await screen.findByRole('alert', { name: 'Someone else saved this post meanwhile' });
    await user.click(within(banner).getByRole('button', { name: 'Copy mine' }));
    expect(await within(banner).findByText('Your version is on the clipboard.')).toBeTruthy();
    expect(writeText.mock.calls).toEqual([
      ['---\ntitle: "My title"\nslug: hello\nexcerpt: "A first post."\ntags: ["intro"]\nstatus: draft\n---\nLine one.\nLine two.\n'],
    ]);
    // Only the save that met the 412 went out: copying writes nothing to the server.
    expect(patch.seen).toHaveLength(1);
    expect(api.requests.filter((r) => r.method !== 'GET' && r.url.pathname !== '/api/v1/preview')).toHaveLength(1);
    expect(screen.getByRole('alert', { name: 'Someone else saved this post meanwhile' })).toBeTruthy();
    expect(title.value).toBe('My title');
  });
});
