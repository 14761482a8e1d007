// @vitest-environment jsdom
import { cleanup, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { problem } from '../../test/fake-api';
import { openEditor, post, writes } from './editor-test-kit';

afterEach(() => {
  cleanup();
  localStorage.clear();
});

const kept = () =>
  JSON.parse(localStorage.getItem('margincms:unsaved:01A') ?? 'null') as { fields: { title: string }; baseVersion: number } | null;

describe('the local copy of unsaved work after a 412', () => {
  it('survives the conflict: the edit the server refused stays in localStorage, and a later visit offers it back with "Restore it"', async () => {
    const theirs = post({ title: 'Their title', version: 5 });
    const patch = writes(() =>
      problem(412, 'precondition-failed', 'Precondition failed', 'The post has changed.', { current: theirs }, { etag: '"5"' }),
    );
    await openEditor({}, { 'PATCH /posts/01A': patch.handler });
    const user = userEvent.setup();
    const title = screen.getByLabelText<HTMLInputElement>('Title');
    await user.clear(title);
    await user.type(title, 'My title');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    await screen.findByRole('alert', { name: 'Someone else saved this post meanwhile' });
    expect(patch.seen).toHaveLength(1);
    expect(kept()).toMatchObject({ fields: { title: 'My title', body: 'Line one.\nLine two.\n' }, baseVersion: 3 });
    cleanup();

    // A later visit (the tab closed on the conflict): the post as the server has it now, and the copy on offer.
    await openEditor({ title: 'Their title', version: 5 }, { 'PATCH /posts/01A': patch.handler });
    const reopened = screen.getByLabelText<HTMLInputElement>('Title');
    expect(reopened.value).toBe('Their title');
    const notice = screen.getByRole('region', { name: /^Unsaved work from / });
    expect(within(notice).getByText(/made on version 3; the post is now at version 5/)).toBeTruthy();
    await user.click(within(notice).getByRole('button', { name: 'Restore it' }));
    expect(reopened.value).toBe('My title');
  });
});
